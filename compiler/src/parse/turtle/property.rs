//! Property shapes: `sh:property` nodes to [`PropertyShape`]s, and the typed readers of
//! single values (`sh:minCount`, `sh:in`, ...) with their diagnostics.

use serde_json::{Number, Value};

use super::graph::{self, Node, Obj};
use super::values::{self, show};
use super::{At, DASH_READ_ONLY, PROPERTY_TYPED, RDFS_COMMENT, Reader, sh, short};
use crate::diagnostic::Severity;
use crate::model::{IRI_ALTERNATIVE, NODE_ALTERNATIVE, NodeKind, ValueType, local_name};
use crate::shape::{AnyOfShape, InValue, Origin, PropertyShape, Spanned};

impl<'g> Reader<'g, '_> {
    /// One property shape with its `sh:order`; `None` when it cannot be served.
    pub(super) fn property_shape(
        &mut self,
        node: &Node,
        shape: &str,
        class: &str,
        fallback_line: Option<u32>,
    ) -> Option<(Option<f64>, PropertyShape)> {
        let graph = self.graph;
        let mut origin = Origin {
            shape: Some(shape.to_string()),
            line: graph.line_of(node).or(fallback_line),
            ..Origin::default()
        };
        let paths = graph.objects(node, &sh("path"));
        let given_name = {
            let at = At {
                origin: &origin,
                class: Some(class),
                property: None,
            };
            self.text(node, &sh("name"), &at)
        };
        let at = At {
            origin: &origin,
            class: Some(class),
            property: given_name.as_deref(),
        };
        let path = match paths.first() {
            Some(Obj::Node(Node::Iri(iri))) => iri.clone(),
            Some(path @ Obj::Node(Node::Blank(_))) => {
                // A path beyond one predicate: no tool parameter can write through it, so each
                // of its constraints is the engine's (SHACL §2.3.1).
                let shown = self.turtle(path, 3);
                let about = given_name.clone().unwrap_or_else(|| shown.clone());
                origin.path = Some(shown);
                let at = At {
                    origin: &origin,
                    class: Some(class),
                    property: Some(&about),
                };
                if !self.deactivated(node) {
                    self.classify(node, &[], &at, Some(&about));
                }
                return None;
            }
            Some(other) => {
                self.diagnostics.push(at.diag(
                    Severity::Error,
                    "invalid-value",
                    format!("shape <{shape}>: sh:path is {}, not a predicate IRI", show(other)),
                    "use one predicate IRI as the path, e.g. `sh:path app:has_member`",
                ));
                return None;
            }
            None => {
                self.diagnostics.push(at.diag(
                    Severity::Error,
                    "missing-path",
                    format!("shape <{shape}>: property shape {} has no sh:path", node.label()),
                    "give the property shape its predicate, e.g. `sh:path app:has_name`",
                ));
                return None;
            }
        };
        origin.path = Some(path.clone());
        let property = given_name.clone().unwrap_or_else(|| local_name(&path).to_string());
        let at = At {
            origin: &origin,
            class: Some(class),
            property: Some(&property),
        };
        if paths.len() > 1 {
            self.duplicate(&at, shape, &sh("path"), paths.len());
        }
        if self.deactivated(node) {
            self.diagnostics.push(at.diag(
                Severity::Note,
                "deactivated",
                format!("shape <{shape}>: property `{property}` is sh:deactivated and is skipped"),
                "remove `sh:deactivated true` to serve the property",
            ));
            return None;
        }

        let spanned = |v: String| Spanned::new(v, origin.clone());
        let mut p = PropertyShape {
            path: Some(path.clone()),
            name: given_name.clone(),
            writable: Some(true),
            ..PropertyShape::default()
        };
        p.interpretation_hint = self
            .text(node, &sh("description"), &at)
            .or_else(|| self.text(node, RDFS_COMMENT, &at));
        let order = self.number(node, "order", &at, shape).and_then(|n| n.as_f64());
        if let Some(read_only) = self.read_only(node, &at, shape) {
            p.writable = Some(!read_only);
        }
        p.origin = origin.clone();
        if !self.violation_severity(node) {
            // A warning or an info is reported, never refused: no typed check may refuse a
            // write for it, so every constraint of the shape is the engine's, and the tools
            // take any term.
            self.classify(node, &[], &at, Some(&property));
            p.any_of = Some(any_term_shape(&p.origin));
            return Some((order, p));
        }
        p.datatype = self.iri(node, "datatype", &at, shape).map(spanned);
        p.min_count = self.count(node, "minCount", &at, shape);
        p.max_count = self.count(node, "maxCount", &at, shape);
        p.node_kind = self.iri(node, "nodeKind", &at, shape).map(spanned);
        p.class = self.iri(node, "class", &at, shape).map(spanned);
        p.in_values = self.in_values(node, &at, shape);
        p.pattern = self.string(node, "pattern", &at, shape).map(spanned);
        p.flags = self.string(node, "flags", &at, shape);
        p.min_length = self.count(node, "minLength", &at, shape);
        p.max_length = self.count(node, "maxLength", &at, shape);
        p.min_inclusive = self.number(node, "minInclusive", &at, shape);
        p.max_inclusive = self.number(node, "maxInclusive", &at, shape);
        p.min_exclusive = self.number(node, "minExclusive", &at, shape);
        p.max_exclusive = self.number(node, "maxExclusive", &at, shape);
        p.has_value = self.has_value(node, &at, shape);
        self.datatypes_through_shapes(node, &mut p);
        self.classify(node, PROPERTY_TYPED, &at, Some(&property));
        self.untype_misfits(node, &mut p, &property);
        Some((order, p))
    }

    /// With no `sh:datatype` of its own, a literal property takes the datatypes other shapes
    /// say for it (`datatypes.rs`): one is its datatype, several its [`AnyOfShape`]. A property
    /// saying nothing of its values' kind whose `sh:in` or `sh:hasValue` are IRIs is an IRI one.
    fn datatypes_through_shapes(&self, node: &Node, p: &mut PropertyShape) {
        let kind = p.node_kind.as_ref().and_then(|k| crate::check::node_kind(&k.value));
        let literal = kind.is_none_or(|k| {
            matches!(
                k,
                NodeKind::Literal | NodeKind::IriOrLiteral | NodeKind::BlankNodeOrLiteral
            )
        });
        if p.class.is_some() && p.node_kind.is_none() {
            // An instance of a class is a node, named or blank.
            p.node_kind = Some(Spanned::new(sh("BlankNodeOrIRI"), p.origin.clone()));
        }
        if p.datatype.is_some() || p.class.is_some() || !literal {
            return;
        }
        if p.node_kind.is_none() && self.says_iri_values(node) {
            // `sh:in` or `sh:hasValue` of IRIs only: every conforming value is an IRI.
            p.node_kind = Some(Spanned::new(sh("IRI"), p.origin.clone()));
            return;
        }
        let said = self.datatypes_said(node).or_else(|| {
            // No datatype said: any literal the node kind allows, or any term at all.
            let values_said = p.in_values.is_some() || p.has_value.is_some();
            let (node, component) = match kind {
                Some(NodeKind::IriOrLiteral) => (Some(IRI_ALTERNATIVE), crate::problems::component::NODE_KIND),
                Some(_) => (None, crate::problems::component::NODE_KIND),
                // `sh:in` or `sh:hasValue` of literals: their datatypes.
                None if values_said => {
                    return self.values_datatypes(node).map(|d| (d, crate::problems::component::IN));
                }
                None => (Some(NODE_ALTERNATIVE), ""),
            };
            let each = crate::model::any_term(node).into_iter().map(|a| a.datatype);
            Some((each.collect(), component))
        });
        let Some((mut datatypes, component)) = said else {
            return;
        };
        let spanned = |v: String| Spanned::new(v, p.origin.clone());
        if datatypes.len() == 1 {
            p.datatype = Some(spanned(datatypes.remove(0)));
        } else {
            p.any_of = Some(AnyOfShape {
                datatypes: datatypes.into_iter().map(spanned).collect(),
                component,
            });
        }
    }

    /// `sh:severity` absent or `sh:Violation`.
    fn violation_severity(&self, node: &Node) -> bool {
        self.graph
            .objects(node, &sh("severity"))
            .iter()
            .all(|o| matches!(o, Obj::Node(Node::Iri(iri)) if *iri == sh("Violation")))
    }

    /// Constraints SHACL allows that the property's type cannot carry (a datatype beside an
    /// IRI node kind or a class, a pattern or a length on a number, a range on text, a
    /// `sh:flags` the `regex` crate has no equivalent for): the engine's instead.
    fn untype_misfits(&mut self, node: &Node, p: &mut PropertyShape, property: &str) {
        let untype = |this: &mut Self, local: &str| {
            for o in this.graph.objects(node, &sh(local)) {
                let text = this.words(node, local, o);
                this.note(local, Some(property), text, true);
            }
        };
        if p.any_of.is_some() {
            // A value of one of several datatypes: its other facets are judged on the RDF
            // term, by the engine.
            let facets = [
                ("in", p.in_values.take().is_some()),
                ("hasValue", p.has_value.take().is_some()),
                ("pattern", p.pattern.take().is_some()),
                ("minLength", p.min_length.take().is_some()),
                ("maxLength", p.max_length.take().is_some()),
                ("minInclusive", p.min_inclusive.take().is_some()),
                ("maxInclusive", p.max_inclusive.take().is_some()),
                ("minExclusive", p.min_exclusive.take().is_some()),
                ("maxExclusive", p.max_exclusive.take().is_some()),
            ];
            p.flags = None;
            for (local, _) in facets.into_iter().filter(|(_, taken)| *taken) {
                untype(self, local);
            }
        }
        let reference = p.class.is_some()
            || p.node_kind
                .as_ref()
                .and_then(|k| crate::check::node_kind(&k.value))
                .is_some_and(|k| matches!(k, NodeKind::Iri | NodeKind::BlankNodeOrIri | NodeKind::BlankNode));
        let value_type = if reference {
            Some(ValueType::Reference)
        } else {
            match &p.datatype {
                Some(d) => crate::check::datatype(&d.value).map(|(_, t)| t),
                None => Some(ValueType::String),
            }
        };
        let numeric = matches!(value_type, Some(ValueType::Integer(_) | ValueType::Number));
        let textual = matches!(
            value_type,
            None | Some(ValueType::String | ValueType::DateTime(_) | ValueType::LangString | ValueType::Reference)
        );
        if reference && p.datatype.take().is_some() {
            untype(self, "datatype");
        }
        // A language-tagged value is not a JSON scalar: `sh:in` and `sh:hasValue` of one are
        // judged on the RDF terms, by the engine.
        if value_type == Some(ValueType::LangString) {
            if p.in_values.take().is_some() {
                untype(self, "in");
            }
            if p.has_value.take().is_some() {
                untype(self, "hasValue");
            }
        }
        let bad_flags = p
            .flags
            .as_ref()
            .is_some_and(|f| f.chars().any(|c| !matches!(c, 'i' | 'm' | 's' | 'x')));
        if !textual || bad_flags {
            if p.pattern.take().is_some() {
                p.flags = None;
                untype(self, "pattern");
            }
            for (local, field) in [("minLength", &mut p.min_length), ("maxLength", &mut p.max_length)] {
                if !textual && field.take().is_some() {
                    untype(self, local);
                }
            }
        }
        if !numeric {
            for (local, field) in [
                ("minInclusive", &mut p.min_inclusive),
                ("maxInclusive", &mut p.max_inclusive),
                ("minExclusive", &mut p.min_exclusive),
                ("maxExclusive", &mut p.max_exclusive),
            ] {
                if field.take().is_some() {
                    untype(self, local);
                }
            }
        }
        if let (Some(min), Some(max)) = (p.min_count, p.max_count)
            && min > max
        {
            p.min_count = None;
            untype(self, "minCount");
        }
    }

    fn duplicate(&mut self, at: &At<'_>, shape: &str, predicate: &str, times: usize) {
        let name = short(predicate);
        self.diagnostics.push(at.diag(
            Severity::Error,
            "duplicate-value",
            format!("shape <{shape}>: {name} is given {times} times; this release reads one value"),
            format!("keep a single {name}"),
        ));
    }

    /// The one object of `sh:<local>` (a diagnostic when there are several; the first is used).
    fn single(&mut self, node: &Node, predicate: &str, at: &At<'_>, shape: &str) -> Option<&'g Obj> {
        let graph = self.graph;
        let objects = graph.objects(node, predicate);
        match predicate.strip_prefix(super::SH) {
            // A constraint parameter given twice is the conjunction of both (SHACL §2.1): the
            // first is typed, the others the engine's.
            Some(local) if PROPERTY_TYPED.contains(&local) => {
                for extra in objects.iter().skip(1) {
                    let text = self.words(node, local, extra);
                    self.note(local, at.property, text, true);
                }
            }
            _ if objects.len() > 1 => self.duplicate(at, shape, predicate, objects.len()),
            _ => {}
        }
        objects.first().copied()
    }

    fn invalid(&mut self, at: &At<'_>, shape: &str, predicate: &str, obj: &Obj, wanted: &str, example: &str) {
        let name = short(predicate);
        self.diagnostics.push(at.diag(
            Severity::Error,
            "invalid-value",
            format!("shape <{shape}>: {name} is {}, not {wanted}", show(obj)),
            format!("write {wanted}, e.g. `{name} {example}`"),
        ));
    }

    fn iri(&mut self, node: &Node, local: &str, at: &At<'_>, shape: &str) -> Option<String> {
        let predicate = sh(local);
        match self.single(node, &predicate, at, shape)? {
            Obj::Node(Node::Iri(iri)) => Some(iri.clone()),
            other => {
                let example = match local {
                    "datatype" => "xsd:string",
                    "nodeKind" => "sh:IRI",
                    _ => "app:Message",
                };
                self.invalid(at, shape, &predicate, other, "an IRI", example);
                None
            }
        }
    }

    fn count(&mut self, node: &Node, local: &str, at: &At<'_>, shape: &str) -> Option<u64> {
        let predicate = sh(local);
        let obj = self.single(node, &predicate, at, shape)?;
        let value = match obj {
            Obj::Literal(lit) => values::count(lit),
            _ => None,
        };
        if value.is_none() {
            self.invalid(at, shape, &predicate, obj, "a non-negative integer", "1");
        }
        value
    }

    fn number(&mut self, node: &Node, local: &str, at: &At<'_>, shape: &str) -> Option<Number> {
        let predicate = sh(local);
        let obj = self.single(node, &predicate, at, shape)?;
        let value = match obj {
            Obj::Literal(lit) => values::number(lit),
            _ => None,
        };
        if value.is_none() {
            self.invalid(at, shape, &predicate, obj, "a number", "0");
        }
        value
    }

    fn string(&mut self, node: &Node, local: &str, at: &At<'_>, shape: &str) -> Option<String> {
        let predicate = sh(local);
        match self.single(node, &predicate, at, shape)? {
            Obj::Literal(lit) => Some(lit.value.clone()),
            other => {
                let example = if local == "flags" { "\"i\"" } else { "\"^[a-z]+$\"" };
                self.invalid(at, shape, &predicate, other, "a string", example);
                None
            }
        }
    }

    /// A text (`sh:name`, `sh:description`, `rdfs:comment`): the literal without a language
    /// tag, else an English one, else the first.
    pub(super) fn text(&mut self, node: &Node, predicate: &str, at: &At<'_>) -> Option<String> {
        let graph = self.graph;
        let objects = graph.objects(node, predicate);
        let mut literals = Vec::new();
        for o in &objects {
            match o {
                Obj::Literal(lit) => literals.push(lit),
                other => {
                    let shape = at.origin.shape.clone().unwrap_or_default();
                    self.invalid(at, &shape, predicate, other, "a string", "\"text\"");
                }
            }
        }
        let english = |l: &&&graph::Lit| {
            l.language
                .as_deref()
                .is_some_and(|t| t.eq_ignore_ascii_case("en") || t.to_ascii_lowercase().starts_with("en-"))
        };
        literals
            .iter()
            .find(|l| l.language.is_none())
            .or_else(|| literals.iter().find(english))
            .or_else(|| literals.first())
            .map(|l| l.value.clone())
    }

    fn in_values(&mut self, node: &Node, at: &At<'_>, shape: &str) -> Option<Vec<InValue>> {
        let predicate = sh("in");
        let head = self.single(node, &predicate, at, shape)?;
        let items = match self.graph.list(head) {
            Ok(items) => items,
            Err(problem) => {
                self.diagnostics.push(at.diag(
                    Severity::Error,
                    "invalid-list",
                    format!("shape <{shape}>: sh:in is not a well-formed RDF list: {problem}"),
                    "write the allowed values as a Turtle collection, e.g. `sh:in ( \"open\" \"closed\" )`",
                ));
                return None;
            }
        };
        let mut values = Vec::new();
        for item in items {
            match values::term_json(&item) {
                Ok(value) => values.push(InValue { value, label: None }),
                Err(problem) => self.diagnostics.push(at.diag(
                    Severity::Error,
                    "invalid-value",
                    format!("shape <{shape}>: a member of sh:in: {problem}"),
                    "list IRIs or literals, e.g. `sh:in ( \"open\" \"closed\" )`",
                )),
            }
        }
        Some(values)
    }

    fn has_value(&mut self, node: &Node, at: &At<'_>, shape: &str) -> Option<Value> {
        let predicate = sh("hasValue");
        let obj = self.single(node, &predicate, at, shape)?;
        match values::term_json(obj) {
            Ok(value) => Some(value),
            Err(problem) => {
                self.diagnostics.push(at.diag(
                    Severity::Error,
                    "invalid-value",
                    format!("shape <{shape}>: sh:hasValue: {problem}"),
                    "write an IRI or a literal, e.g. `sh:hasValue app:Task`",
                ));
                None
            }
        }
    }

    /// `dash:readOnly`: `Some(true)` when read-only.
    fn read_only(&mut self, node: &Node, at: &At<'_>, shape: &str) -> Option<bool> {
        let obj = self.single(node, DASH_READ_ONLY, at, shape)?;
        let value = match obj {
            Obj::Literal(lit) => values::boolean(lit),
            _ => None,
        };
        if value.is_none() {
            self.invalid(at, shape, DASH_READ_ONLY, obj, "a boolean", "true");
        }
        value
    }
}

/// The [`AnyOfShape`] of a property the shapes say nothing typed of: any literal or IRI.
fn any_term_shape(origin: &Origin) -> AnyOfShape {
    AnyOfShape {
        datatypes: crate::model::any_term(Some(NODE_ALTERNATIVE))
            .into_iter()
            .map(|a| Spanned::new(a.datatype, origin.clone()))
            .collect(),
        component: "",
    }
}
