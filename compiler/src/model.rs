//! The model (IR): a DNA with every rule of `docs/data-model.md` already applied. Codegen, the
//! surface and the runtime engine read only this; none of them re-derives a precedence rule.

mod flows;

pub use flows::{
    Anchor, Flow, FlowState, LinkedTo, Query, Role, Rule, Transition, actions_json as flow_actions_json,
    vocab as flow_vocab,
};
use serde_json::{Map, Number, Value};

/// The `rdf:type` predicate AD4M writes (`rdf://type`), used for the marker `check` adds.
pub const AD4M_RDF_TYPE: &str = "rdf://type";
/// The standard `rdf:type` IRI, used by the Turtle front end's default constructor.
pub const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
/// The predicate of the `parent` edge.
pub const HAS_CHILD: &str = "ad4m://has_child";

/// A checked DNA: its classes in declaration order.
#[derive(Clone, Debug, PartialEq)]
pub struct Dna {
    pub name: String,
    pub description: Option<String>,
    pub classes: Vec<Class>,
    /// The flows: state machines over instances, in declaration order.
    pub flows: Vec<Flow>,
    /// What the shapes graph says beyond its classes (shapes with node, subject or object
    /// targets): enforced by the SHACL Core engine only.
    pub enforced: Vec<Enforced>,
}

impl Dna {
    /// Class lookup as the tools do it: exact name, then case-insensitive.
    pub fn class(&self, name: &str) -> Option<&Class> {
        self.classes
            .iter()
            .find(|c| c.name == name)
            .or_else(|| self.classes.iter().find(|c| c.name.eq_ignore_ascii_case(name)))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Class {
    /// The local name of `target_class` (`app://Channel` is `Channel`).
    pub name: String,
    pub target_class: String,
    pub node_shape_uri: String,
    pub interpretation_hint: Option<String>,
    /// Names of the parent classes (`parent_shapes`), nearest first.
    pub parents: Vec<String>,
    /// Every property: the parents' first, then the class's own, in declaration order.
    /// Marker properties are included (with [`Access::ReadOnly`]`(`[`ReadOnlyReason::Marker`]`)`)
    /// so the engine can write them; every surface hides them.
    pub properties: Vec<Property>,
    /// The whole create sequence: the parents' constructors, then the class's own, with the
    /// marker links `check` added.
    pub constructor: Vec<Action>,
    /// The whole delete sequence: the class's destructor, then its parents'.
    pub destructor: Vec<Action>,
    /// The links whose presence makes a node an instance (the parents' included).
    pub marker: Vec<MarkerLink>,
    /// The property that names an instance (`identity: true`), if any.
    pub identity_property: Option<String>,
    /// What SHACL Core says about this class's instances beyond its typed properties: the
    /// constraints the engine enforces on every validated write (docs/validation.md), the
    /// parents' first. Empty for a typed-only class, which never pays for the engine.
    pub enforced: Vec<Enforced>,
    /// What the shapes say about the instances that no SHACL Core processor checks
    /// (SHACL-SPARQL, SHACL Advanced Features): listed by `check`, never enforced.
    pub unenforced: Vec<Enforced>,
}

impl Class {
    pub fn property(&self, name: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.name == name)
    }

    /// Whether the typed checks are the whole of this class's shape: no engine-enforced
    /// constraint, and no `has_value` that is not a marker (the per-value checks do not test
    /// it; the SHACL shape does). A create of such a class needs nothing more.
    pub fn is_typed_only(&self) -> bool {
        self.enforced.is_empty() && self.properties.iter().all(|p| p.has_value.is_none() || p.is_marker())
    }

    /// The properties a client sees (every one but the markers), in property order.
    pub fn visible_properties(&self) -> impl Iterator<Item = &Property> {
        self.properties.iter().filter(|p| !p.is_marker())
    }
}

/// One constraint of a class that its typed checks (JSON Schema, generated struct, per-value
/// checks) do not cover: the SHACL Core engine enforces it on every validated write, from the
/// DNA's shapes ([`crate::shacl::complete_shapes`]). The compiler says which constraints
/// are typed; this is the list of the others, for the write path (which classes need the
/// engine), `check`'s coverage and the descriptions an agent reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enforced {
    /// The constraint component's local name without `ConstraintComponent` (`Node`,
    /// `LessThan`, `Closed`, `QualifiedMinCount`), or `Property` for a property shape the
    /// typed surface does not carry as a whole (a path beyond one predicate).
    pub component: String,
    /// The property it constrains: its name when a typed property has the path, else the
    /// path as SPARQL writes it (`^ex:knows`, `ex:a/ex:b`); `None` for the node itself.
    pub property: Option<String>,
    /// What a conforming instance looks like, in words an agent can act on.
    pub text: String,
}

