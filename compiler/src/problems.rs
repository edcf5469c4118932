//! The words of the validation envelope (docs/errors.md). One module makes every text, so the
//! engine's interpreter (at run time) and generated validators (texts fixed at build time)
//! say exactly the same thing.

use std::borrow::Cow;

use serde_json::Value;

use crate::model::{Nodes, Property, TemporalKind, ValueType};

/// The SHACL Core constraint components the typed checks stand for: each problem of a value
/// names the one it breaks (`constraint` in the envelope), as the engine's problems do.
pub mod component {
    pub const DATATYPE: &str = "sh:DatatypeConstraintComponent";
    pub const NODE_KIND: &str = "sh:NodeKindConstraintComponent";
    pub const CLASS: &str = "sh:ClassConstraintComponent";
    pub const MIN_COUNT: &str = "sh:MinCountConstraintComponent";
    pub const MAX_COUNT: &str = "sh:MaxCountConstraintComponent";
    pub const IN: &str = "sh:InConstraintComponent";
    pub const PATTERN: &str = "sh:PatternConstraintComponent";
    pub const MIN_LENGTH: &str = "sh:MinLengthConstraintComponent";
    pub const MAX_LENGTH: &str = "sh:MaxLengthConstraintComponent";
    pub const MIN_INCLUSIVE: &str = "sh:MinInclusiveConstraintComponent";
    pub const MAX_INCLUSIVE: &str = "sh:MaxInclusiveConstraintComponent";
    pub const MIN_EXCLUSIVE: &str = "sh:MinExclusiveConstraintComponent";
    pub const MAX_EXCLUSIVE: &str = "sh:MaxExclusiveConstraintComponent";
    pub const OR: &str = "sh:OrConstraintComponent";
    pub const XONE: &str = "sh:XoneConstraintComponent";
    pub const NODE: &str = "sh:NodeConstraintComponent";
    pub const AND: &str = "sh:AndConstraintComponent";
}

/// The component a value of `p` breaks when it is not of its type: an IRI's node kind, a
/// value of none of several datatypes the shape that lists them (`sh:or`, …), any other
/// type's datatype.
pub fn type_component(p: &Property) -> &'static str {
    match (p.value_type, &p.any_of) {
        (ValueType::Reference, _) => component::NODE_KIND,
        (ValueType::AnyOf, Some(any_of)) => any_of.component,
        _ => component::DATATYPE,
    }
}

/// The component of a range bound (`>=` is `sh:minInclusive`, …).
pub fn bound_component(op: &str) -> &'static str {
    match op {
        ">=" => component::MIN_INCLUSIVE,
        "<=" => component::MAX_INCLUSIVE,
        ">" => component::MIN_EXCLUSIVE,
        _ => component::MAX_EXCLUSIVE,
    }
}

/// What to do about a problem with `constraint` (`sh:MinCountConstraintComponent`), in words:
/// one table for the typed checks and the SHACL Core engine's results.
pub fn fix(constraint: &str) -> &'static str {
    let name = constraint
        .strip_prefix("sh:")
        .and_then(|c| c.strip_suffix("ConstraintComponent"))
        .unwrap_or(constraint);
    match name {
        "Class" => "refer to an instance of the class the shape names",
        "Datatype" => "give a value of the datatype the shape names",
        "NodeKind" => "give an IRI or a literal, as the shape says",
        "MinCount" => "add values until there are enough",
        "MaxCount" => "remove values until there are few enough",
        "MinExclusive" | "MinInclusive" | "MaxExclusive" | "MaxInclusive" => "give a value within the allowed range",
        "MinLength" | "MaxLength" => "give a text of an allowed length",
        "Pattern" => "give a text that matches the pattern",
        "LanguageIn" => "give a text in one of the allowed languages",
        "UniqueLang" => "keep at most one value per language",
        "Equals" => "make both properties hold exactly the same values",
        "Disjoint" => "remove the values the two properties share",
        "LessThan" => "make each value less than every value of the other property",
        "LessThanOrEquals" => "make each value at most every value of the other property",
        "Not" => "change the value so that it no longer matches the shape sh:not forbids",
        "And" => "change the values so that they conform to every shape of the list",
        "Or" => "change the values so that they conform to at least one shape of the list",
        "Xone" => "change the values so that they conform to exactly one shape of the list",
        "Node" => "change the value (or the node it refers to) so that it conforms to the named shape",
        "QualifiedMinCount" => "add values that conform to the qualified shape",
        "QualifiedMaxCount" => "remove values that conform to the qualified shape",
        "Closed" => "remove the properties the shape does not declare",
        "HasValue" => "include the required value",
        "In" => "use one of the allowed values",
        _ => "change the data so that it conforms to the shape",
    }
}

