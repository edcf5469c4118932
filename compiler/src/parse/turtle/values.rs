//! RDF literals to the JSON values of the shapes (`sh:in`, `sh:hasValue`, ranges, counts).

use serde_json::{Number, Value};

use super::graph::{Lit, Node, Obj};

pub(super) const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

const INTEGER_TYPES: &[&str] = &[
    "integer",
    "int",
    "long",
    "short",
    "byte",
    "nonNegativeInteger",
    "positiveInteger",
    "nonPositiveInteger",
    "negativeInteger",
    "unsignedLong",
    "unsignedInt",
    "unsignedShort",
    "unsignedByte",
];

const DECIMAL_TYPES: &[&str] = &["decimal", "double", "float"];

fn xsd_local(datatype: &str) -> Option<&str> {
    datatype.strip_prefix(XSD)
}

fn is_integer_type(datatype: &str) -> bool {
    xsd_local(datatype).is_some_and(|l| INTEGER_TYPES.contains(&l))
}

fn is_decimal_type(datatype: &str) -> bool {
    xsd_local(datatype).is_some_and(|l| DECIMAL_TYPES.contains(&l))
}

/// A term as it could be written in Turtle, for messages (`"-1"^^xsd:integer`, `<app://x>`).
pub(super) fn show(obj: &Obj) -> String {
    match obj {
        Obj::Node(Node::Iri(iri)) => format!("<{iri}>"),
        Obj::Node(blank) => format!("blank node {}", blank.label()),
        Obj::Literal(lit) => {
            let value = serde_json::to_string(&lit.value).unwrap_or_else(|_| lit.value.clone());
            match (&lit.language, xsd_local(&lit.datatype)) {
                (Some(lang), _) => format!("{value}@{lang}"),
                (None, Some("string")) => value,
                (None, Some(local)) => format!("{value}^^xsd:{local}"),
                (None, None) => format!("{value}^^<{}>", lit.datatype),
            }
        }
    }
}

/// An integer literal as a JSON number (`i64`, else `u64`).
fn integer(text: &str) -> Option<Number> {
    let text = text.trim();
    if let Ok(i) = text.parse::<i64>() {
        return Some(Number::from(i));
    }
    text.parse::<u64>().ok().map(Number::from)
}

/// A numeric literal (integer types stay integers) as a JSON number; `None` if not numeric.
pub(super) fn number(lit: &Lit) -> Option<Number> {
    if is_integer_type(&lit.datatype) {
        integer(&lit.value)
    } else if is_decimal_type(&lit.datatype) {
        lit.value.trim().parse::<f64>().ok().and_then(Number::from_f64)
    } else {
        None
    }
}

/// A count or length: a literal of an integer type, zero or more.
pub(super) fn count(lit: &Lit) -> Option<u64> {
    if is_integer_type(&lit.datatype) {
        lit.value.trim().parse::<u64>().ok()
    } else {
        None
    }
}

pub(super) fn boolean(lit: &Lit) -> Option<bool> {
    if xsd_local(&lit.datatype) != Some("boolean") {
        return None;
    }
    match lit.value.trim() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// A literal as its JSON value: numbers and booleans by datatype, anything else its text.
/// `Err` with what is wrong when a typed literal is not a valid value of its type.
pub(super) fn literal_json(lit: &Lit) -> Result<Value, String> {
    if is_integer_type(&lit.datatype) || is_decimal_type(&lit.datatype) {
        return number(lit)
            .map(Value::Number)
            .ok_or_else(|| format!("{} is not a valid number", show(&Obj::Literal(lit.clone()))));
    }
    if xsd_local(&lit.datatype) == Some("boolean") {
        return boolean(lit)
            .map(Value::Bool)
            .ok_or_else(|| format!("{} is not a valid boolean", show(&Obj::Literal(lit.clone()))));
    }
    Ok(Value::String(lit.value.clone()))
}

/// An IRI as its string, a literal as its JSON value; blank nodes have no value.
pub(super) fn term_json(obj: &Obj) -> Result<Value, String> {
    match obj {
        Obj::Node(Node::Iri(iri)) => Ok(Value::String(iri.clone())),
        Obj::Literal(lit) => literal_json(lit),
        other => Err(format!("{} is not an IRI or a literal", show(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(value: &str, local: &str) -> Lit {
        Lit {
            value: value.to_string(),
            datatype: format!("{XSD}{local}"),
            language: None,
        }
    }

    #[test]
    fn numbers_keep_integers_as_integers() {
        assert_eq!(number(&lit("0", "integer")), Some(Number::from(0)));
        assert_eq!(number(&lit("-3", "int")), Some(Number::from(-3)));
        assert_eq!(number(&lit("20.5", "decimal")), Number::from_f64(20.5));
        assert_eq!(number(&lit("1e3", "double")), Number::from_f64(1000.0));
        assert_eq!(number(&lit("INF", "double")), None);
        assert_eq!(number(&lit("5", "string")), None);
        assert_eq!(count(&lit("-1", "integer")), None);
        assert_eq!(count(&lit("2", "integer")), Some(2));
        assert_eq!(count(&lit("1.5", "decimal")), None);
    }

    #[test]
    fn literals_to_json() {
        assert_eq!(literal_json(&lit("true", "boolean")), Ok(Value::Bool(true)));
        assert_eq!(literal_json(&lit("7", "integer")), Ok(Value::from(7)));
        assert_eq!(literal_json(&lit("open", "string")), Ok(Value::from("open")));
        assert!(literal_json(&lit("x", "integer")).is_err());
        assert_eq!(show(&Obj::Literal(lit("-1", "integer"))), r#""-1"^^xsd:integer"#);
    }
}
