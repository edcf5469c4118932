//! Blank nodes through the tools (docs/data-model.md): a node spelled `_:label` is a blank node
//! in links, in the graph the SHACL engine judges and in SPARQL; `sh:nodeKind` decides which
//! properties take one, and an instance id may be one.

mod common;

use common::*;
use serde_json::json;
use shacl_mcp::compiler::parse::Format;
use shacl_mcp::engine::FixedDna;

const DNA: &str = r#"
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix ex: <http://example.org/> .
ex:ItemShape a sh:NodeShape ; sh:targetClass ex:Item ;
    sh:property [ sh:path ex:part ; sh:nodeKind sh:BlankNode ; sh:maxCount 1 ] ;
    sh:property [ sh:path ex:link ; sh:nodeKind sh:IRI ; sh:maxCount 1 ] ;
    sh:property [ sh:path ex:either ; sh:nodeKind sh:BlankNodeOrIRI ; sh:maxCount 1 ] ;
    sh:property [ sh:path ex:note ; sh:maxCount 1 ] .
"#;

fn items() -> Setup {
    let source = [(DNA.to_string(), "items.ttl".to_string(), Format::Turtle)];
    let (fixed, _) = FixedDna::from_sources(&source).unwrap_or_else(|d| panic!("{d}"));
    setup_with(fixed)
}

#[test]
fn node_kinds_take_the_nodes_they_name() {
    let s = items();
    let p = s.perspective("Items");
    let ok = s.create(
        &p,
        "Item",
        json!({"part": "_:p1", "link": "http://example.org/x", "either": "_:e1"}),
    );
    assert!(ok.is_ok(), "{ok:?}");
    // Each kind refuses the other node, all at once, and the refused write changes nothing.
    let before = s.links(&p);
    let refused = problems(s.create(&p, "Item", json!({"part": "http://example.org/x", "link": "_:b2"})));
    let named: Vec<&str> = refused.iter().map(|(property, _)| property.as_str()).collect();
    assert_eq!(named, ["part", "link"], "{refused:?}");
    assert_eq!(s.links(&p), before);
    // A text is neither.
    assert!(s.create(&p, "Item", json!({"either": "not a node"})).is_err());
}

#[test]
fn a_blank_node_reads_back_and_is_one_node_in_sparql() {
    let s = items();
    let p = s.perspective("Items");
    let id = "_:item1";
    let created = s
        .engine
        .instance_create(
            &p,
            "Item",
            &obj(json!({"part": "_:p1", "note": {"@id": "_:n1"}})).unwrap(),
            Some(id),
            None,
        )
        .unwrap();
    assert_eq!(created["base_uri"], id);
    let got = s.engine.instance_get(&p, "Item", id).unwrap();
    assert_eq!(got["part"], "_:p1", "{got}");
    assert_eq!(got["note"], json!({"@id": "_:n1"}), "{got}");
    let answer = s
        .engine
        .sparql_query(
            &p,
            "SELECT ?part WHERE { ?i <http://example.org/part> ?part . ?i a <http://example.org/Item> }",
            None,
            None,
        )
        .unwrap();
    let binding = &answer["results"]["bindings"][0]["part"];
    assert_eq!(binding["type"], "bnode", "{answer}");
    // The engine validates the blank instance as any other.
    let report = s.engine.validate_perspective(&p, Some("Item")).unwrap();
    assert_eq!(report["conforms"], true, "{report}");
}