/// The type problem of `p`, checked first and alone: for several datatypes, each one's text
/// joined with "or" (`expects a date (YYYY-MM-DD) or a datetime (…)`).
pub fn type_problem(p: &Property) -> Cow<'static, str> {
    const LITERAL: &str = "a literal (a string, a number, true or false, or {\"@value\": text, \"@language\": tag})";
    match (p.value_type, &p.any_of) {
        (ValueType::AnyOf, Some(any_of)) if any_of.any_term().is_some() => Cow::Owned(match any_of.any_term() {
            Some(true) => format!("expects {LITERAL} or {}", node_text(any_of.nodes())),
            _ => format!("expects {LITERAL}"),
        }),
        (ValueType::AnyOf, Some(any_of)) => {
            let each: Vec<&str> = any_of
                .alternatives
                .iter()
                .map(|a| match a.value_type {
                    ValueType::Reference => node_text(any_of.nodes()),
                    t => type_text(t).trim_start_matches("expects "),
                })
                .collect();
            Cow::Owned(format!("expects {}", each.join(" or ")))
        }
        (t, _) => Cow::Borrowed(type_text(t)),
    }
}

/// The type problem of one value type.
pub fn type_text(t: ValueType) -> &'static str {
    match t {
        ValueType::AnyOf => "expects a value of one of the datatypes the shape lists",
        ValueType::Boolean => "expects true or false",
        ValueType::Integer(_) => "expects a whole number",
        ValueType::Number => "expects a number",
        ValueType::String | ValueType::Reference => "expects a string",
        ValueType::LangString => {
            "expects a language-tagged string {\"@value\": text, \"@language\": tag}, the tag like en or de-CH"
        }
        ValueType::DateTime(TemporalKind::DateTime) => {
            "expects a datetime (RFC 3339 with offset, e.g. 2026-12-24T10:00:00Z)"
        }
        ValueType::DateTime(TemporalKind::Date) => "expects a date (YYYY-MM-DD)",
        ValueType::DateTime(TemporalKind::Time) => "expects a time (RFC 3339 with offset, e.g. 10:00:00Z)",
    }
}

pub fn in_text(values: &[Value]) -> String {
    let list: Vec<String> = values.iter().map(Value::to_string).collect();
    format!("not one of the allowed values: {}", list.join(", "))
}

pub fn pattern_text(source: &str) -> String {
    format!("does not match the pattern {source}")
}

pub fn too_short(min: u64) -> String {
    format!("too short: at least {min} characters")
}

pub fn too_long(max: u64) -> String {
    format!("too long: at most {max} characters")
}

pub fn too_many(max: u64) -> String {
    format!("too many values: at most {max}")
}

pub fn too_few(min: u64) -> String {
    format!("too few values: at least {min}")
}

pub const NOT_AN_IRI: &str = "not an IRI (expected a scheme, e.g. ad4m://…, did:key:…, https://…)";
pub const NOT_A_BLANK_NODE: &str = "not a blank node (expected _:label)";
pub const NOT_A_NODE: &str = "not an IRI or a blank node (expected a scheme, e.g. https://…, or _:label)";

/// The problem of a value that is not a node `nodes` allows.
pub fn not_a_node(nodes: crate::model::Nodes) -> &'static str {
    match nodes {
        crate::model::Nodes::Iri => NOT_AN_IRI,
        crate::model::Nodes::Blank => NOT_A_BLANK_NODE,
        crate::model::Nodes::IriOrBlank => NOT_A_NODE,
    }
}
pub const MISSING: &str = "missing required property";
pub const ARRAY_FOR_SINGLE: &str = "expects a single value, not an array";
pub const NOT_AN_ARRAY: &str = "expects an array of values";
pub const NULL_COLLECTION: &str = "null is not a value: pass an array (may be empty)";
pub const NULL_OPTIONAL: &str = "null is not a value: to clear this property, unset it";
pub const NULL_REQUIRED: &str = "null is not a value: the property is required";
pub const COLLECTION_IN_UPDATE: &str =
    "a collection cannot be set by update: use instance_add_to_collection or instance_remove_from_collection";
pub const IN_BOTH: &str = "given in both properties and unset";
pub const REQUIRED_UNSET: &str = "required: it cannot be unset";

