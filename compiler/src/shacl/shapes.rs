//! The shapes the validator runs: node and property shapes with their targets and their
//! constraints, one [`Constraint`] per value of a parameter. Read from a shapes graph by
//! [`Shapes::from_graph`], or built directly (as `validate_perspective` does from a DNA).

use std::collections::HashMap;
use std::sync::Arc;

use regex::Regex;

use super::path::Path;
use super::term::Term;
use super::vocab::sh;

/// An index into [`Shapes::shapes`].
pub type ShapeRef = usize;

#[derive(Clone, Debug, Default)]
pub struct Shapes {
    pub shapes: Vec<Shape>,
    /// The shapes whose targets start validation, in order.
    pub roots: Vec<ShapeRef>,
    by_node: HashMap<Term, ShapeRef>,
}

#[derive(Clone, Debug)]
pub struct Shape {
    /// The shape's IRI or blank node: `sh:sourceShape` of its results.
    pub node: Term,
    /// `Some` for a property shape.
    pub path: Option<Path>,
    pub targets: Vec<Target>,
    /// `sh:severity`, `sh:Violation` by default.
    pub severity: Term,
    /// `sh:message` values, copied into every result of the shape.
    pub messages: Vec<Term>,
    pub deactivated: bool,
    pub constraints: Vec<Constraint>,
    /// What the shape stands for in messages (`Task` for a class's shape), when known.
    pub label: Option<String>,
}

impl Shape {
    pub fn new(node: Term, path: Option<Path>) -> Shape {
        Shape {
            node,
            path,
            targets: Vec::new(),
            severity: Term::iri(&sh("Violation")),
            messages: Vec::new(),
            deactivated: false,
            constraints: Vec::new(),
            label: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Node(Term),
    /// Every SHACL instance of the class (`rdf:type/rdfs:subClassOf*`).
    Class(Term),
    SubjectsOf(String),
    ObjectsOf(String),
    /// Every node with all these `(predicate, object)` triples: a DNA class's marker.
    Marker(Vec<(String, Term)>),
}

#[derive(Clone, Debug)]
pub enum Constraint {
    Class(Term),
    Datatype(String),
    NodeKind(NodeKind),
    MinCount(u64),
    MaxCount(u64),
    MinExclusive(Term),
    MinInclusive(Term),
    MaxExclusive(Term),
    MaxInclusive(Term),
    MinLength(u64),
    MaxLength(u64),
    Pattern {
        regex: Arc<Regex>,
        source: String,
        flags: Option<String>,
    },
    LanguageIn(Vec<String>),
    UniqueLang,
    Equals(String),
    Disjoint(String),
    LessThan(String),
    LessThanOrEquals(String),
    Not(ShapeRef),
    And(Vec<ShapeRef>),
    Or(Vec<ShapeRef>),
    Xone(Vec<ShapeRef>),
    Node(ShapeRef),
    Property(ShapeRef),
    QualifiedValueShape {
        shape: ShapeRef,
        min: Option<u64>,
        max: Option<u64>,
        /// The sibling shapes a conforming value must not conform to
        /// (`sh:qualifiedValueShapesDisjoint true`), else empty.
        siblings: Vec<ShapeRef>,
    },
    Closed {
        /// Predicates allowed: the predicate paths of the shape's property shapes and
        /// `sh:ignoredProperties`.
        allowed: Vec<String>,
    },
    HasValue(Term),
    In(Vec<Term>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    BlankNode,
    Iri,
    Literal,
    BlankNodeOrIri,
    BlankNodeOrLiteral,
    IriOrLiteral,
}

impl NodeKind {
    pub fn from_iri(iri: &str) -> Option<NodeKind> {
        Some(match iri.strip_prefix(super::vocab::SH)? {
            "BlankNode" => NodeKind::BlankNode,
            "IRI" => NodeKind::Iri,
            "Literal" => NodeKind::Literal,
            "BlankNodeOrIRI" => NodeKind::BlankNodeOrIri,
            "BlankNodeOrLiteral" => NodeKind::BlankNodeOrLiteral,
            "IRIOrLiteral" => NodeKind::IriOrLiteral,
            _ => return None,
        })
    }

    pub fn local_name(self) -> &'static str {
        match self {
            NodeKind::BlankNode => "BlankNode",
            NodeKind::Iri => "IRI",
            NodeKind::Literal => "Literal",
            NodeKind::BlankNodeOrIri => "BlankNodeOrIRI",
            NodeKind::BlankNodeOrLiteral => "BlankNodeOrLiteral",
            NodeKind::IriOrLiteral => "IRIOrLiteral",
        }
    }

    pub fn matches(self, term: &Term) -> bool {
        match term {
            Term::Blank(_) => matches!(
                self,
                NodeKind::BlankNode | NodeKind::BlankNodeOrIri | NodeKind::BlankNodeOrLiteral
            ),
            Term::Iri(_) => matches!(self, NodeKind::Iri | NodeKind::BlankNodeOrIri | NodeKind::IriOrLiteral),
            Term::Literal(_) => matches!(
                self,
                NodeKind::Literal | NodeKind::BlankNodeOrLiteral | NodeKind::IriOrLiteral
            ),
        }
    }
}

/// The constraint components, by the local name of their IRI (`sh:…ConstraintComponent`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    Class,
    Datatype,
    NodeKind,
    MinCount,
    MaxCount,
    MinExclusive,
    MinInclusive,
    MaxExclusive,
    MaxInclusive,
    MinLength,
    MaxLength,
    Pattern,
    LanguageIn,
    UniqueLang,
    Equals,
    Disjoint,
    LessThan,
    LessThanOrEquals,
    Not,
    And,
    Or,
    Xone,
    Node,
    Property,
    QualifiedMinCount,
    QualifiedMaxCount,
    Closed,
    HasValue,
    In,
}

impl Component {
    pub fn name(self) -> &'static str {
        match self {
            Component::Class => "Class",
            Component::Datatype => "Datatype",
            Component::NodeKind => "NodeKind",
            Component::MinCount => "MinCount",
            Component::MaxCount => "MaxCount",
            Component::MinExclusive => "MinExclusive",
            Component::MinInclusive => "MinInclusive",
            Component::MaxExclusive => "MaxExclusive",
            Component::MaxInclusive => "MaxInclusive",
            Component::MinLength => "MinLength",
            Component::MaxLength => "MaxLength",
            Component::Pattern => "Pattern",
            Component::LanguageIn => "LanguageIn",
            Component::UniqueLang => "UniqueLang",
            Component::Equals => "Equals",
            Component::Disjoint => "Disjoint",
            Component::LessThan => "LessThan",
            Component::LessThanOrEquals => "LessThanOrEquals",
            Component::Not => "Not",
            Component::And => "And",
            Component::Or => "Or",
            Component::Xone => "Xone",
            Component::Node => "Node",
            Component::Property => "Property",
            Component::QualifiedMinCount => "QualifiedMinCount",
            Component::QualifiedMaxCount => "QualifiedMaxCount",
            Component::Closed => "Closed",
            Component::HasValue => "HasValue",
            Component::In => "In",
        }
    }