/// One link of a class marker: `(this, predicate, target)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerLink {
    pub predicate: String,
    /// An IRI, or an encoded literal (`literal:string:dog`).
    pub target: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// The name as declared (`dueDate`): the key in instance objects and tool parameters.
    pub name: String,
    pub path: String,
    /// The class that declared it (a parent's name for inherited properties).
    pub declared_in: String,
    pub value_type: ValueType,
    /// The datatype IRI in full (`http://www.w3.org/2001/XMLSchema#string`), when one was given.
    pub datatype: Option<String>,
    /// The datatypes a value may have, when the shapes allow several ([`ValueType::AnyOf`]).
    pub any_of: Option<AnyOf>,
    pub collection: bool,
    /// `min_count`, `max_count` as declared (`min` 0 when absent).
    pub min_count: u64,
    pub max_count: Option<u64>,
    pub access: Access,
    /// `min_count >= 1` on a writable or create-only property.
    pub required: bool,
    pub setter: Vec<Action>,
    pub adder: Vec<Action>,
    pub remover: Vec<Action>,
    pub node_kind: Option<NodeKind>,
    /// `sh:class` as written (a class or node shape IRI).
    pub class: Option<String>,
    pub relation: Option<Relation>,
    /// The class whose instances values must be (from `class` or `target_class_name`), by name.
    pub target_class: Option<String>,
    pub constraints: Constraints,
    /// The marker value, for `has_value` properties with `min_count >= 1`.
    pub has_value: Option<Value>,
    pub getter: Option<String>,
    pub identity: bool,
    pub local: bool,
    pub interpretation_hint: Option<String>,
    /// Keys carried through, not interpreted (`resolve_language`, `ordering`, ...).
    pub extras: Map<String, Value>,
}

/// Which nodes a value of a node-valued property may be (`sh:nodeKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nodes {
    /// IRIs (`sh:IRI`, or no node kind said).
    Iri,
    /// Blank nodes, spelled `_:label` (`sh:BlankNode`).
    Blank,
    /// Either (`sh:BlankNodeOrIRI`; the Turtle front end reads a bare `sh:class` so).
    IriOrBlank,
}

impl Nodes {
    /// Whether `s` spells such a node.
    pub fn allow(self, s: &str) -> bool {
        match self {
            Nodes::Iri => crate::literal::is_iri(s),
            Nodes::Blank => crate::literal::is_blank(s),
            Nodes::IriOrBlank => crate::literal::is_node(s),
        }
    }
}

impl Property {
    /// Which nodes its values may be, when they are nodes.
    pub fn nodes(&self) -> Nodes {
        match self.node_kind {
            Some(NodeKind::BlankNode) => Nodes::Blank,
            Some(NodeKind::BlankNodeOrIri) => Nodes::IriOrBlank,
            _ => Nodes::Iri,
        }
    }

    pub fn is_marker(&self) -> bool {
        self.access == Access::ReadOnly(ReadOnlyReason::Marker)
    }

    pub fn is_writable(&self) -> bool {
        self.access == Access::Writable
    }

    /// Writable, or create-only: may be given to `*_create` / `instance_create`.
    pub fn is_creatable(&self) -> bool {
        matches!(self.access, Access::Writable | Access::CreateOnly)
    }

    /// A scalar that may be cleared (`null` to a setter, `unset` in instance_update).
    pub fn is_optional_scalar(&self) -> bool {
        !self.collection && !self.required
    }

    pub fn is_reference(&self) -> bool {
        self.value_type == ValueType::Reference
    }

