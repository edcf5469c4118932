//! validate_perspective: the SHACL report over a perspective's links, links from add_link
//! included; and the promise that a constraint means the same in a write and in a report.

mod common;

use std::sync::Arc;

use common::*;
use serde_json::{Value, json};
use shacl_mcp::mcp::auth::Caller;
use shacl_mcp::mcp::{McpServer, ServerOptions};

const TYPE: &str = "rdf://type";
const DID: &str = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

fn report(s: &Setup, p: &str, class: Option<&str>) -> Value {
    s.engine.validate_perspective(p, class).expect("validate_perspective")
}

fn link(s: &Setup, p: &str, source: &str, predicate: &str, target: &str) {
    s.engine
        .add_link(p, source, predicate, target, false)
        .expect("add_link");
}

/// `(focus, path, value, constraint)` of every result.
fn results(report: &Value) -> Vec<(String, String, String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or("null").to_string();
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                text(&r["focus_node"]),
                text(&r["path"]),
                text(&r["value"]),
                text(&r["constraint"]),
            )
        })
        .collect()
}

fn row(focus: &str, path: &str, value: &str, constraint: &str) -> (String, String, String, String) {
    (
        focus.into(),
        path.into(),
        value.into(),
        format!("sh:{constraint}ConstraintComponent"),
    )
}

#[test]
fn instances_written_by_the_tools_conform() {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("Team");
    let t = s.created(&p, "Task", json!({ "title": "Write", "priority": 3, "dueDate": "2026-12-31T17:00:00+01:00", "estimateHours": 2, "assignee": DID, "tags": ["a", "b"] }));
    s.created(&p, "TodoList", json!({ "name": "Week", "items": [t] }));
    assert_eq!(
        report(&s, &p, None),
        json!({ "conforms": true, "result_count": 0, "results": [] })
    );
}

