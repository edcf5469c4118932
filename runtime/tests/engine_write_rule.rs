//! One SHACL semantics on every validated write (docs/validation.md): a Turtle DNA's
//! constraints that are not typed are enforced by the SHACL Core engine, in validate_perspective
//! and in every validated write alike.

mod common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};
use shacl_mcp::engine::FixedDna;

const EX: &str = "https://example.org/events#";

fn events() -> Setup {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/core-dna/events.ttl");
    let fixed = match FixedDna::load(&[path]) {
        Ok((dna, _)) => dna,
        Err(diags) => panic!("{diags}"),
    };
    setup_with(fixed)
}

/// `(focus, path, constraint)` of every Violation of validate_perspective.
fn violations(s: &Setup, p: &str) -> Vec<(String, String, String)> {
    let report = s.engine.validate_perspective(p, None).expect("validate_perspective");
    let text = |v: &Value| v.as_str().unwrap_or("null").to_string();
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["severity"] == "sh:Violation")
        .map(|r| (text(&r["focus_node"]), text(&r["path"]), text(&r["constraint"])))
        .collect()
}

#[test]
fn the_dna_loads_and_its_classes_know_what_the_engine_enforces() {
    let s = events();
    let classes: Vec<(&str, usize)> = s
        .engine
        .fixed()
        .classes()
        .iter()
        .map(|c| (c.name.as_str(), c.enforced.len()))
        .collect();
    assert_eq!(
        classes.iter().map(|c| c.0).collect::<Vec<_>>(),
        ["Person", "Venue", "Event", "Tag"]
    );
    assert!(classes[0].1 > 0 && classes[2].1 > 0 && classes[3].1 > 0, "{classes:?}");
    assert_eq!(classes[1].1, 0, "Venue is typed-only");
}

#[test]
fn validate_perspective_runs_the_shapes_graph() {
    let s = events();
    let p = s.perspective("Events");
    let e = format!("{EX}e1");
    s.engine
        .add_link(
            &p,
            &e,
            "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
            &format!("{EX}Event"),
            false,
        )
        .unwrap();
    s.engine
        .add_link(&p, &e, &format!("{EX}title"), "literal:string:TBD", false)
        .unwrap();
    s.engine
        .add_link(
            &p,
            &e,
            &format!("{EX}start"),
            "literal:string:2026-12-24T10%3A00%3A00Z",
            false,
        )
        .unwrap();
    s.engine
        .add_link(&p, &e, &format!("{EX}online"), "literal:boolean:true", false)
        .unwrap();
    s.engine
        .add_link(&p, &e, &format!("{EX}free"), "literal:boolean:true", false)
        .unwrap();
    let found = violations(&s, &p);
    assert_eq!(
        found,
        [(e.clone(), format!("{EX}title"), "sh:NotConstraintComponent".to_string())],
        "{found:?}"
    );
}

/// Every link of the perspective, as `query_links` answers (to compare before and after a refusal).
fn all_links(s: &Setup, p: &str) -> String {
    let v = s.engine.query_links(p, Default::default(), Some(1000), None).unwrap();
    serde_json::to_string(&v).unwrap()
}

/// `(property, constraint, focus_node)` of every entry of a refusal.
fn refused(r: Result<Value, shacl_mcp::engine::ToolError>) -> Vec<(String, String, String)> {
    let json = error_json(r);
    json["validation_errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no envelope: {json}"))
        .iter()
        .map(|e| {
            assert!(e["fix"].is_string(), "every engine problem says what to do: {e}");
            let text = |k: &str| e[k].as_str().unwrap_or("-").to_string();
            (text("property"), text("constraint"), text("focus_node"))
        })
        .collect()
}

fn row(property: &str, component: &str, focus: &str) -> (String, String, String) {
    (
        property.to_string(),
        format!("sh:{component}ConstraintComponent"),
        focus.to_string(),
    )
}

fn event(title: &str) -> Value {
    json!({ "title": title, "start": "2026-12-24T10:00:00Z", "end": "2026-12-24T12:00:00Z", "free": true, "online": true })
}

fn person(s: &Setup, p: &str, name: &str, age: i64) -> String {
    s.created(
        p,
        "Person",
        json!({ "name": name, "age": age, "email": format!("{}@example.org", name.to_lowercase()) }),
    )
}