    /// The cardinality text of the validation envelope (docs/errors.md).
    pub fn cardinality_text(&self) -> String {
        if !self.collection {
            return if self.min_count >= 1 {
                "exactly one value (minCount 1, maxCount 1)".to_string()
            } else {
                "at most one value (maxCount 1)".to_string()
            };
        }
        match (self.min_count, self.max_count) {
            (0, None) => "any number of values (collection)".to_string(),
            (m, None) => {
                if m == 1 {
                    "one or more values (minCount 1, collection)".to_string()
                } else {
                    format!("{m} or more values (minCount {m}, collection)")
                }
            }
            (0, Some(n)) => format!("at most {n} values (maxCount {n}, collection)"),
            (m, Some(n)) => format!("between {m} and {n} values (minCount {m}, maxCount {n}, collection)"),
        }
    }
}

/// The friendly type of a property's values (`docs/data-model.md`, Links and values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    String,
    Boolean,
    Integer(IntegerKind),
    Number,
    DateTime(TemporalKind),
    /// `rdf:langString`: a text with a language tag, a JSON-LD value object
    /// `{"@value": "Hallo", "@language": "de"}` (docs/data-model.md, Links and values).
    LangString,
    /// An IRI: `node_kind: IRI`, `class`, or a relation.
    Reference,
    /// One of several datatypes, listed in [`Property::any_of`]: the shapes say the value's
    /// datatype only through `sh:or`/`sh:xone` of `sh:datatype` shapes (a shared shape such as
    /// "a date or a dateTime"). A value is written with the first datatype it is valid for.
    AnyOf,
}

/// The datatypes of a [`ValueType::AnyOf`] property, in the order the shapes list them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnyOf {
    /// The SHACL component on the property that says them (`sh:OrConstraintComponent`,
    /// `sh:XoneConstraintComponent`, `sh:NodeConstraintComponent`, `sh:AndConstraintComponent`,
    /// `sh:NodeKindConstraintComponent`): a value of none of the datatypes breaks it. Empty
    /// when the shapes say nothing of the value ([`any_term`]): a value of none of them is no
    /// RDF term, a problem of the call's form.
    pub component: &'static str,
    pub alternatives: Vec<Alternative>,
}

impl AnyOf {
    /// The nodes its node alternative takes, if it has one.
    pub fn nodes(&self) -> Option<Nodes> {
        self.alternatives.iter().find_map(|a| alternative_nodes(&a.datatype))
    }

    /// `Some(node)` when the datatypes are [`any_term`]: any literal (with `node` true, also a
    /// node), which texts say as such rather than datatype by datatype.
    pub fn any_term(&self) -> Option<bool> {
        [None, Some(IRI_ALTERNATIVE), Some(NODE_ALTERNATIVE)]
            .into_iter()
            .find(|node| self.alternatives == any_term(*node))
            .map(|node| node.is_some())
    }
}

/// One datatype a value may have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    /// The datatype IRI in full, or [`IRI_ALTERNATIVE`] for an IRI.
    pub datatype: String,
    /// How a JSON value of that datatype looks (never [`ValueType::AnyOf`]). `Reference`: an
    /// IRI as the JSON-LD node reference `{"@id": "<iri>"}` (a bare string is text).
    pub value_type: ValueType,
}

/// The [`Alternative::datatype`] of an IRI value (`sh:IRI`).
pub const IRI_ALTERNATIVE: &str = "http://www.w3.org/ns/shacl#IRI";

/// The [`Alternative::datatype`] of an IRI or blank node value (`sh:BlankNodeOrIRI`).
pub const NODE_ALTERNATIVE: &str = "http://www.w3.org/ns/shacl#BlankNodeOrIRI";

/// The nodes an alternative of datatype `datatype` takes, when it takes nodes.
pub fn alternative_nodes(datatype: &str) -> Option<Nodes> {
    match datatype {
        IRI_ALTERNATIVE => Some(Nodes::Iri),
        NODE_ALTERNATIVE => Some(Nodes::IriOrBlank),
        _ => None,
    }
}

