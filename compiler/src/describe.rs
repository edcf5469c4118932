//! The model as data for agents and people: the class objects of describe_perspective
//! (docs/tools.md), shared by `shacl-mcp describe` and the runtime's describe_perspective.

use serde_json::{Map, Value, json};

use crate::model::{Class, Enforced, Property};

/// The fixed `usage` text of describe_perspective.
pub const USAGE: &str = "Pass a class's `name` as `class_name` to the instance tools (instance_create, instance_query, \
     instance_get, instance_update, instance_add_to_collection, instance_remove_from_collection, instance_remove). \
     Property names are the keys of `properties` and of `filter`; required properties must be given on create; \
     read_only properties cannot be written. sparql_query answers what instance_query cannot (joins across \
     classes, paths, aggregates); changes_since lists the instances any writer changed after a cursor (keep the \
     cursor it answers), and resources/subscribe on this perspective's resource notifies of each change. \
     validate_perspective reports what does not conform; get_documentation (topic data-model, tools, errors or \
     sparql) explains values, filters, every tool and every refusal.";

/// One class as describe_perspective lists it; class markers are hidden.
pub fn class_json(class: &Class) -> Value {
    let mut o = Map::new();
    o.insert("name".into(), class.name.clone().into());
    o.insert("class_uri".into(), class.target_class.clone().into());
    if let Some(hint) = &class.interpretation_hint {
        o.insert("interpretation_hint".into(), hint.clone().into());
    }
    if let Some(identity) = &class.identity_property {
        o.insert("identity_property".into(), identity.clone().into());
    }
    let (collections, scalars): (Vec<&Property>, Vec<&Property>) =
        class.visible_properties().partition(|p| p.collection);
    o.insert("properties".into(), scalars.into_iter().map(property_json).collect());
    o.insert(
        "collections".into(),
        collections.into_iter().map(property_json).collect(),
    );
    // What the typed properties above do not say (docs/validation.md): checked at write all
    // the same, so an agent reads it before it writes.
    if !class.enforced.is_empty() {
        o.insert("checked_at_write".into(), rules_json(&class.enforced));
    }
    if !class.unenforced.is_empty() {
        o.insert("not_enforced".into(), rules_json(&class.unenforced));
    }
    Value::Object(o)
}

/// `[{ property?, constraint, rule }]`: `constraint` the SHACL constraint component
/// (`sh:LessThanConstraintComponent`), `rule` what a conforming instance does, in words.
fn rules_json(rules: &[Enforced]) -> Value {
    rules
        .iter()
        .map(|e| {
            let mut o = Map::new();
            if let Some(p) = &e.property {
                o.insert("property".into(), p.clone().into());
            }
            o.insert(
                "constraint".into(),
                format!("sh:{}ConstraintComponent", e.component).into(),
            );
            o.insert("rule".into(), e.text.clone().into());
            Value::Object(o)
        })
        .collect()
}

/// The class's engine-enforced rules as lines (`` `end`: each value must be … ``), those about
/// `property` only when it is given: what tool descriptions add to the typed properties.
pub fn rule_lines(class: &Class, property: Option<&str>) -> Vec<String> {
    class
        .enforced
        .iter()
        .filter(|e| property.is_none_or(|p| e.property.as_deref() == Some(p)))
        .map(|e| match &e.property {
            Some(p) => format!("`{p}`: {}", e.text),
            None => format!("the instance: {}", e.text),
        })
        .collect()
}

/// One property: `{ name, type, format?, required, cardinality, predicate, read_only?, ... }`.
pub fn property_json(p: &Property) -> Value {
    let mut o = Map::new();
    let c = &p.constraints;
    o.insert("name".into(), p.name.clone().into());
    o.insert("type".into(), p.value_type.type_name().into());
    if let Some(format) = p.value_type.format() {
        o.insert("format".into(), format.into());
    }
    if let Some(any_of) = &p.any_of {
        // `type` is `anyOf`: each datatype a value may have, the first a value fits being the
        // one it is written with.
        let each = any_of.alternatives.iter().map(|a| {
            let mut t = Map::new();
            t.insert("type".into(), a.value_type.type_name().into());
            if let Some(format) = a.value_type.format() {
                t.insert("format".into(), format.into());
            }
            t.insert("datatype".into(), a.datatype.clone().into());
            Value::Object(t)
        });
        o.insert("any_of".into(), each.collect());
    }
    o.insert("required".into(), p.required.into());
    let max = if p.collection {
        p.max_count.map_or(Value::Null, Value::from)
    } else {
        1.into()
    };
    o.insert("cardinality".into(), json!({ "min": p.min_count, "max": max }));
    o.insert("predicate".into(), p.path.clone().into());
    if let Some(reason) = p.access.reason() {
        o.insert("read_only".into(), true.into());
        o.insert("read_only_reason".into(), reason.into());
    }
    if !c.in_values.is_empty() {
        o.insert("enum".into(), c.in_values.iter().map(|v| v.value.clone()).collect());
    }
    if let Some(pattern) = &c.pattern {
        o.insert("pattern".into(), pattern.regex_source().into());
    }
    let numbers = [
        ("minimum", &c.min_inclusive),
        ("maximum", &c.max_inclusive),
        ("exclusive_minimum", &c.min_exclusive),
        ("exclusive_maximum", &c.max_exclusive),
    ];
    for (key, n) in numbers {
        if let Some(n) = n {
            o.insert(key.into(), Value::Number(n.clone()));
        }
    }
    if let Some(n) = c.min_length {
        o.insert("min_length".into(), n.into());
    }
    if let Some(n) = c.max_length {
        o.insert("max_length".into(), n.into());
    }
    if let Some(r) = &p.relation {
        o.insert("relation_kind".into(), r.kind.as_str().into());
    }
    if let Some(t) = &p.target_class {
        o.insert("target_class".into(), t.clone().into());
    }
    if let Some(hint) = &p.interpretation_hint {
        o.insert("interpretation_hint".into(), hint.clone().into());
    }
    for (k, v) in &p.extras {
        o.insert(k.clone(), v.clone());
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::USAGE;
    use crate::surface::{SurfaceOptions, static_tools};

    /// describe_perspective's usage sends agents to the tools that ask (sparql_query), react
    /// (changes_since, resources/subscribe), check and explain, and to no tool that does not exist.
    #[test]
    fn usage_names_the_agent_tools_and_only_real_ones() {
        let tools: Vec<String> = static_tools(SurfaceOptions::default())
            .into_iter()
            .map(|t| t.name)
            .collect();
        for tool in [
            "sparql_query",
            "changes_since",
            "validate_perspective",
            "get_documentation",
        ] {
            assert!(USAGE.contains(tool), "usage names {tool}");
        }
        assert!(USAGE.contains("resources/subscribe"));
        let not_tools = ["class_name", "read_only", "data-model"];
        for word in USAGE.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            let looks_like_a_tool = word.contains('_') && word.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            if looks_like_a_tool && !not_tools.contains(&word) {
                assert!(tools.iter().any(|t| t == word), "usage names {word}, which is no tool");
            }
        }
    }
}