#[test]
fn a_create_that_breaks_an_engine_constraint_is_refused_and_writes_nothing() {
    let s = events();
    let p = s.perspective("Events");
    let before = all_links(&s, &p);
    let id = s.next_id();
    let r = s.create(&p, "Event", event("TBD"));
    assert_eq!(refused(r), [row("title", "Not", &id)]);
    assert_eq!(all_links(&s, &p), before);

    let mut late = event("Party");
    late["end"] = json!("2026-12-24T09:00:00Z");
    late["free"] = Value::Null;
    late.as_object_mut().unwrap().remove("free");
    let id = s.next_id();
    let found = refused(s.create(&p, "Event", late));
    assert_eq!(found, [row("(instance)", "Xone", &id), row("start", "LessThan", &id)]);
    assert_eq!(all_links(&s, &p), before);

    s.created(&p, "Event", event("Party"));
    assert!(violations(&s, &p).is_empty());
}

/// docs/errors.md, One list of problems: a typed problem does not hide the engine's, and the
/// engine's result on a property the typed checks refused is not reported twice.
#[test]
fn typed_and_engine_problems_come_back_in_one_list() {
    let s = events();
    let p = s.perspective("Events");
    let before = all_links(&s, &p);
    let mut e = event("TBD");
    e["capacity"] = json!("lots");
    let id = s.next_id();
    assert_eq!(
        refused(s.create(&p, "Event", e)),
        [row("capacity", "Datatype", "-"), row("title", "Not", &id)]
    );
    assert_eq!(all_links(&s, &p), before, "nothing written");

    let party = s.created(&p, "Event", event("Party"));
    let before = all_links(&s, &p);
    let change = obj(json!({ "title": "TBD", "end": "soon" }));
    let r = s.engine.instance_update(&p, "Event", &party, change.as_ref(), &[]);
    assert_eq!(refused(r), [row("end", "Datatype", "-"), row("title", "Not", &party)]);
    assert_eq!(all_links(&s, &p), before, "nothing written");
}

#[test]
fn a_write_that_breaks_another_nodes_shape_is_refused_naming_that_node() {
    let s = events();
    let p = s.perspective("Events");
    let ann = person(&s, &p, "Ann", 40);
    for title in ["One", "Two"] {
        let mut e = event(title);
        e["organizer"] = json!(ann);
        s.created(&p, "Event", e);
    }
    // Inverse path on Person: a third event organized by Ann breaks Ann's shape.
    let mut third = event("Three");
    third["organizer"] = json!(ann);
    let before = all_links(&s, &p);
    assert_eq!(
        refused(s.create(&p, "Event", third)),
        [row("^<https://example.org/events#organizer>", "MaxCount", &ann)]
    );
    assert_eq!(all_links(&s, &p), before);

    // Sequence path on Event: Ann's age read through each event she organizes.
    let r = s
        .engine
        .instance_update(&p, "Person", &ann, obj(json!({ "age": 12 })).as_ref(), &[]);
    let found = refused(r);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found
            .iter()
            .all(|(_, c, f)| c == "sh:MinInclusiveConstraintComponent" && f != &ann)
    );
    assert_eq!(all_links(&s, &p), before);
    assert!(violations(&s, &p).is_empty());
}

#[test]
fn results_already_there_are_reported_not_held_against_an_unrelated_write() {
    let s = events();
    let p = s.perspective("Events");
    let e = s.created(&p, "Event", event("Party"));
    // Unvalidated: a second closing time, before the start.
    s.engine
        .add_link(
            &p,
            &e,
            &format!("{EX}end"),
            "literal:string:2026-12-24T08%3A00%3A00Z",
            false,
        )
        .unwrap();
    assert_eq!(violations(&s, &p).len(), 2);
    let done = s
        .engine
        .instance_update(&p, "Event", &e, obj(json!({ "capacity": 10 })).as_ref(), &[])
        .expect("an unrelated write is accepted");
    let old = done["preexisting_violations"]
        .as_array()
        .expect("reported beside the outcome");
    let constraints: Vec<&str> = old.iter().map(|r| r["constraint"].as_str().unwrap()).collect();
    assert_eq!(
        constraints,
        ["sh:LessThanConstraintComponent", "sh:MaxCountConstraintComponent"]
    );
}

#[test]
fn warnings_come_back_inside_the_success_result() {
    let s = events();
    let p = s.perspective("Events");
    let r = s
        .create(&p, "Person", json!({ "name": "Bartholomew Featherstonehaugh" }))
        .expect("a warning does not refuse");
    let warnings = r["validation_warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0]["severity"], "sh:Warning");
    assert_eq!(warnings[0]["constraint"], "sh:MaxLengthConstraintComponent");
}

#[test]
fn typed_only_classes_pay_nothing_on_create() {
    // Chat is typed-only: a create records nothing and checks nothing beyond the typed checks.
    let s = setup(&["chat.json"]);
    let p = s.perspective("Chat");
    let r = s.create(&p, "Channel", json!({ "name": "general" })).unwrap();
    assert!(r.get("validation_warnings").is_none() && r.get("preexisting_violations").is_none());
}
