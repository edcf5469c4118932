//! JSON Schema and plain-language text for one property's values. The one place shape
//! constraints become schema keywords, so tool parameters and describe texts agree.

use serde_json::{Map, Value, json};

use crate::model::{Alternative, Constraints, Nodes, Property, ValueType};

/// The IRI rule of `docs/data-model.md`, as a JSON Schema pattern.
pub const IRI_PATTERN: &str = r"^[A-Za-z][A-Za-z0-9+.-]*:\S*$";

/// A blank node as tool values spell it (`crate::literal::is_blank`).
pub const BLANK_PATTERN: &str = r"^_:[A-Za-z0-9_][A-Za-z0-9_.-]*$";

/// An IRI or a blank node.
pub const NODE_PATTERN: &str = r"^([A-Za-z][A-Za-z0-9+.-]*:\S*|_:[A-Za-z0-9_][A-Za-z0-9_.-]*)$";

/// The pattern of a value that is one of `nodes`.
pub fn node_pattern(nodes: Nodes) -> &'static str {
    match nodes {
        Nodes::Iri => IRI_PATTERN,
        Nodes::Blank => BLANK_PATTERN,
        Nodes::IriOrBlank => NODE_PATTERN,
    }
}

/// The language tag of a language-tagged string (`crate::literal::is_language_tag`).
pub const LANGUAGE_TAG_PATTERN: &str = r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$";

/// The schema of one value (one item, for collections), with the property's hint as description.
pub fn property_value_schema(p: &Property) -> Value {
    let mut s = Map::new();
    let c = &p.constraints;
    if let Some(any_of) = &p.any_of {
        // The one `anyOf` of a tool schema (docs/tools.md): a value of one of several datatypes.
        let each = any_of.alternatives.iter().map(|a| match a.value_type {
            ValueType::Reference => json!({
                "type": "object",
                "properties": { "@id": {
                    "type": "string",
                    "pattern": node_pattern(crate::model::alternative_nodes(&a.datatype).unwrap_or(Nodes::Iri)),
                } },
                "required": ["@id"],
                "additionalProperties": false,
            }),
            _ => property_value_schema(&alternative(p, a)),
        });
        s.insert("anyOf".into(), each.collect());
        return Value::Object(s);
    }
    let json_type = match p.value_type {
        ValueType::Boolean => "boolean",
        ValueType::Integer(_) => "integer",
        ValueType::Number => "number",
        // `AnyOf` answered above (a property without its datatypes is never built).
        ValueType::String | ValueType::DateTime(_) | ValueType::Reference | ValueType::AnyOf => "string",
        ValueType::LangString => "object",
    };
    s.insert("type".into(), json_type.into());
    if p.value_type == ValueType::LangString {
        // A JSON-LD value object; the text's constraints are the engine's (JSON Schema cannot
        // put them on `@value` without losing the property's own description).
        let mut text = Map::new();
        text.insert("type".into(), "string".into());
        if let Some(pattern) = c
            .pattern
            .as_ref()
            .filter(|p| p.flags.as_deref().is_none_or(str::is_empty))
        {
            text.insert("pattern".into(), pattern.source.clone().into());
        }
        if let Some(n) = c.min_length {
            text.insert("minLength".into(), n.into());
        }
        if let Some(n) = c.max_length {
            text.insert("maxLength".into(), n.into());
        }
        s.insert(
            "properties".into(),
            json!({
                "@value": Value::Object(text),
                "@language": { "type": "string", "pattern": LANGUAGE_TAG_PATTERN },
            }),
        );
        s.insert("required".into(), json!(["@value", "@language"]));
        s.insert("additionalProperties".into(), false.into());
        return Value::Object(s);
    }
    if let Some(format) = p.value_type.format() {
        s.insert("format".into(), format.into());
    }
    if !c.in_values.is_empty() {
        s.insert("enum".into(), c.in_values.iter().map(|v| v.value.clone()).collect());
    }
    // JSON Schema has no regex flags: a pattern with flags is left to the engine.
    match (&c.pattern, p.value_type) {
        (Some(pattern), _) if pattern.flags.as_deref().is_none_or(str::is_empty) => {
            s.insert("pattern".into(), pattern.source.clone().into());
        }
        (None, ValueType::Reference) => {
            s.insert("pattern".into(), node_pattern(p.nodes()).into());
        }
        _ => {}
    }
    if let Some(n) = c.min_length {
        s.insert("minLength".into(), n.into());
    }
    if let Some(n) = c.max_length {
        s.insert("maxLength".into(), n.into());
    }
    let (type_min, type_max) = match p.value_type {
        ValueType::Integer(kind) => kind.range(),
        _ => (None, None),
    };
    let minimum = c.min_inclusive.clone().map(Value::Number).or(type_min.map(Value::from));
    let maximum = c.max_inclusive.clone().map(Value::Number).or(type_max.map(Value::from));
    if let Some(v) = minimum {
        s.insert("minimum".into(), v);
    }
    if let Some(v) = maximum {
        s.insert("maximum".into(), v);
    }
    if let Some(n) = &c.min_exclusive {
        s.insert("exclusiveMinimum".into(), Value::Number(n.clone()));
    }
    if let Some(n) = &c.max_exclusive {
        s.insert("exclusiveMaximum".into(), Value::Number(n.clone()));
    }
    Value::Object(s)
}

