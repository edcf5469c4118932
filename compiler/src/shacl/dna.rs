//! A DNA's classes as SHACL shapes (`validate_perspective`): each class a node shape whose
//! focus nodes are the class's instances (the nodes that carry its whole marker), each
//! visible property a property shape with the constraints the model carries. Built directly
//! in the validator's shape model: the same shapes a SHACL shapes graph of the DNA would give.
//!
//! | model | shape |
//! |---|---|
//! | class | node shape `<node_shape_uri>`, target: the marker links |
//! | property | property shape `<node_shape_uri>#<name>`, `sh:path <path>` |
//! | `datatype` | `sh:datatype` |
//! | reference, `node_kind` | `sh:nodeKind` (`sh:IRI` for references) |
//! | `min_count`, `max_count` (a scalar: at most 1) | `sh:minCount`, `sh:maxCount` |
//! | `in`, `has_value` | `sh:in`, `sh:hasValue` |
//! | `pattern` + `flags`, lengths, ranges | `sh:pattern` + `sh:flags`, `sh:minLength` …, `sh:minInclusive` … |
//! | `class` / relation target | `sh:node` to a shape that holds the target class's marker |
//! | `class` outside the DNA | `sh:class` |
//!
//! Computed properties (getters) are not evaluated in this release and get no shape; marker
//! properties are what the target selects.

use serde_json::Value;

use super::path::Path;
use super::shapes::{Constraint, NodeKind, Shape, ShapeRef, Shapes, Target, pattern};
use super::term::Term;
use super::vocab::{XSD_BOOLEAN, XSD_DECIMAL, XSD_INTEGER, XSD_STRING};
use crate::model::{self, Class, Property, ValueType};

/// The shapes of `classes` (every class, or only the one named `only`). `marker_term` turns a
/// marker link's target (an IRI or an encoded literal) into the term the data graph holds.
pub fn shapes(classes: &[&Class], only: Option<&str>, marker_term: &dyn Fn(&str) -> Term) -> Shapes {
    let mut builder = Builder::new(classes, Shapes::new(), marker_term);
    builder.derive(only, &|_| true);
    builder.shapes
}

/// Builds shapes for a DNA's classes into a [`Shapes`] that may already hold others (the
/// shapes graph's, [`super::complete`]).
pub(super) struct Builder<'a> {
    pub(super) classes: &'a [&'a Class],
    pub(super) shapes: Shapes,
    marker_term: &'a dyn Fn(&str) -> Term,
}

impl<'a> Builder<'a> {
    pub(super) fn new(classes: &'a [&'a Class], shapes: Shapes, marker_term: &'a dyn Fn(&str) -> Term) -> Self {
        Builder {
            classes,
            shapes,
            marker_term,
        }
    }

    /// A root shape derived from the model for each class (`only`: the one of that name) that
    /// `derived` selects.
    pub(super) fn derive(&mut self, only: Option<&str>, derived: &dyn Fn(&Class) -> bool) {
        let classes = self.classes;
        for class in classes
            .iter()
            .filter(|c| only.is_none_or(|name| c.name == name) && derived(c))
        {
            let root = self.class_shape(class);
            self.shapes.roots.push(root);
        }
    }
}

impl Builder<'_> {
    pub(super) fn marker(&self, class: &Class) -> Vec<(String, Term)> {
        class
            .marker
            .iter()
            .map(|m| (m.predicate.clone(), (self.marker_term)(&m.target)))
            .collect()
    }

    fn class_shape(&mut self, class: &Class) -> ShapeRef {
        let mut shape = Shape::new(Term::iri(&class.node_shape_uri), None);
        shape.label = Some(class.name.clone());
        shape.targets.push(Target::Marker(self.marker(class)));
        for p in class.visible_properties().filter(|p| p.getter.is_none()) {
            let ps = self.property_shape(class, p);
            shape.constraints.push(Constraint::Property(ps));
        }
        self.shapes.add(shape)
    }

    fn property_shape(&mut self, class: &Class, p: &Property) -> ShapeRef {
        let uri = &class.node_shape_uri;
        let id = if uri.contains('#') {
            format!("{uri}-{}", p.name)
        } else {
            format!("{uri}#{}", p.name)
        };
        let mut shape = Shape::new(Term::iri(&id), Some(Path::predicate(&p.path)));
        shape.label = Some(p.name.clone());
        let c = &mut shape.constraints;
        if let Some(datatype) = &p.datatype {
            c.push(Constraint::Datatype(datatype.clone()));
        }
        let kind = match (p.value_type, p.node_kind) {
            (_, Some(kind)) => Some(node_kind(kind)),
            (ValueType::Reference, None) => Some(NodeKind::Iri),
            _ => None,
        };
        c.extend(kind.map(Constraint::NodeKind));
        if p.min_count > 0 {
            c.push(Constraint::MinCount(p.min_count));
        }
        match (p.max_count, p.collection) {
            (Some(max), _) => c.push(Constraint::MaxCount(max)),
            (None, false) => c.push(Constraint::MaxCount(1)),
            (None, true) => {}
        }
        let k = &p.constraints;
        for (bound, make) in [
            (&k.min_exclusive, Constraint::MinExclusive as fn(Term) -> Constraint),
            (&k.min_inclusive, Constraint::MinInclusive),
            (&k.max_exclusive, Constraint::MaxExclusive),
            (&k.max_inclusive, Constraint::MaxInclusive),
        ] {
            c.extend(bound.as_ref().and_then(number_term).map(make));
        }
        c.extend(k.min_length.map(Constraint::MinLength));
        c.extend(k.max_length.map(Constraint::MaxLength));
        if let Some(pat) = &k.pattern
            && let Ok(compiled) = pattern(&pat.source, pat.flags.as_deref())
        {
            c.push(compiled);
        }
        if !k.in_values.is_empty() {
            let allowed = k.in_values.iter().filter_map(|v| term_for(p, &v.value)).collect();
            c.push(Constraint::In(allowed));
        }
        if let Some(value) = &p.has_value
            && let Some(term) = term_for(p, value)
        {
            c.push(Constraint::HasValue(term));
        }
        let target = p
            .target_class
            .as_deref()
            .and_then(|name| self.classes.iter().find(|c| c.name == name).copied());
        if let Some(target) = target {
            let marker = self.marker_shape(target);
            shape.constraints.push(Constraint::Node(marker));
        } else if let Some(class) = &p.class {
            // A class of another vocabulary: its instances are what rdf:type says.
            shape.constraints.push(Constraint::Class(Term::iri(class)));
        }
        self.shapes.add(shape)
    }

    /// A shape that a node conforms to iff it carries `class`'s whole marker.
    pub(super) fn marker_shape(&mut self, class: &Class) -> ShapeRef {
        let node = Term::blank(&format!("marker-{}", class.name));
        if let Some(found) = self.shapes.get(&node) {
            return found;
        }
        let mut shape = Shape::new(node, None);
        shape.label = Some(class.name.clone());
        for (i, (predicate, target)) in self.marker(class).into_iter().enumerate() {
            let mut link = Shape::new(
                Term::blank(&format!("marker-{}-{i}", class.name)),
                Some(Path::predicate(&predicate)),
            );
            link.constraints.push(Constraint::HasValue(target));
            let r = self.shapes.add(link);
            shape.constraints.push(Constraint::Property(r));
        }
        self.shapes.add(shape)
    }
}

