//! Values and link targets (docs/data-model.md, Links and values): the encoder every write uses and
//! the decoder that also reads AD4M's other spellings, so links written with `add_link` or
//! `execute_commands` read back like the engine's own.

use serde_json::{Number, Value};
use shacl_mcp_compiler::literal;
use shacl_mcp_compiler::model::{Property, ValueType};

/// The link target for a value already validated against `property`'s type.
pub fn encode(property: &Property, value: &Value) -> String {
    match (property.value_type, value) {
        (ValueType::Integer(_), Value::Number(n)) => match n.as_i64() {
            Some(i) => format!("literal:number:{i}"),
            // `3.0` is the integer 3.
            None => format!("literal:number:{}", n.as_f64().unwrap_or_default() as i64),
        },
        (ValueType::Number, Value::Number(n)) => {
            let f = n.as_f64().unwrap_or_default();
            literal::number(&Number::from_f64(f).unwrap_or_else(|| n.clone()))
        }
        (ValueType::Reference, Value::String(iri)) => iri.clone(),
        (_, v) => literal::from_json(v).unwrap_or_else(|| literal::string(&v.to_string())),
    }
}

/// A scalar decoded from any of AD4M's spellings, before it is typed by a property.
#[derive(Clone, Debug, PartialEq)]
pub enum Decoded {
    String(String),
    Number(Number),
    Boolean(bool),
    /// Not a literal: an IRI (or anything else) taken as written.
    Iri(String),
}

/// Reads `literal:string:…`, `literal://string:…`, `literal:number:…`, `literal:boolean:…`,
/// `literal:1^^xsd:integer`, `literal:true`; anything else is an IRI.
pub fn decode(target: &str) -> Decoded {
    let Some(rest) = target.strip_prefix("literal:") else {
        return Decoded::Iri(target.to_string());
    };
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    if let Some(text) = rest.strip_prefix("string:") {
        return Decoded::String(percent_decode(text));
    }
    if let Some(text) = rest.strip_prefix("number:") {
        return number(text).map_or_else(|| Decoded::String(text.to_string()), Decoded::Number);
    }
    if let Some(text) = rest.strip_prefix("boolean:") {
        return match text {
            "true" => Decoded::Boolean(true),
            "false" => Decoded::Boolean(false),
            other => Decoded::String(other.to_string()),
        };
    }
    // `literal:1^^xsd:integer`, `literal:true^^xsd:boolean`, `literal:text^^xsd:string`
    let (value, datatype) = match rest.split_once("^^") {
        Some((v, t)) => (v, Some(t)),
        None => (rest, None),
    };
    let value = percent_decode(value);
    let kind = datatype.map(shacl_mcp_compiler::model::local_name);
    match kind {
        Some("string") => Decoded::String(value),
        Some("boolean") | None if value == "true" || value == "false" => Decoded::Boolean(value == "true"),
        Some(_) | None => number(&value).map_or(Decoded::String(value), Decoded::Number),
    }
}

fn number(text: &str) -> Option<Number> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(i.into());
    }
    text.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .and_then(Number::from_f64)
}

/// The value of a link target as `property` types it, or `None` when it cannot be read as
/// that type (a link of another shape written by hand: it is left out, never guessed).
pub fn read(property: &Property, target: &str) -> Option<Value> {
    let decoded = decode(target);
    match property.value_type {
        // References are IRIs as written, never literals: equality on them can be pushed down
        // to the store exactly.
        ValueType::Reference => match decoded {
            Decoded::Iri(iri) => Some(iri.into()),
            _ => None,
        },
        ValueType::String | ValueType::DateTime(_) => match decoded {
            Decoded::String(s) | Decoded::Iri(s) => Some(s.into()),
            Decoded::Number(n) => Some(n.to_string().into()),
            Decoded::Boolean(b) => Some(b.to_string().into()),
        },
        ValueType::Boolean => match decoded {
            Decoded::Boolean(b) => Some(b.into()),
            _ => None,
        },
        ValueType::Integer(_) => match decoded {
            Decoded::Number(n) => n
                .as_i64()
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18)
                        .map(|f| f as i64)
                })
                .map(Value::from),
            _ => None,
        },
        ValueType::Number => match decoded {
            Decoded::Number(n) => n.as_f64().and_then(Number::from_f64).map(Value::Number),
            _ => None,
        },
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decodes_every_spelling() {
        assert_eq!(decode("literal:string:a%20b"), Decoded::String("a b".into()));
        assert_eq!(decode("literal://string:open"), Decoded::String("open".into()));
        assert_eq!(decode("literal:number:3"), Decoded::Number(3.into()));
        assert_eq!(
            decode("literal:number:3.5"),
            Decoded::Number(Number::from_f64(3.5).unwrap())
        );
        assert_eq!(decode("literal:boolean:false"), Decoded::Boolean(false));
        assert_eq!(decode("literal:1^^xsd:integer"), Decoded::Number(1.into()));
        assert_eq!(decode("literal:true"), Decoded::Boolean(true));
        assert_eq!(decode("literal:hello^^xsd:string"), Decoded::String("hello".into()));
        assert_eq!(decode("app://x"), Decoded::Iri("app://x".into()));
        assert_eq!(decode("literal:string:%E2%82%AC%"), Decoded::String("€%".into()));
    }

    #[test]
    fn received_texts() {
        assert_eq!(received(&json!(null)), "null");
        assert_eq!(received(&json!(true)), "boolean true");
        assert_eq!(received(&json!(3)), "number 3");
        assert_eq!(received(&json!("maybe")), "string \"maybe\"");
        assert_eq!(
            received(&json!("x".repeat(50))),
            format!("string \"{}…\"", "x".repeat(40))
        );
        assert_eq!(received(&json!([1, 2])), "array of 2");
        assert_eq!(received(&json!({})), "object");
    }
}