/// `p` as if its values had only the datatype `a`: no other constraint (those of a value of
/// several datatypes are the engine's), so schema, words and examples are made by one code.
fn alternative(p: &Property, a: &Alternative) -> Property {
    Property {
        value_type: a.value_type,
        datatype: Some(a.datatype.clone()),
        any_of: None,
        constraints: Constraints::default(),
        ..p.clone()
    }
}

/// The schema of the whole property as a tool parameter: the value schema, or an array of
/// them for collections (`maxItems` from `max_count`), with the hint as description.
pub fn property_schema(p: &Property) -> Value {
    let mut schema = if p.collection {
        let mut a = Map::new();
        a.insert("type".into(), "array".into());
        a.insert("items".into(), property_value_schema(p));
        if let Some(max) = p.max_count {
            a.insert("maxItems".into(), max.into());
        }
        Value::Object(a)
    } else {
        property_value_schema(p)
    };
    schema["description"] = parameter_description(p).into();
    schema
}

/// `value` of a setter: the value schema, nullable when the scalar is optional (`null` clears it).
pub fn setter_value_schema(p: &Property) -> Value {
    let mut schema = property_value_schema(p);
    if p.is_optional_scalar()
        && let Some(each) = schema.get_mut("anyOf").and_then(Value::as_array_mut)
    {
        each.push(json!({"type": "null"}));
    } else if p.is_optional_scalar() {
        let t = schema["type"].clone();
        schema["type"] = json!([t, "null"]);
        if let Some(values) = schema.get_mut("enum").and_then(Value::as_array_mut) {
            values.push(Value::Null);
        }
    }
    schema["description"] = if p.is_optional_scalar() {
        format!("The new value, or null to clear it. {}", parameter_description(p))
    } else {
        format!("The new value. {}", parameter_description(p))
    }
    .trim_end()
    .into();
    schema
}

/// The parameter's description: its hint, then its type and constraints in words.
pub fn parameter_description(p: &Property) -> String {
    let mut text = p.interpretation_hint.clone().unwrap_or_default();
    let summary = summary(p);
    if !text.is_empty() && !text.ends_with('.') {
        text.push('.');
    }
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(&summary);
    text
}