fn node_kind(kind: model::NodeKind) -> NodeKind {
    match kind {
        model::NodeKind::Iri => NodeKind::Iri,
        model::NodeKind::Literal => NodeKind::Literal,
        model::NodeKind::BlankNode => NodeKind::BlankNode,
        model::NodeKind::BlankNodeOrIri => NodeKind::BlankNodeOrIri,
        model::NodeKind::BlankNodeOrLiteral => NodeKind::BlankNodeOrLiteral,
        model::NodeKind::IriOrLiteral => NodeKind::IriOrLiteral,
    }
}

/// A range bound: `xsd:integer` when whole, else `xsd:decimal`.
fn number_term(n: &serde_json::Number) -> Option<Term> {
    if let Some(i) = n.as_i64() {
        return Some(Term::typed(i.to_string(), XSD_INTEGER));
    }
    let f = n.as_f64()?;
    Some(Term::typed(decimal_text(f), XSD_DECIMAL))
}

/// An f64 in decimal notation (Rust never writes an exponent for `{}`): valid for
/// `xsd:decimal`, `xsd:float` and `xsd:double` alike, and one text per value.
fn decimal_text(f: f64) -> String {
    format!("{f}")
}

/// The RDF term a property's value is: a reference is its IRI; a scalar is a literal of the
/// property's datatype (`xsd:string`, `xsd:integer`, `xsd:decimal` or `xsd:boolean` when it
/// declares none), its lexical form canonical so that equal values are equal terms. `None`
/// when the value is not of the property's type. The graph of a perspective types the values
/// it reads with this same function.
pub fn term_for(p: &Property, value: &Value) -> Option<Term> {
    term_as(p.value_type, p.datatype.as_deref(), value)
}

/// The RDF term a value of `value_type` is, with `datatype` (the type's default when `None`):
/// [`term_for`] of one property, or of one datatype of a [`ValueType::AnyOf`] property (which
/// of them a value has is the runtime's choice; this answers `None` for `AnyOf` itself).
pub fn term_as(value_type: ValueType, datatype: Option<&str>, value: &Value) -> Option<Term> {
    let datatype = |default: &str| datatype.unwrap_or(default).to_string();
    match (value_type, value) {
        (ValueType::Reference, Value::String(s)) if crate::literal::is_node(s) => Some(Term::node(s)),
        (ValueType::Reference, Value::String(s)) => Some(Term::string(s.as_str())),
        (ValueType::String | ValueType::DateTime(_), Value::String(s)) => {
            Some(Term::typed(s.as_str(), &datatype(XSD_STRING)))
        }
        (ValueType::LangString, v) => {
            let (text, language) = crate::literal::lang_value(v)?;
            Some(Term::lang_string(text, language))
        }
        (ValueType::Boolean, Value::Bool(b)) => Some(Term::typed(b.to_string(), &datatype(XSD_BOOLEAN))),
        (ValueType::Integer(_), Value::Number(n)) => {
            let i = n.as_i64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18)
                    .map(|f| f as i64)
            })?;
            Some(Term::typed(i.to_string(), &datatype(XSD_INTEGER)))
        }
        (ValueType::Number, Value::Number(n)) => Some(Term::typed(decimal_text(n.as_f64()?), &datatype(XSD_DECIMAL))),
        _ => None,
    }
}
