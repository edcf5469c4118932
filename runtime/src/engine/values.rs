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

pub use crate::value_key::{Decoded, decode};

/// The value of a link target as `property` types it, or `None` when it cannot be read as
/// that type (a link of another shape written by hand: it is left out, never guessed).
///
/// Whatever this reads, `pushdown` must look for: its keys of a value cover every target read
/// as that value (its tests check the two together).
pub fn read(property: &Property, target: &str) -> Option<Value> {
    let decoded = decode(target);
    match property.value_type {
        // References are IRIs as written, never literals.
        ValueType::Reference => match decoded {
            Decoded::Iri(iri) => Some(iri.into()),
            _ => None,
        },
        ValueType::String | ValueType::DateTime(_) => match decoded {
            // A language-tagged string as text: its tag is lost, as a number's type is.
            Decoded::String(s) | Decoded::Iri(s) | Decoded::LangString { text: s, .. } => Some(s.into()),
            Decoded::Number(n) => Some(n.to_string().into()),
            Decoded::Boolean(b) => Some(b.to_string().into()),
        },
        // Only a language-tagged link: a plain string has no tag to give it.
        ValueType::LangString => match decoded {
            Decoded::LangString { text, language } => Some(serde_json::json!({"@value": text, "@language": language})),
            _ => None,
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

    /// Task's `title` (tasks.json) given `value_type`.
    fn property(value_type: ValueType) -> Property {
        let dna = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dna/tasks.json");
        let (fixed, _) = crate::engine::FixedDna::load(&[dna]).unwrap();
        let mut p = fixed.classes()[0].properties[0].clone();
        p.value_type = value_type;
        p
    }

    #[test]
    fn lang_strings_round_trip() {
        let p = property(ValueType::LangString);
        for value in [
            json!({"@value": "Hallo Welt", "@language": "de"}),
            json!({"@value": "a:b/c?d&é%", "@language": "en-GB"}),
            json!({"@value": "", "@language": "EN"}),
        ] {
            let target = encode(&p, &value);
            assert!(target.starts_with("literal:lang:"), "{target}");
            assert_eq!(read(&p, &target), Some(value));
        }
        assert_eq!(
            encode(&p, &json!({"@value": "Hi", "@language": "en"})),
            "literal:lang:en:Hi"
        );
        // A plain string has no tag: not a value of the property.
        assert_eq!(read(&p, "literal:string:Hi"), None);
        assert_eq!(read(&p, "app://x"), None);
        // A text property reads the text.
        assert_eq!(
            read(&property(ValueType::String), "literal:lang:en:Hi"),
            Some(json!("Hi"))
        );
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