/// Type, cardinality and constraints in words: `string, 1 to 4000 characters, required`.
pub fn summary(p: &Property) -> String {
    let mut parts: Vec<String> = Vec::new();
    let c = &p.constraints;
    let ty = match (p.value_type, &p.target_class) {
        (ValueType::Reference, Some(class)) => format!("IRI of a {class}"),
        (ValueType::Reference, None) => "IRI".to_string(),
        (ValueType::DateTime(kind), _) => match kind.format() {
            "date-time" => "date-time (RFC 3339 with offset, e.g. 2026-12-24T10:00:00Z)".to_string(),
            "date" => "date (YYYY-MM-DD)".to_string(),
            _ => "time (RFC 3339 with offset, e.g. 10:00:00Z)".to_string(),
        },
        (ValueType::LangString, _) => {
            "language-tagged string ({\"@value\": text, \"@language\": tag}, e.g. {\"@value\": \"Hallo\", \"@language\": \"de\"})"
                .to_string()
        }
        (ValueType::AnyOf, _) if p.any_of.as_ref().and_then(|a| a.any_term()).is_some() => {
            let literal = "any literal (a string, a number, a boolean, or {\"@value\": text, \"@language\": tag})";
            match p.any_of.as_ref().and_then(|a| a.any_term()) {
                Some(true) => format!("{literal} or {}", node_words(p)),
                _ => literal.to_string(),
            }
        }
        (ValueType::AnyOf, _) => {
            // Each datatype's own word, as a single optional value of that datatype says it.
            let one = Property {
                collection: false,
                required: false,
                access: crate::model::Access::Writable,
                ..p.clone()
            };
            let alternatives = p.any_of.iter().flat_map(|a| &a.alternatives);
            let each: Vec<String> = alternatives
                .map(|a| match a.value_type {
                    ValueType::Reference => node_words(p).to_string(),
                    _ => summary(&alternative(&one, a)),
                })
                .collect();
            each.join(" or ")
        }
        (t, _) => t.type_name().to_string(),
    };
    parts.push(if p.collection { format!("list of {ty}") } else { ty });
    if !c.in_values.is_empty() {
        let values: Vec<String> = c
            .in_values
            .iter()
            .map(|v| match &v.label {
                Some(label) => format!("{} ({label})", v.value),
                None => v.value.to_string(),
            })
            .collect();
        parts.push(format!("one of {}", values.join(", ")));
    }
    if let Some(pattern) = &c.pattern {
        match pattern.flags.as_deref().filter(|f| !f.is_empty()) {
            Some(flags) => parts.push(format!("matches /{}/{flags}", pattern.source)),
            None => parts.push(format!("matches {}", pattern.source)),
        }
    }
    match (c.min_length, c.max_length) {
        (Some(a), Some(b)) => parts.push(format!("{a} to {b} characters")),
        (Some(a), None) => parts.push(format!("at least {a} characters")),
        (None, Some(b)) => parts.push(format!("at most {b} characters")),
        (None, None) => {}
    }
    for (word, bound) in [
        (">=", &c.min_inclusive),
        ("<=", &c.max_inclusive),
        (">", &c.min_exclusive),
        ("<", &c.max_exclusive),
    ] {
        if let Some(n) = bound {
            parts.push(format!("{word} {n}"));
        }
    }
    if let (true, Some(max)) = (p.collection, p.max_count) {
        parts.push(format!("at most {max} items"));
    }
    if p.required {
        parts.push("required".to_string());
    }
    if let Some(reason) = p.access.reason() {
        parts.push(reason.to_string());
    }
    parts.join(", ")
}

/// How the node alternative of a property of several datatypes is given.
fn node_words(p: &Property) -> &'static str {
    match p.any_of.as_ref().and_then(|a| a.nodes()) {
        Some(Nodes::IriOrBlank) => "an IRI or a blank node ({\"@id\": iri or _:label})",
        _ => "an IRI ({\"@id\": iri})",
    }
}

/// A plausible value for examples in descriptions: the first allowed value, or one that
/// satisfies the type and range.
pub fn example_value(p: &Property) -> Value {
    let c = &p.constraints;
    if let Some(first) = c.in_values.first() {
        return first.value.clone();
    }
    match (p.value_type, &p.any_of) {
        (ValueType::AnyOf, Some(any_of)) => match any_of.alternatives.first() {
            Some(a) => example_value(&alternative(p, a)),
            None => "example".into(),
        },
        (t, _) => example_of(t, c),
    }
}

fn example_of(value_type: ValueType, c: &Constraints) -> Value {
    match value_type {
        ValueType::Boolean => true.into(),
        ValueType::Integer(kind) => {
            let lower = c
                .min_inclusive
                .as_ref()
                .and_then(serde_json::Number::as_f64)
                .map(|f| f.ceil() as i64);
            lower
                .or(kind.range().0)
                .unwrap_or(1)
                .max(kind.range().0.unwrap_or(i64::MIN))
                .into()
        }
        ValueType::Number => c.min_inclusive.clone().map(Value::Number).unwrap_or_else(|| json!(1.5)),
        ValueType::DateTime(kind) => match kind.format() {
            "date-time" => "2026-12-24T10:00:00Z".into(),
            "date" => "2026-12-24".into(),
            _ => "10:00:00Z".into(),
        },
        ValueType::Reference => "ad4m://obj/abcdefghijklmnopqrstuvwx".into(),
        ValueType::String | ValueType::AnyOf => "example".into(),
        ValueType::LangString => json!({"@value": "example", "@language": "en"}),
    }
}
