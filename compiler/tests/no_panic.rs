//! Property tests: no input makes the parsers or `check` panic.

use proptest::prelude::*;
use serde_json::{Value, json};
use shacl_mcp_compiler::load_str;
use shacl_mcp_compiler::parse::Format;

const KEYS: &[&str] = &[
    "path",
    "name",
    "datatype",
    "min_count",
    "max_count",
    "collection",
    "writable",
    "setter",
    "adder",
    "node_kind",
    "class",
    "relation_kind",
    "target_class_name",
    "in",
    "pattern",
    "flags",
    "min_length",
    "max_length",
    "min_inclusive",
    "max_exclusive",
    "has_value",
    "getter",
    "identity",
    "local",
    "bogus",
];
const STRINGS: &[&str] = &[
    "xsd:string",
    "xsd:integer",
    "xsd:dateTime",
    "xsd:nope",
    "sh:IRI",
    "Literal",
    "hasMany",
    "belongsToOne",
    "app://A",
    "app://AShape",
    "app://B",
    "A",
    "B",
    "this",
    "value",
    "name",
    "id",
    "^[a-z]+$",
    "(",
    "i",
    "q",
    "",
    "addLink",
    "setSingleTarget",
    "rdf://type",
    "literal:string:x",
    "Café",
    "self",
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..12).prop_map(Value::from),
        (-2.5f64..30.0).prop_map(Value::from),
        prop::sample::select(STRINGS).prop_map(Value::from),
    ]
}

fn action() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(STRINGS),
        prop::sample::select(STRINGS),
        prop::sample::select(STRINGS),
    )
        .prop_map(|(a, p, t)| json!({"action": a, "source": "this", "predicate": p, "target": t}))
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec(action(), 0..3).prop_map(Value::from),
            inner.prop_map(|v| json!({"value": v})),
        ]
    })
}

fn property() -> impl Strategy<Value = Value> {
    prop::collection::vec((prop::sample::select(KEYS), value()), 0..8).prop_map(|pairs| {
        let mut o: serde_json::Map<String, Value> = pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        if o.len().is_multiple_of(2) {
            o.insert("path".into(), "app://p".into());
        }
        Value::Object(o)
    })
}

fn class() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(&["app://A", "app://B", "app://Instance", "A", "app://Café"][..]),
        prop::collection::vec(property(), 0..5),
        prop::option::of(prop::collection::vec(action(), 0..3)),
        prop::option::of(prop::sample::select(&["app://AShape", "app://BShape", "x"][..])),
    )
        .prop_map(|(target, properties, constructor, parent)| {
            let mut o = json!({"target_class": target, "properties": properties});
            if let Some(c) = constructor {
                o["constructor"] = c.into();
            }
            if let Some(p) = parent {
                o["parent_shapes"] = json!([p]);
            }
            o
        })
}

const STATES: &[&str] = &["a", "b", "B", "in progress", "9", "", "self"];

/// A flow with random states, transitions, guards and rules over class `A`.
fn flow() -> impl Strategy<Value = Value> {
    let state = (
        prop::sample::select(STATES),
        prop::option::of(scalar()),
        prop::option::of(value()),
        prop::option::of(value()),
    )
        .prop_map(|(name, v, filter, rule)| {
            let mut o = json!({ "name": name });
            if let Some(v) = v {
                o["value"] = v;
            }
            if let Some(f) = filter {
                o["requires"] = json!([{ "class_name": "A", "where": { "name": f, "id": "$flow.subject" }, "count": { "min": 0 } }]);
            }
            if let Some(r) = rule {
                o["consensus"] = json!({ "n": r, "from_role": { "class_name": "A", "did_property": "name" } });
            }
            o
        });
    let transition = (
        prop::sample::select(STRINGS),
        prop::sample::select(STATES),
        prop::sample::select(STATES),
        prop::collection::vec(action(), 0..2),
    )
        .prop_map(|(name, from, to, actions)| {
            json!({ "action_name": name, "from_state": from, "to_state": to, "actions": actions })
        });
    (
        prop::sample::select(&["Feeding", "", "a b", "Flow"][..]),
        prop::collection::vec(state, 0..4),
        prop::collection::vec(transition, 0..4),
        prop::option::of(value()),
    )
        .prop_map(|(name, states, transitions, input_types)| {
            let mut o = json!({ "name": name, "namespace": "app://", "states": states, "transitions": transitions });
            if let Some(types) = input_types {
                o["input_types"] = types;
            }
            o
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_flows_never_panic(flows in prop::collection::vec(flow(), 0..3)) {
        let a = json!({ "target_class": "app://A", "properties": [
            { "path": "app://name", "name": "name", "datatype": "xsd:string", "max_count": 1, "writable": true } ] });
        let text = json!({ "name": "random", "classes": [a], "flows": flows }).to_string();
        let (dna, diags) = load_str(&text, "random.json", Format::Json);
        prop_assert_eq!(dna.is_some(), !diags.has_errors());
    }

    #[test]
    fn random_shaped_dnas_never_panic(classes in prop::collection::vec(class(), 0..4)) {
        let text = json!({"name": "random", "classes": classes}).to_string();
        let (dna, diags) = load_str(&text, "random.json", Format::Json);
        prop_assert_eq!(dna.is_some(), !diags.has_errors());
    }

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,400}") {
        let _ = load_str(&text, "random.json", Format::Json);
        let _ = load_str(&text, "random.ttl", Format::Turtle);
    }

    #[test]
    fn mutated_samples_never_panic(cut in 0usize..10_000, insert in prop::sample::select(&["{", "}", "[", "]", ",", "\"", ":", ";", ".", " a ", "<", "@prefix"][..])) {
        for (file, format) in [
            ("chat.json", Format::Json),
            ("zoo.json", Format::Json),
            ("tasks-flow.json", Format::Json),
            ("chat.ttl", Format::Turtle),
        ] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dna").join(file);
            let mut text = std::fs::read_to_string(path).unwrap();
            let at = cut % (text.len() + 1);
            let at = (0..=at).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
            text.insert_str(at, insert);
            let _ = load_str(&text, file, format);
        }
    }
}