    /// `http://www.w3.org/ns/shacl#MinCountConstraintComponent`.
    pub fn iri(self) -> String {
        sh(&format!("{}ConstraintComponent", self.name()))
    }

    /// `sh:MinCountConstraintComponent`.
    pub fn short(self) -> String {
        format!("sh:{}ConstraintComponent", self.name())
    }
}

impl Shapes {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a shape (or returns the one already added for that node).
    pub fn add(&mut self, shape: Shape) -> ShapeRef {
        if let Some(&r) = self.by_node.get(&shape.node) {
            return r;
        }
        let r = self.shapes.len();
        self.by_node.insert(shape.node.clone(), r);
        self.shapes.push(shape);
        r
    }

    /// Reserves a slot for the shape at `node` before it is read (so that shapes may refer to
    /// each other, and to themselves); [`Shapes::set`] fills it.
    pub fn reserve(&mut self, node: &Term) -> (ShapeRef, bool) {
        if let Some(&r) = self.by_node.get(node) {
            return (r, false);
        }
        (self.add(Shape::new(node.clone(), None)), true)
    }

    pub fn set(&mut self, r: ShapeRef, shape: Shape) {
        self.shapes[r] = shape;
    }

    pub fn get(&self, node: &Term) -> Option<ShapeRef> {
        self.by_node.get(node).copied()
    }

    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }
}

/// The constraint of `pattern` with `flags` (SPARQL `REGEX` flags `s`, `m`, `i`, `x`, `q`),
/// compiled with the `regex` crate as the per-write checks compile it
/// ([`crate::model::Pattern::regex_source`]).
pub fn pattern(source: &str, flags: Option<&str>) -> Result<Constraint, String> {
    let flags = flags.filter(|f| !f.is_empty());
    if let Some(bad) = flags.and_then(|f| f.chars().find(|c| !matches!(c, 's' | 'm' | 'i' | 'x' | 'q'))) {
        return Err(format!("unsupported regex flag `{bad}` in sh:flags"));
    }
    // `q`: the pattern is a plain string.
    let quoted = flags.is_some_and(|f| f.contains('q'));
    let rest: Option<String> = flags.map(|f| f.chars().filter(|c| *c != 'q').collect());
    let written = crate::model::Pattern {
        source: if quoted {
            regex::escape(source)
        } else {
            source.to_string()
        },
        flags: rest,
    };
    let regex =
        Regex::new(&written.regex_source()).map_err(|e| format!("sh:pattern {source:?} does not compile: {e}"))?;
    Ok(Constraint::Pattern {
        regex: Arc::new(regex),
        source: source.to_string(),
        flags: flags.map(str::to_string),
    })
}
