//! One SHACL semantics on every validated write (docs/validation.md): a Turtle DNA's
//! constraints that are not typed are enforced by the SHACL Core engine, in validate_perspective
//! and in every validated write alike.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::*;
use serde_json::{Value, json};
use shacl_mcp::clock::{FixedClock, SeededIds};
use shacl_mcp::engine::{Engine, FixedDna};

const EX: &str = "https://example.org/events#";

fn events() -> Setup {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/core-dna/events.ttl");
    let fixed = match FixedDna::load(&[path]) {
        Ok((dna, _)) => dna,
        Err(diags) => panic!("{diags}"),
    };
    let clock = Arc::new(FixedClock::at("2026-12-24T10:00:00Z").unwrap());
    let store = fresh_store(clock.clone());
    Setup {
        engine: Engine::new(store.links, fixed, Arc::new(SeededIds::new(SEED))),
        clock,
        ids: SeededIds::new(SEED),
    }
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
    let _ = json!(null);
}
