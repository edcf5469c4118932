//! docs/tools.md's example (tasks.json), exact, with a fixed clock and seeded ids; and
//! docs/errors.md's envelope example (chat.json), byte for byte.

mod common;

use common::*;
use serde_json::json;
use shacl_mcp::clock::IdSource;
use shacl_mcp::engine::QueryArgs;

#[test]
fn the_tool_surface_example() {
    let s = setup(&["tasks.json"]);
    let result = s.engine.add_perspective("Team").unwrap();
    let p = s.ids.mint_uuid();
    assert_eq!(result, json!({ "success": true, "uuid": p, "name": "Team" }));

    let assignee = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    let t = s.next_id();
    let created = s
        .create(&p, "Task", json!({ "title": "Review MCP docs", "assignee": assignee }))
        .unwrap();
    assert_eq!(
        created,
        json!({ "created": true, "class_name": "Task", "base_uri": t, "properties_set": ["title", "assignee"] })
    );

    let tagged = s
        .engine
        .instance_add_to_collection(&p, "Task", &t, "tags", &json!("documentation"))
        .unwrap();
    assert_eq!(
        tagged,
        json!({ "success": true, "class_name": "Task", "base_uri": t, "collection": "tags", "links_added": 1 })
    );

    let args = QueryArgs {
        filter: obj(json!({ "status": "open" })),
        ..QueryArgs::default()
    };
    let found = s.engine.instance_query(&p, "Task", &args).unwrap();
    assert_eq!(
        serde_json::to_string(&found).unwrap(),
        serde_json::to_string(
            &json!({ "class_name": "Task", "count": 1, "total_count": 1, "instances": [ {
            "id": t, "baseExpression": t,
            "title": "Review MCP docs", "status": "open", "assignee": assignee, "tags": ["documentation"],
            "createdAt": T0, "updatedAt": T0, "author": s.did(), "timestamp": T0 } ] })
        )
        .unwrap()
    );
}

#[test]
fn the_errors_md_envelope() {
    let s = setup(&["chat.json"]);
    let p = s.perspective("Chat");
    let before = s.links(&p);
    let e = error_json(s.create(&p, "Channel", json!({ "isPinned": "maybe" })));
    let expected = json!({
      "error": "Validation failed for class 'Channel' (2 problems): name: missing required property (expected string, exactly one value (minCount 1, maxCount 1)); isPinned: expects true or false (expected boolean, at most one value (maxCount 1)), received string \"maybe\"",
      "class_name": "Channel",
      "validation_errors": [
        { "property": "name", "problem": "missing required property", "expected_type": "string", "cardinality": "exactly one value (minCount 1, maxCount 1)", "constraint": "sh:MinCountConstraintComponent", "fix": "add values until there are enough" },
        { "property": "isPinned", "problem": "expects true or false", "expected_type": "boolean", "cardinality": "at most one value (maxCount 1)", "received": "string \"maybe\"", "constraint": "sh:DatatypeConstraintComponent", "fix": "give a value of the datatype the shape names" }
      ],
      "hint": "Call describe_perspective for the full schema of this class."
    });
    assert_eq!(
        serde_json::to_string(&e).unwrap(),
        serde_json::to_string(&expected).unwrap()
    );
    assert_eq!(s.links(&p), before, "a failed validation writes nothing");
}