/// The alternatives of a value the shapes allow to be any literal (`sh:nodeKind sh:Literal`
/// and no datatype), and with `node` ([`IRI_ALTERNATIVE`] for `sh:IRIOrLiteral`,
/// [`NODE_ALTERNATIVE`] when nothing is said of the value at all) also a node: text, a
/// language-tagged text, a whole number, a number, a boolean, each written as its own datatype.
pub fn any_term(node: Option<&str>) -> Vec<Alternative> {
    const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
    let mut all = vec![
        (format!("{XSD}string"), ValueType::String),
        (crate::shacl::vocab::RDF_LANG_STRING.to_string(), ValueType::LangString),
        (format!("{XSD}integer"), ValueType::Integer(IntegerKind::Integer)),
        (format!("{XSD}decimal"), ValueType::Number),
        (format!("{XSD}boolean"), ValueType::Boolean),
    ];
    if let Some(node) = node {
        all.push((node.to_string(), ValueType::Reference));
    }
    all.into_iter()
        .map(|(datatype, value_type)| Alternative { datatype, value_type })
        .collect()
}

impl ValueType {
    /// The `type` word of describe_perspective and of the envelope's `expected_type`.
    pub fn type_name(self) -> &'static str {
        match self {
            ValueType::String => "string",
            ValueType::Boolean => "boolean",
            ValueType::Integer(_) => "integer",
            ValueType::Number => "number",
            ValueType::DateTime(_) => "datetime",
            ValueType::LangString => "langString",
            ValueType::Reference => "reference",
            ValueType::AnyOf => "anyOf",
        }
    }

    /// JSON Schema `format` for the datetime family.
    pub fn format(self) -> Option<&'static str> {
        match self {
            ValueType::DateTime(k) => Some(k.format()),
            _ => None,
        }
    }
}

/// XSD integer types and their ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegerKind {
    Integer,
    Long,
    Int,
    Short,
    Byte,
    NonNegative,
    Positive,
    NonPositive,
    Negative,
    UnsignedLong,
    UnsignedInt,
    UnsignedShort,
    UnsignedByte,
}

impl IntegerKind {
    /// The inclusive range the type allows, as i64 bounds (`unsignedLong` is capped at
    /// i64::MAX: values are stored and compared as i64).
    pub fn range(self) -> (Option<i64>, Option<i64>) {
        match self {
            IntegerKind::Integer | IntegerKind::Long => (None, None),
            IntegerKind::Int => (Some(i32::MIN.into()), Some(i32::MAX.into())),
            IntegerKind::Short => (Some(i16::MIN.into()), Some(i16::MAX.into())),
            IntegerKind::Byte => (Some(i8::MIN.into()), Some(i8::MAX.into())),
            IntegerKind::NonNegative | IntegerKind::UnsignedLong => (Some(0), None),
            IntegerKind::Positive => (Some(1), None),
            IntegerKind::NonPositive => (None, Some(0)),
            IntegerKind::Negative => (None, Some(-1)),
            IntegerKind::UnsignedInt => (Some(0), Some(u32::MAX.into())),
            IntegerKind::UnsignedShort => (Some(0), Some(u16::MAX.into())),
            IntegerKind::UnsignedByte => (Some(0), Some(u8::MAX.into())),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TemporalKind {
    DateTime,
    Date,
    Time,
}

impl TemporalKind {
    pub fn format(self) -> &'static str {
        match self {
            TemporalKind::DateTime => "date-time",
            TemporalKind::Date => "date",
            TemporalKind::Time => "time",
        }
    }
}

/// Who may write a property (`docs/data-model.md`, precedence rules 2 and 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Writable,
    /// May be given on create (a constructor action substitutes it), read-only afterwards.
    CreateOnly,
    ReadOnly(ReadOnlyReason),
}

impl Access {
    /// The `read_only_reason` text of describe_perspective and of the envelope.
    pub fn reason(self) -> Option<&'static str> {
        match self {
            Access::Writable => None,
            Access::CreateOnly => Some("set on create only"),
            Access::ReadOnly(r) => Some(r.text()),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadOnlyReason {
    Marker,
    Getter,
    ReverseRelation,
    Declared,
    NoSetter,
}

impl ReadOnlyReason {
    pub fn text(self) -> &'static str {
        match self {
            ReadOnlyReason::Marker => "class marker set automatically on create",
            ReadOnlyReason::Getter => "computed by a getter expression",
            ReadOnlyReason::ReverseRelation => "reverse relation — stored on the target instance",
            ReadOnlyReason::Declared => "declared read-only",
            ReadOnlyReason::NoSetter => "the class declares no setter for this property",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Iri,
    Literal,
    BlankNode,
    BlankNodeOrIri,
    BlankNodeOrLiteral,
    IriOrLiteral,
}

impl NodeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Iri => "IRI",
            NodeKind::Literal => "Literal",
            NodeKind::BlankNode => "BlankNode",
            NodeKind::BlankNodeOrIri => "BlankNodeOrIRI",
            NodeKind::BlankNodeOrLiteral => "BlankNodeOrLiteral",
            NodeKind::IriOrLiteral => "IRIOrLiteral",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    pub kind: RelationKind,
    /// `target_class_name` as written.
    pub target_class_name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelationKind {
    HasOne,
    HasMany,
    BelongsToOne,
    BelongsToMany,
}

impl RelationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RelationKind::HasOne => "hasOne",
            RelationKind::HasMany => "hasMany",
            RelationKind::BelongsToOne => "belongsToOne",
            RelationKind::BelongsToMany => "belongsToMany",
        }
    }