pub fn read_only(reason: &str) -> String {
    format!("read-only ({reason})")
}

pub fn not_instance(class: &str) -> String {
    format!("not a {class}: the node is not an instance of {class}")
}

pub fn missing_instance(class: &str) -> String {
    format!("no {class} with this IRI in the perspective")
}

pub fn unknown(accepted: &[&str]) -> String {
    if accepted.is_empty() {
        "unknown property (this class has no properties to write here)".to_string()
    } else {
        format!("unknown property (writable: {})", accepted.join(", "))
    }
}

/// The envelope's type word: describe_perspective's, with date and time told apart; for
/// several datatypes, each one's word joined with "or" (`date or datetime`).
pub fn expected_type(p: &Property) -> Cow<'static, str> {
    match (p.value_type, &p.any_of) {
        (ValueType::AnyOf, Some(any_of)) if any_of.any_term().is_some() => Cow::Borrowed(match any_of.any_term() {
            Some(true) if any_of.nodes() == Some(Nodes::IriOrBlank) => "literal or node",
            Some(true) => "literal or IRI",
            _ => "literal",
        }),
        (ValueType::AnyOf, Some(any_of)) => {
            let each: Vec<&str> = any_of
                .alternatives
                .iter()
                .map(|a| match a.value_type {
                    ValueType::Reference if any_of.nodes() == Some(Nodes::IriOrBlank) => "node",
                    ValueType::Reference => "IRI",
                    t => type_word(t),
                })
                .collect();
            Cow::Owned(each.join(" or "))
        }
        (t, _) => Cow::Borrowed(type_word(t)),
    }
}

/// How a value of a node alternative is given.
fn node_text(nodes: Option<Nodes>) -> &'static str {
    match nodes {
        Some(Nodes::IriOrBlank) => "an IRI or a blank node as {\"@id\": iri or _:label}",
        _ => "an IRI as {\"@id\": iri}",
    }
}

fn type_word(t: ValueType) -> &'static str {
    match t {
        ValueType::DateTime(TemporalKind::Date) => "date",
        ValueType::DateTime(TemporalKind::Time) => "time",
        t => t.type_name(),
    }
}

/// A range bound a value must keep: `>=`, `<=`, `>` or `<`, and the bound as written in texts.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub op: &'static str,
    pub value: f64,
    pub text: String,
}

impl Bound {
    pub fn holds(&self, x: f64) -> bool {
        match self.op {
            ">=" => x >= self.value,
            "<=" => x <= self.value,
            ">" => x > self.value,
            _ => x < self.value,
        }
    }
}

/// Every bound of a numeric property, in the order texts list them: the integer type's own
/// range, then min/max inclusive, then min/max exclusive.
pub fn bounds(p: &Property) -> Vec<Bound> {
    let mut out = Vec::new();
    let mut push = |op: &'static str, value: f64| {
        out.push(Bound {
            op,
            value,
            text: number_text(value),
        })
    };
    if let ValueType::Integer(kind) = p.value_type {
        let (lo, hi) = kind.range();
        if let Some(lo) = lo {
            push(">=", lo as f64);
        }
        if let Some(hi) = hi {
            push("<=", hi as f64);
        }
    }
    let c = &p.constraints;
    let num = |n: &Option<serde_json::Number>| n.as_ref().and_then(serde_json::Number::as_f64);
    for (op, n) in [
        (">=", num(&c.min_inclusive)),
        ("<=", num(&c.max_inclusive)),
        (">", num(&c.min_exclusive)),
        ("<", num(&c.max_exclusive)),
    ] {
        if let Some(n) = n {
            push(op, n);
        }
    }
    out
}

/// `out of range: must be >= 0 and < 50`, for the bounds broken, each as `(op, bound as text)`.
pub fn range_text<'a>(broken: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let parts: Vec<String> = broken.into_iter().map(|(op, text)| format!("{op} {text}")).collect();
    format!("out of range: must be {}", parts.join(" and "))
}

fn number_text(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        format!("{f}")
    }
}

/// `received` of the validation envelope: `null`, `boolean true`, `number 3`, `string "…"`
/// (cut at 40 characters with …), `array of N`, `object`.
pub fn received(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => {
            let cut: String = s.chars().take(40).collect();
            let more = if s.chars().count() > 40 { "…" } else { "" };
            format!("string {}", Value::String(format!("{cut}{more}")))
        }
        Value::Array(a) => format!("array of {}", a.len()),
        Value::Object(_) => "object".to_string(),
    }
}