#[test]
fn links_written_around_the_classes_are_reported() {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("Team");
    let t = s.created(&p, "Task", json!({ "title": "Write" }));
    link(&s, &p, &t, "todo://priority", "literal:number:9");
    link(&s, &p, &t, "todo://title", "literal:string:Second%20title");
    link(&s, &p, &t, "todo://due", "literal:string:tomorrow");
    // An instance by its marker alone: no title.
    link(&s, &p, "app://bare", TYPE, "todo://Task");
    let l = s.created(&p, "TodoList", json!({ "name": "Week" }));
    link(&s, &p, &l, "todo://item", "app://not-a-task");

    let all = report(&s, &p, None);
    assert_eq!(all["conforms"], false);
    let mut got = results(&all);
    got.sort();
    let mut expected = vec![
        row(&t, "todo://title", "null", "MaxCount"),
        row(&t, "todo://priority", "literal:number:9", "MaxInclusive"),
        row(&t, "todo://due", "literal:string:tomorrow", "Datatype"),
        row("app://bare", "todo://title", "null", "MinCount"),
        row(&l, "todo://item", "app://not-a-task", "Node"),
    ];
    expected.sort();
    assert_eq!(got, expected);
    assert_eq!(all["result_count"], 5);

    let first = all["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["constraint"] == "sh:MaxInclusiveConstraintComponent")
        .unwrap();
    assert_eq!(
        first,
        &json!({ "focus_node": t, "path": "todo://priority", "value": "literal:number:9",
                 "constraint": "sh:MaxInclusiveConstraintComponent", "severity": "sh:Violation",
                 "message": "out of range: must be <= 5", "shape": "todo://TaskShape#priority" })
    );
    let item = all["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["constraint"] == "sh:NodeConstraintComponent")
        .unwrap();
    assert_eq!(item["message"], "not a Task: the node is not an instance of Task");

    // One class only.
    let lists = report(&s, &p, Some("todolist"));
    assert_eq!(results(&lists), [row(&l, "todo://item", "app://not-a-task", "Node")]);
}

#[test]
fn unknown_perspective_or_class_is_refused() {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("Team");
    let missing = error_json(s.engine.validate_perspective("nope", None));
    assert_eq!(missing["error"], "Perspective 'nope' not found");
    let unknown = error_json(s.engine.validate_perspective(&p, Some("Nope")));
    assert!(
        unknown["error"].as_str().unwrap().starts_with("Unknown class 'Nope'"),
        "{unknown}"
    );
}

/// For each property and value: the write accepts it exactly when the report, over the same
/// value written as a raw link, has no result for that property.
#[test]
fn a_write_and_a_report_agree() {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("Team");
    let cases: Vec<(&str, &str, Vec<Value>)> = vec![
        (
            "priority",
            "todo://priority",
            vec![
                json!(1),
                json!(5),
                json!(3.0),
                json!(0),
                json!(6),
                json!(3.5),
                json!("3"),
                json!(true),
            ],
        ),
        (
            "estimateHours",
            "todo://estimate",
            vec![json!(0), json!(2.5), json!(1e300), json!(-1), json!(-0.5), json!("x")],
        ),
        (
            "status",
            "todo://status",
            vec![json!("open"), json!("done"), json!("closed"), json!(3)],
        ),
        (
            "assignee",
            "todo://assignee",
            vec![json!(DID), json!("did:key:nope"), json!("not an iri")],
        ),
        (
            "dueDate",
            "todo://due",
            vec![
                json!("2026-12-31T17:00:00+01:00"),
                json!("2026-12-31T17:00:00"),
                json!("2026-02-30T00:00:00Z"),
                json!("tomorrow"),
            ],
        ),
        ("title", "todo://title", vec![json!(""), json!("ü ✓"), json!(7)]),
    ];
    for (n, (property, path, values)) in cases.into_iter().enumerate() {
        for (i, value) in values.into_iter().enumerate() {
            let mut properties = json!({ "title": "t" });
            properties[property] = value.clone();
            let accepted = s.create(&p, "Task", properties).is_ok();

            let node = format!("app://raw/{n}/{i}");
            link(&s, &p, &node, TYPE, "todo://Task");
            if property != "title" {
                link(&s, &p, &node, "todo://title", "literal:string:t");
            }
            let target = match (&value, property) {
                (Value::String(iri), "assignee") => iri.clone(),
                _ => shacl_mcp::compiler::literal::from_json(&value).unwrap(),
            };
            link(&s, &p, &node, path, &target);
            let all = report(&s, &p, Some("Task"));
            let flagged: Vec<_> = results(&all)
                .into_iter()
                .filter(|(focus, at, _, _)| *focus == node && at == path)
                .collect();
            assert_eq!(
                accepted,
                flagged.is_empty(),
                "{property} = {value}: the write {} it, the report says {flagged:?}",
                if accepted { "accepts" } else { "refuses" }
            );
        }
    }
}

#[tokio::test]
async fn the_tool_answers_through_mcp_with_its_output_schema() {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("Team");
    let t = s.created(&p, "Task", json!({ "title": "Write" }));
    link(&s, &p, &t, "todo://priority", "literal:number:9");
    let Setup { engine, .. } = s;
    let server = McpServer::new(Arc::new(engine), ServerOptions::default());
    let tool = server
        .visible_tools(Caller::Stdio)
        .into_iter()
        .find(|t| t.name == "validate_perspective")
        .expect("validate_perspective is listed");
    assert_eq!(tool.annotations.as_ref().and_then(|a| a.read_only_hint), Some(true));
    let schema = Value::Object((*tool.output_schema.clone().expect("an outputSchema")).clone());
    let validator = jsonschema::validator_for(&schema).unwrap();
    let result = server
        .call(
            "validate_perspective",
            obj(json!({ "perspective_id": p })),
            Caller::Stdio,
        )
        .await
        .expect("a tool result");
    assert_ne!(result.is_error, Some(true));
    let structured = result.structured_content.clone().expect("structuredContent");
    assert!(validator.is_valid(&structured), "{structured}");
    assert_eq!(structured["result_count"], 1);
    let bad = server
        .call(
            "validate_perspective",
            obj(json!({ "perspective_id": p, "extra": 1 })),
            Caller::Stdio,
        )
        .await
        .expect("a tool result");
    assert_eq!(bad.is_error, Some(true));
}