    pub fn is_reverse(self) -> bool {
        matches!(self, RelationKind::BelongsToOne | RelationKind::BelongsToMany)
    }

    pub fn is_many(self) -> bool {
        matches!(self, RelationKind::HasMany | RelationKind::BelongsToMany)
    }
}

/// Value constraints beyond type and cardinality.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Constraints {
    pub in_values: Vec<AllowedValue>,
    pub pattern: Option<Pattern>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub min_inclusive: Option<Number>,
    pub max_inclusive: Option<Number>,
    pub min_exclusive: Option<Number>,
    pub max_exclusive: Option<Number>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AllowedValue {
    pub value: Value,
    pub label: Option<String>,
}

/// A `pattern` with its `flags`; checked to compile with the `regex` crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub source: String,
    pub flags: Option<String>,
}

impl Pattern {
    /// The pattern as the `regex` crate compiles it, flags applied inline (`(?i)`).
    pub fn regex_source(&self) -> String {
        match self.flags.as_deref().filter(|f| !f.is_empty()) {
            Some(flags) => format!("(?{flags}){}", self.source),
            None => self.source.clone(),
        }
    }
}

/// One link action (constructor, destructor, setter, adder, remover).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub kind: ActionKind,
    /// `this`, or an IRI.
    pub source: String,
    pub predicate: String,
    /// `value`, `this`, a property name (constructors), an IRI or an encoded literal.
    pub target: String,
    pub local: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKind {
    AddLink,
    RemoveLink,
    SetSingleTarget,
}

impl ActionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::AddLink => "addLink",
            ActionKind::RemoveLink => "removeLink",
            ActionKind::SetSingleTarget => "setSingleTarget",
        }
    }

    pub fn parse(s: &str) -> Option<ActionKind> {
        match s {
            "addLink" => Some(ActionKind::AddLink),
            "removeLink" => Some(ActionKind::RemoveLink),
            "setSingleTarget" => Some(ActionKind::SetSingleTarget),
            _ => None,
        }
    }
}

/// Reserved property names (`docs/data-model.md`, precedence rule 5): keys of every instance
/// object, and the per-class tool parameters.
pub const RESERVED_PROPERTY_NAMES: &[&str] = &[
    "id",
    "baseExpression",
    "createdAt",
    "updatedAt",
    "author",
    "timestamp",
    "__links",
    "perspective_id",
    "expression_address",
    "parent",
];

/// The local name of an IRI: after the last `/`, `#` or `:` (`app://Channel` is `Channel`).
pub fn local_name(iri: &str) -> &str {
    let cut = iri.rfind(['/', '#', ':']).map_or(0, |i| i + 1);
    &iri[cut..]
}
