//! Values and link targets (docs/data-model.md, Links and values): the encoder every write uses and
//! the decoder that also reads AD4M's other spellings, so links written with `add_link` or
//! `execute_commands` read back like the engine's own.

use serde_json::{Number, Value};
use shacl_mcp_compiler::literal;
use shacl_mcp_compiler::model::{Alternative, Nodes, Property, ValueType, alternative_nodes};
use shacl_mcp_compiler::shacl::xsd::is_valid;

use super::validate::type_ok;

/// The link target for a value already validated against `property`'s type.
pub fn encode(property: &Property, value: &Value) -> String {
    match property.value_type {
        ValueType::AnyOf => match alternative(property, value) {
            Some(a) => encode_as(a.value_type, &plain(a, value)),
            None => encode_as(ValueType::String, value),
        },
        t => encode_as(t, value),
    }
}

/// A value of the alternative `a` as a value of its own type: an IRI alternative's
/// `{"@id": iri}` is the IRI.
pub fn plain(a: &Alternative, value: &Value) -> Value {
    match (a.value_type, node_iri(value)) {
        (ValueType::Reference, Some(iri)) => Value::String(iri.to_string()),
        _ => value.clone(),
    }
}

/// The node of a JSON-LD node reference `{"@id": "<iri or _:label>"}` (that key only).
pub fn node_iri(value: &Value) -> Option<&str> {
    let o = value.as_object().filter(|o| o.len() == 1)?;
    o.get("@id")?.as_str().filter(|node| literal::is_node(node))
}

/// The link target of a value of type `value_type`.
fn encode_as(value_type: ValueType, value: &Value) -> String {
    match (value_type, value) {
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

/// The datatype a value of a [`ValueType::AnyOf`] property is written with: the first of its
/// datatypes whose type the value has and whose lexical space holds it (`"2026-12-24"` of
/// "a date or a dateTime" is a date). `None` when it fits none, or `property` has one type.
pub fn alternative<'p>(property: &'p Property, value: &Value) -> Option<&'p Alternative> {
    let any_of = property.any_of.as_ref()?;
    any_of.alternatives.iter().find(|a| fits(a, value))
}

/// Whether `value` is a value of the datatype `a`.
pub fn fits(a: &Alternative, value: &Value) -> bool {
    if a.value_type == ValueType::Reference {
        let nodes = alternative_nodes(&a.datatype).unwrap_or(Nodes::Iri);
        return node_iri(value).is_some_and(|node| nodes.allow(node));
    }
    if !type_ok(a.value_type, value) {
        return false;
    }
    match (a.value_type, value) {
        // A text of a datatype with a lexical space of its own (`xsd:gYear`, `xsd:token`, …).
        (ValueType::String, Value::String(text)) => is_valid(&a.datatype, text),
        // A whole number within the integer type's range (`xsd:byte`, …).
        (ValueType::Integer(kind), v) => {
            let (low, high) = kind.range();
            let x = v.as_f64().unwrap_or_default();
            low.is_none_or(|l| x >= l as f64) && high.is_none_or(|h| x <= h as f64)
        }
        _ => true,
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
    match (property.value_type, &property.any_of) {
        // The first datatype that reads the target by its own spelling: a text is read as text
        // only by a text datatype, a number only by a numeric one.
        (ValueType::AnyOf, Some(any_of)) => any_of.alternatives.iter().find_map(|a| {
            let value = read_as(a.value_type, strict(a.value_type, &decoded)?.clone())?;
            Some(match a.value_type {
                ValueType::Reference => serde_json::json!({ "@id": value }),
                _ => value,
            })
        }),
        (t, _) => read_as(t, decoded),
    }
}

/// `decoded`, when a write of a value of `value_type` could have spelled it so.
fn strict(value_type: ValueType, decoded: &Decoded) -> Option<&Decoded> {
    let fits = match (value_type, decoded) {
        (ValueType::String | ValueType::DateTime(_), Decoded::String(_)) => true,
        (ValueType::String | ValueType::DateTime(_), Decoded::Iri(s)) => !literal::is_node(s),
        (ValueType::LangString, Decoded::LangString { .. }) => true,
        (ValueType::Boolean, Decoded::Boolean(_)) => true,
        (ValueType::Integer(_) | ValueType::Number, Decoded::Number(_)) => true,
        (ValueType::Reference, Decoded::Iri(s)) => literal::is_node(s),
        _ => false,
    };
    fits.then_some(decoded)
}

fn read_as(value_type: ValueType, decoded: Decoded) -> Option<Value> {
    match value_type {
        // Read through its datatypes ([`read`]).
        ValueType::AnyOf => None,
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

    /// `title` as a value of `datatypes` (XSD local names), in that order.
    fn any_of(datatypes: &[&str]) -> Property {
        let mut p = property(ValueType::AnyOf);
        let alternatives = datatypes
            .iter()
            .map(|d| {
                let prefix = if *d == "langString" { "rdf" } else { "xsd" };
                let (datatype, value_type) = shacl_mcp_compiler::check::datatype(&format!("{prefix}:{d}")).unwrap();
                Alternative { datatype, value_type }
            })
            .collect();
        p.any_of = Some(shacl_mcp_compiler::model::AnyOf {
            component: "sh:OrConstraintComponent",
            alternatives,
        });
        p
    }

    #[test]
    fn a_value_of_several_datatypes_takes_the_first_it_is_valid_for() {
        let chosen =
            |p: &Property, v: Value| alternative(p, &v).map(|a| a.datatype.rsplit('#').next().unwrap().to_string());
        let dates = any_of(&["gYear", "date", "dateTime"]);
        assert_eq!(chosen(&dates, json!("2026")).as_deref(), Some("gYear"));
        assert_eq!(chosen(&dates, json!("2026-12-24")).as_deref(), Some("date"));
        assert_eq!(
            chosen(&dates, json!("2026-12-24T10:00:00Z")).as_deref(),
            Some("dateTime")
        );
        // No offset: not a datetime as tools take them, and no other datatype holds it.
        assert_eq!(chosen(&dates, json!("2026-12-24T10:00:00")), None);
        assert_eq!(chosen(&dates, json!(2026)), None);
        let mixed = any_of(&["byte", "decimal", "string", "boolean"]);
        assert_eq!(chosen(&mixed, json!(3)).as_deref(), Some("byte"));
        assert_eq!(chosen(&mixed, json!(300)).as_deref(), Some("decimal"));
        assert_eq!(chosen(&mixed, json!(2.5)).as_deref(), Some("decimal"));
        assert_eq!(chosen(&mixed, json!("3")).as_deref(), Some("string"));
        assert_eq!(chosen(&mixed, json!(false)).as_deref(), Some("boolean"));
        assert_eq!(chosen(&mixed, json!(null)), None);
        // Written and read back as the same value, each by its own spelling.
        for v in [json!(3), json!(300), json!(2.5), json!("3"), json!("text"), json!(true)] {
            let target = encode(&mixed, &v);
            assert_eq!(read(&mixed, &target), Some(v.clone()), "{target}");
        }
        assert_eq!(encode(&mixed, &json!("3")), "literal:string:3");
        assert_eq!(encode(&mixed, &json!(3)), "literal:number:3");
        let text = any_of(&["string", "langString"]);
        let tagged = json!({"@value": "Hallo", "@language": "de"});
        assert_eq!(read(&text, &encode(&text, &tagged)), Some(tagged));
        assert_eq!(read(&text, "literal:string:Hi"), Some(json!("Hi")));
        // A number is no text: not a value of a text-or-date property.
        assert_eq!(read(&dates, "literal:number:3"), None);
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
