//! The shapes as written: the common syntax tree both front ends (SHACL JSON and Turtle)
//! produce. Nothing here is resolved or checked beyond "this key had this JSON type";
//! [`crate::check`] turns a [`ShapeDocument`] into the [`crate::model::Dna`] and reports
//! every problem at once.

mod flows;

pub use flows::{FlowShape, QueryShape, RoleShape, RuleShape, StateShape, TransitionShape};
use serde_json::{Map, Number, Value};

/// Which front end read the document. Turtle cannot say some things (writability,
/// constructor actions), and `check` fills in the defaults that `docs/dna-format.md` (Standard
/// SHACL in Turtle) gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceFormat {
    Json,
    Turtle,
}

/// Where something was written, as precisely as the front end can say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// JSON pointer into the source document (JSON front end).
    pub pointer: Option<String>,
    /// IRI of the node shape (Turtle front end).
    pub shape: Option<String>,
    /// The property's path IRI (Turtle front end, on property shapes).
    pub path: Option<String>,
    /// 1-based line and column, where known.
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl Origin {
    pub fn pointer(pointer: impl Into<String>) -> Self {
        Origin {
            pointer: Some(pointer.into()),
            ..Origin::default()
        }
    }

    /// The origin of a key or element below this one (JSON pointer escaping per RFC 6901).
    pub fn child(&self, segment: impl std::fmt::Display) -> Self {
        let segment = segment.to_string().replace('~', "~0").replace('/', "~1");
        Origin {
            pointer: self.pointer.as_ref().map(|p| format!("{p}/{segment}")),
            ..self.clone()
        }
    }
}

/// A whole input file: one shape, an array of shapes, a DNA document, or a Turtle graph.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeDocument {
    pub format: SourceFormat,
    /// The DNA's name (DNA documents); otherwise `check` derives it from the file name.
    pub name: Option<String>,
    pub description: Option<String>,
    pub classes: Vec<ClassShape>,
    /// The flows (state machines over instances) beside the classes.
    pub flows: Vec<FlowShape>,
    /// What the shapes graph says beyond its classes (node shapes with `sh:targetNode`,
    /// `sh:targetSubjectsOf`, `sh:targetObjectsOf`, property shapes with a target of their
    /// own): enforced by the SHACL Core engine, never typed (Turtle only).
    pub enforced: Vec<crate::model::Enforced>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassShape {
    pub origin: Origin,
    pub target_class: Option<String>,
    /// A `class_name` given beside the shape (add_model); must equal the local name.
    pub class_name: Option<String>,
    /// The class name the front end chose when the local name would collide (Turtle: two
    /// class IRIs with one local name, `dcat:Resource` and `rdfs:Resource`; the later is told
    /// apart by its prefix, `RdfsResource`). `None`: the local name of `target_class`.
    pub name: Option<String>,
    pub node_shape_uri: Option<String>,
    pub interpretation_hint: Option<String>,
    pub properties: Vec<PropertyShape>,
    /// `constructor` or `constructor_actions`; `None` when absent.
    pub constructor: Option<Vec<ActionShape>>,
    pub destructor: Option<Vec<ActionShape>>,
    /// Node shape IRIs (`parent_shapes`, or `sh:node` in Turtle).
    pub parent_shapes: Vec<Spanned<String>>,
    /// The shape's constraints that are not typed: enforced by the SHACL Core engine at write
    /// ([`crate::model::Class::enforced`]).
    pub enforced: Vec<crate::model::Enforced>,
    /// What the shape says that no SHACL Core processor checks (SHACL-SPARQL, SHACL-AF).
    pub unenforced: Vec<crate::model::Enforced>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PropertyShape {
    pub origin: Origin,
    pub path: Option<String>,
    pub name: Option<String>,
    pub datatype: Option<Spanned<String>>,
    /// Several datatypes said through shared shapes (Turtle: `sh:or`/`sh:xone` of `sh:datatype`
    /// shapes, maybe behind `sh:node`/`sh:and`), when `datatype` is absent.
    pub any_of: Option<AnyOfShape>,
    pub min_count: Option<u64>,
    pub max_count: Option<u64>,
    pub collection: Option<bool>,
    pub writable: Option<bool>,
    pub setter: Option<Vec<ActionShape>>,
    pub adder: Option<Vec<ActionShape>>,
    pub remover: Option<Vec<ActionShape>>,
    pub node_kind: Option<Spanned<String>>,
    /// `sh:class`: a class IRI or a node shape IRI.
    pub class: Option<Spanned<String>>,
    pub relation_kind: Option<Spanned<String>>,
    pub target_class_name: Option<Spanned<String>>,
    pub in_values: Option<Vec<InValue>>,
    pub pattern: Option<Spanned<String>>,
    pub flags: Option<String>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub min_inclusive: Option<Number>,
    pub max_inclusive: Option<Number>,
    pub min_exclusive: Option<Number>,
    pub max_exclusive: Option<Number>,
    /// An IRI, or a literal value (string, number, boolean).
    pub has_value: Option<Value>,
    pub getter: Option<String>,
    pub identity: Option<bool>,
    pub local: Option<bool>,
    /// `interpretation_hint` (JSON) or `sh:description` / `rdfs:comment` (Turtle).
    pub interpretation_hint: Option<String>,
    /// Keys carried through to the model and describe_perspective but not interpreted
    /// (`resolve_language`, `ordering`, `monotonic`, `transform`, ...), in source order.
    pub extras: Map<String, Value>,
}

/// The datatypes of [`PropertyShape::any_of`] as written, and the component that says them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnyOfShape {
    /// Datatype IRIs, or `sh:IRI` ([`crate::model::IRI_ALTERNATIVE`]) for an IRI.
    pub datatypes: Vec<Spanned<String>>,
    /// `sh:OrConstraintComponent`, `sh:XoneConstraintComponent`, `sh:NodeConstraintComponent`
    /// `sh:AndConstraintComponent`, `sh:NodeKindConstraintComponent`, or empty
    /// ([`crate::model::AnyOf::component`]).
    pub component: &'static str,
}

/// `{ "value", "label"? }`: one allowed value of `in`. The value is a string, number or boolean.
#[derive(Clone, Debug, PartialEq)]
pub struct InValue {
    pub value: Value,
    pub label: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionShape {
    pub origin: Origin,
    /// `addLink`, `removeLink` or `setSingleTarget`; anything else is a diagnostic in `check`.
    pub action: String,
    pub source: String,
    pub predicate: String,
    pub target: String,
    pub local: Option<bool>,
}

/// A value with the place it was written, for values whose diagnostics need their own location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub origin: Origin,
}

impl<T> Spanned<T> {
    pub fn new(value: T, origin: Origin) -> Self {
        Spanned { value, origin }
    }
}
