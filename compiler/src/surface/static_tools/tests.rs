//! The static tools against docs/tools.md: order, schema rules, JSON Schema validity, examples.

use serde_json::{Map, Value, json};

use super::static_tools;
use crate::surface::{SurfaceOptions, ToolAnnotations, ToolSpec};

const BEFORE_ACCOUNTS: [&str; 21] = [
    "list_perspectives",
    "add_perspective",
    "add_link",
    "query_links",
    "sparql_query",
    "changes_since",
    "add_model",
    "describe_perspective",
    "instance_create",
    "instance_query",
    "instance_get",
    "instance_update",
    "instance_add_to_collection",
    "instance_remove_from_collection",
    "instance_remove",
    "add_child",
    "get_children",
    "execute_commands",
    "get_my_did",
    "auth_status",
    "get_documentation",
];
const ACCOUNTS: [&str; 4] = [
    "signup",
    "login_email",
    "request_login_verification",
    "verify_email_code",
];

/// Every keyword a static tool's schema may use.
const KEYWORDS: [&str; 12] = [
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "minimum",
    "maximum",
    "minItems",
    "default",
    "format",
];

/// Every tool there is: multi-user mode lists them all.
fn all_tools() -> Vec<ToolSpec> {
    static_tools(SurfaceOptions {
        class_tools: false,
        multi_user: true,
    })
}

fn find(name: &str) -> ToolSpec {
    all_tools()
        .into_iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// Every schema of a schema, its own included, with a path: `.prop`, `[]` for items, `.*` for
/// additionalProperties.
fn subschemas(schema: &Value) -> Vec<(String, &Value)> {
    fn walk<'a>(schema: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
        out.push((path.clone(), schema));
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (name, sub) in props {
                walk(sub, format!("{path}.{name}"), out);
            }
        }
        if let Some(items) = schema.get("items") {
            walk(items, format!("{path}[]"), out);
        }
        if let Some(extra) = schema.get("additionalProperties").filter(|v| v.is_object()) {
            walk(extra, format!("{path}.*"), out);
        }
    }
    let mut out = Vec::new();
    walk(schema, String::new(), &mut out);
    out
}

/// Both schemas of every tool, named `tool input` / `tool output`.
fn all_schemas() -> Vec<(String, Value)> {
    all_tools()
        .into_iter()
        .flat_map(|t| {
            [
                (format!("{} input", t.name), t.input_schema),
                (format!("{} output", t.name), t.output_schema),
            ]
        })
        .collect()
}

fn has_type(schema: &Value, ty: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == ty,
        Some(Value::Array(ts)) => ts.iter().any(|t| t == ty),
        _ => false,
    }
}

fn names(tools: &[ToolSpec]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_str()).collect()
}

/// The flow tools, last (docs/flows.md).
const FLOWS: [&str; 6] = [
    "get_flows",
    "add_flow",
    "flow_start",
    "flow_state",
    "flow_actions",
    "flow_run_action",
];

#[test]
fn tools_come_in_the_order_of_the_spec() {
    let single: Vec<&str> = BEFORE_ACCOUNTS
        .iter()
        .copied()
        .chain(["forget", "validate_perspective"])
        .chain(FLOWS)
        .collect();
    let multi: Vec<&str> = BEFORE_ACCOUNTS
        .iter()
        .chain(&ACCOUNTS)
        .copied()
        .chain(["forget", "validate_perspective"])
        .chain(FLOWS)
        .collect();
    for class_tools in [false, true] {
        let tools = static_tools(SurfaceOptions {
            class_tools,
            multi_user: false,
        });
        assert_eq!(names(&tools), single);
        let tools = static_tools(SurfaceOptions {
            class_tools,
            multi_user: true,
        });
        assert_eq!(names(&tools), multi);
    }
}

#[test]
fn class_tools_option_changes_nothing_and_output_is_deterministic() {
    for multi_user in [false, true] {
        let off = static_tools(SurfaceOptions {
            class_tools: false,
            multi_user,
        });
        let on = static_tools(SurfaceOptions {
            class_tools: true,
            multi_user,
        });
        assert_eq!(off, on);
        assert_eq!(
            off,
            static_tools(SurfaceOptions {
                class_tools: false,
                multi_user
            })
        );
    }
}

#[test]
fn input_schemas_are_closed_objects_of_typed_described_properties() {
    for tool in all_tools() {
        let schema = &tool.input_schema;
        let keys: Vec<&str> = schema.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["type", "properties", "required", "additionalProperties"],
            "{}",
            tool.name
        );
        assert_eq!(schema["type"], "object", "{}", tool.name);
        assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
        for (name, property) in schema["properties"].as_object().unwrap() {
            assert!(property.get("type").is_some(), "{}.{name} has no type", tool.name);
            let description = property["description"].as_str().unwrap_or_default();
            assert!(!description.is_empty(), "{}.{name} has no description", tool.name);
        }
    }
}

#[test]
fn schemas_use_no_combinators_references_or_unknown_keywords() {
    for (name, schema) in all_schemas() {
        for (path, sub) in subschemas(&schema) {
            for key in sub.as_object().unwrap().keys() {
                assert!(KEYWORDS.contains(&key.as_str()), "{name}{path}: keyword {key}");
            }
        }
    }
}

#[test]
fn every_required_name_is_a_property() {
    for (name, schema) in all_schemas() {
        for (path, sub) in subschemas(&schema) {
            let Some(required) = sub.get("required") else { continue };
            let properties = sub["properties"].as_object().unwrap();
            let required: Vec<&str> = required
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            for (i, r) in required.iter().enumerate() {
                assert!(
                    properties.contains_key(*r),
                    "{name}{path}: required {r} is not a property"
                );
                assert!(!required[..i].contains(r), "{name}{path}: {r} required twice");
            }
        }
    }
}

#[test]
fn objects_with_fixed_keys_are_closed() {
    // Inputs: every object that names its keys is closed; the others are the open objects
    // whose keys depend on the class (or, for parameters, on the actions).
    let mut free_inputs = Vec::new();
    // Outputs: closed except where the keys depend on the class.
    let mut open_outputs = Vec::new();
    for tool in all_tools() {
        for (path, sub) in subschemas(&tool.input_schema) {
            if sub.get("properties").is_some() {
                assert_eq!(sub["additionalProperties"], false, "{} input{path}", tool.name);
            } else if has_type(sub, "object") {
                free_inputs.push(format!("{}{path}", tool.name));
            }
        }
        for (path, sub) in subschemas(&tool.output_schema) {
            if sub.get("properties").is_some() && sub.get("additionalProperties") != Some(&json!(false)) {
                open_outputs.push(format!("{}{path}", tool.name));
            }
        }
    }
    assert_eq!(
        free_inputs,
        [
            "add_model.shacl_json",
            "instance_create.properties",
            "instance_query.filter",
            "instance_update.properties",
            "execute_commands.parameters",
            "add_flow.flow",
        ]
    );
    assert_eq!(
        open_outputs,
        [
            "describe_perspective.classes[]",
            "describe_perspective.classes[].properties[]",
            "describe_perspective.classes[].collections[]",
            "instance_query.instances[]",
            "instance_get",
            "forget.erased",
        ]
    );
}

#[test]
fn output_schemas_are_objects_naming_required_keys() {
    for tool in all_tools() {
        let schema = &tool.output_schema;
        assert_eq!(schema["type"], "object", "{}", tool.name);
        assert!(schema["properties"].is_object(), "{}", tool.name);
        assert!(schema["required"].is_array(), "{}", tool.name);
    }
}

#[test]
fn every_schema_is_valid_json_schema_2020_12() {
    // The check can fail: a bad type, a negative minItems.
    assert!(!jsonschema::draft202012::meta::is_valid(&json!({ "type": "text" })));
    assert!(!jsonschema::draft202012::meta::is_valid(
        &json!({ "type": "array", "minItems": -1 })
    ));
    for (name, schema) in all_schemas() {
        if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
            panic!("{name}: {error}");
        }
        if let Err(error) = jsonschema::draft202012::new(&schema) {
            panic!("{name}: {error}");
        }
    }
}

/// A value that the schema accepts, made from its required keys only.
fn minimal(schema: &Value) -> Value {
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    if has_type(schema, "object") {
        let mut out = Map::new();
        for name in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
            let name = name.as_str().unwrap();
            out.insert(name.to_string(), minimal(&schema["properties"][name]));
        }
        return Value::Object(out);
    }
    if has_type(schema, "array") {
        let n = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        return Value::Array(vec![minimal(&schema["items"]); n]);
    }
    if has_type(schema, "string") {
        json!("x")
    } else if has_type(schema, "integer") || has_type(schema, "number") {
        json!(1)
    } else if has_type(schema, "boolean") {
        json!(true)
    } else {
        Value::Null
    }
}

fn accepts(schema: &Value, value: &Value) -> bool {
    jsonschema::draft202012::new(schema).unwrap().is_valid(value)
}

#[test]
fn minimal_arguments_pass_and_an_extra_key_is_refused() {
    for tool in all_tools() {
        let args = minimal(&tool.input_schema);
        assert!(accepts(&tool.input_schema, &args), "{}: {args}", tool.name);
        let mut extra = args.clone();
        extra.as_object_mut().unwrap().insert("unexpected".into(), json!(1));
        assert!(
            !accepts(&tool.input_schema, &extra),
            "{}: extra key accepted",
            tool.name
        );
        let required = tool.input_schema["required"].as_array().unwrap();
        if let Some(first) = required.first() {
            let mut missing = args.clone();
            missing.as_object_mut().unwrap().remove(first.as_str().unwrap());
            assert!(
                !accepts(&tool.input_schema, &missing),
                "{}: missing {first} accepted",
                tool.name
            );
        }
    }
}

#[test]
fn example_arguments() {
    let p = "6f1c1b6e-0000-4000-8000-000000000001";
    let cases = [
        (
            "add_link",
            json!({"perspective_id": p, "source": "ad4m://self", "predicate": "app://likes", "target": "literal:string:tea", "local": true}),
            true,
        ),
        (
            "add_link",
            json!({"perspective_id": p, "source": "a:b", "predicate": "a:c", "target": "a:d", "local": "true"}),
            false,
        ),
        (
            "query_links",
            json!({"perspective_id": p, "source": "a:b", "limit": 1000, "offset": 0}),
            true,
        ),
        ("query_links", json!({"perspective_id": p, "limit": 1001}), false),
        ("query_links", json!({"perspective_id": p, "offset": -1}), false),
        (
            "add_model",
            json!({"perspective_id": p, "class_name": "Note", "shacl_json": "{\"target_class\": \"app://Note\"}"}),
            true,
        ),
        (
            "add_model",
            json!({"perspective_id": p, "class_name": "Note", "shacl_json": {"target_class": "app://Note", "properties": []}}),
            true,
        ),
        (
            "add_model",
            json!({"perspective_id": p, "class_name": "Note", "shacl_json": 3}),
            false,
        ),
        (
            "instance_create",
            json!({"perspective_id": p, "class_name": "Task", "properties": {"title": "Review MCP docs", "tags": ["a"]}, "parent": "ad4m://self"}),
            true,
        ),
        (
            "instance_create",
            json!({"perspective_id": p, "properties": {"title": "x"}}),
            false,
        ),
        (
            "instance_create",
            json!({"perspective_id": p, "class_name": "Task", "properties": ["title"]}),
            false,
        ),
        (
            "instance_query",
            json!({"perspective_id": p, "class_name": "Task", "filter": {"status": "open", "OR": [{"priority": {"gte": 3}}]}, "limit": 500, "order": "newest_first"}),
            true,
        ),
        (
            "instance_query",
            json!({"perspective_id": p, "class_name": "Task", "limit": 501}),
            false,
        ),
        (
            "instance_query",
            json!({"perspective_id": p, "class_name": "Task", "limit": 0}),
            false,
        ),
        (
            "instance_query",
            json!({"perspective_id": p, "class_name": "Task", "order": "random"}),
            false,
        ),
        (
            "instance_update",
            json!({"perspective_id": p, "class_name": "Task", "base_uri": "ad4m://obj/a", "unset": ["dueDate"]}),
            true,
        ),
        (
            "instance_update",
            json!({"perspective_id": p, "class_name": "Task", "base_uri": "ad4m://obj/a", "unset": "dueDate"}),
            false,
        ),
        (
            "instance_add_to_collection",
            json!({"perspective_id": p, "class_name": "Task", "base_uri": "ad4m://obj/a", "collection": "tags", "item_uri": "documentation"}),
            true,
        ),
        (
            "instance_remove_from_collection",
            json!({"perspective_id": p, "class_name": "Task", "base_uri": "ad4m://obj/a", "collection": "tags"}),
            false,
        ),
        (
            "get_children",
            json!({"perspective_id": p, "parent": "ad4m://self", "limit": 1000}),
            true,
        ),
        (
            "get_children",
            json!({"perspective_id": p, "parent": "ad4m://self", "limit": 1001}),
            false,
        ),
        (
            "get_children",
            json!({"perspective_id": p, "parent": "ad4m://self", "offset": 5}),
            false,
        ),
        (
            "execute_commands",
            json!({"perspective_id": p, "expression_address": "ad4m://obj/a", "commands": [{"action": "setSingleTarget", "source": "this", "predicate": "todo://status", "target": "value", "local": false}], "parameters": {"value": "literal:string:done"}}),
            true,
        ),
        (
            "execute_commands",
            json!({"perspective_id": p, "expression_address": "ad4m://obj/a", "commands": []}),
            false,
        ),
        (
            "execute_commands",
            json!({"perspective_id": p, "expression_address": "ad4m://obj/a", "commands": [{"action": "deleteLink", "source": "this", "predicate": "a:b", "target": "a:c"}]}),
            false,
        ),
        (
            "execute_commands",
            json!({"perspective_id": p, "expression_address": "ad4m://obj/a", "commands": [{"action": "addLink", "source": "this", "predicate": "a:b"}]}),
            false,
        ),
        (
            "execute_commands",
            json!({"perspective_id": p, "expression_address": "ad4m://obj/a", "commands": [{"action": "addLink", "source": "this", "predicate": "a:b", "target": "a:c", "extra": 1}]}),
            false,
        ),
        (
            "execute_commands",
            json!({"perspective_id": p, "expression_address": "ad4m://obj/a", "commands": "[]"}),
            false,
        ),
        (
            "verify_email_code",
            json!({"email": "ada@example.org", "code": "123456", "verification_type": "login"}),
            true,
        ),
        (
            "verify_email_code",
            json!({"email": "ada@example.org", "code": "123456", "verification_type": "reset"}),
            false,
        ),
        ("forget", json!({"perspective_id": p, "base_uri": "ad4m://obj/a"}), true),
        ("forget", json!({"perspective_id": p, "whole_perspective": true}), true),
        (
            "forget",
            json!({"perspective_id": p, "link": {"source": "a:b", "predicate": "a:c", "target": "a:d"}}),
            true,
        ),
        (
            "forget",
            json!({"perspective_id": p, "link": {"source": "a:b", "predicate": "a:c"}}),
            false,
        ),
        (
            "forget",
            json!({"perspective_id": p, "link": {"source": "a:b", "predicate": "a:c", "target": "a:d", "author": "x"}}),
            false,
        ),
        ("validate_perspective", json!({"perspective_id": p}), true),
        (
            "validate_perspective",
            json!({"perspective_id": p, "class_name": "Task"}),
            true,
        ),
        ("validate_perspective", json!({"class_name": "Task"}), false),
        (
            "validate_perspective",
            json!({"perspective_id": p, "class_name": 3}),
            false,
        ),
        ("list_perspectives", json!({}), true),
        ("list_perspectives", json!({"limit": 3}), false),
    ];
    for (name, args, ok) in cases {
        let tool = find(name);
        assert_eq!(accepts(&tool.input_schema, &args), ok, "{name}: {args}");
    }
}

#[test]
fn example_results_match_the_output_schemas() {
    let p = "<P>";
    let t = "ad4m://obj/abcdefghijklmnopqrstuvwx";
    let did = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    let at = "2026-01-05T10:00:00.000000Z";
    let link =
        json!({"source": "ad4m://self", "predicate": "ad4m://has_child", "target": t, "author": did, "timestamp": at});
    let task = json!({"id": t, "baseExpression": t, "title": "Review MCP docs", "status": "open", "assignee": did,
        "tags": ["documentation"], "createdAt": at, "updatedAt": at, "author": did, "timestamp": at});
    let cases = [
        (
            "list_perspectives",
            json!({"perspectives": [{"uuid": p, "name": "Team", "neighbourhood": null, "owner": did}]}),
            true,
        ),
        (
            "add_perspective",
            json!({"success": true, "uuid": p, "name": "Team"}),
            true,
        ),
        ("add_link", json!({"success": true, "link": link}), true),
        (
            "query_links",
            json!({"count": 1, "total_count": 3, "links": [link]}),
            true,
        ),
        (
            "add_model",
            json!({"success": true, "perspective_id": p, "class_name": "Note", "replaced": false}),
            true,
        ),
        (
            "describe_perspective",
            json!({"perspective_id": p, "name": "Team", "neighbourhood": null, "classes": [{
            "name": "Task", "class_uri": "todo://Task", "interpretation_hint": "A unit of work.",
            "properties": [{"name": "title", "type": "string", "required": true, "cardinality": {"min": 1, "max": 1},
                "predicate": "todo://title"},
                {"name": "dueDate", "type": "datetime", "format": "date-time", "required": false,
                "cardinality": {"min": 0, "max": 1}, "predicate": "todo://due", "resolve_language": "literal"}],
            "collections": [{"name": "tags", "type": "string", "required": false, "cardinality": {"min": 0, "max": null},
                "predicate": "todo://tag"}]}], "usage": "Pass a class's name as class_name."}),
            true,
        ),
        (
            "describe_perspective",
            json!({"perspective_id": p, "name": "Team", "neighbourhood": null, "classes": [{
            "name": "Task", "class_uri": "todo://Task", "properties": [{"name": "title", "type": "text",
            "required": true, "cardinality": {"min": 1, "max": 1}, "predicate": "todo://title"}], "collections": []}],
            "usage": "…"}),
            false,
        ),
        (
            "instance_create",
            json!({"created": true, "class_name": "Task", "base_uri": t, "properties_set": ["title", "assignee"]}),
            true,
        ),
        (
            "instance_create",
            json!({"created": true, "class_name": "Task", "base_uri": t, "properties_set": [],
            "collections_set": {"tags": ["documentation"]}, "parent": "ad4m://self", "added_to_parent": true}),
            true,
        ),
        (
            "instance_create",
            json!({"created": true, "class_name": "Task", "base_uri": t, "properties_set": [], "title": "x"}),
            false,
        ),
        (
            "instance_query",
            json!({"class_name": "Task", "count": 1, "total_count": 1, "instances": [task]}),
            true,
        ),
        ("instance_get", task.clone(), true),
        ("instance_get", json!({"id": t, "title": "x"}), false),
        (
            "instance_update",
            json!({"success": true, "class_name": "Task", "base_uri": t, "updated_properties": ["status"], "unset_properties": ["dueDate"]}),
            true,
        ),
        (
            "instance_add_to_collection",
            json!({"success": true, "class_name": "Task", "base_uri": t, "collection": "tags", "links_added": 1}),
            true,
        ),
        (
            "instance_add_to_collection",
            json!({"success": true, "class_name": "Task", "base_uri": t, "collection": "tags", "links_added": 0, "already_member": true}),
            true,
        ),
        (
            "instance_remove_from_collection",
            json!({"success": true, "class_name": "Task", "base_uri": t, "collection": "tags", "links_removed": 1}),
            true,
        ),
        (
            "instance_remove",
            json!({"success": true, "class_name": "Task", "deleted": t, "links_removed": 6}),
            true,
        ),
        ("add_child", json!({"success": true, "link": link}), true),
        (
            "get_children",
            json!({"parent": "ad4m://self", "count": 1, "total_count": 1, "children": [{"id": t, "timestamp": at, "author": did}]}),
            true,
        ),
        (
            "execute_commands",
            json!({"executed": true, "perspective_id": p, "expression_address": t, "links_added": 1, "links_removed": 1}),
            true,
        ),
        ("get_my_did", json!({"did": did}), true),
        (
            "auth_status",
            json!({"authenticated": false, "mode": "multi-user", "message": "Log in with login_email."}),
            true,
        ),
        (
            "signup",
            json!({"success": true, "did": did, "message": "Check your email."}),
            true,
        ),
        (
            "login_email",
            json!({"success": true, "token": "eyJ…", "message": "Logged in."}),
            true,
        ),
        (
            "request_login_verification",
            json!({"success": true, "message": "Code sent."}),
            true,
        ),
        (
            "verify_email_code",
            json!({"success": true, "message": "Verified."}),
            true,
        ),
        (
            "forget",
            json!({"erased": {"links": 7, "instances": 1, "index_entries": 2}, "remaining": [
            {"what": "2 links in perspective <Q> point at the record", "why": "forget never reaches outside its perspective"}],
            "complete": false}),
            true,
        ),
        (
            "forget",
            json!({"erased": {"links": 7, "instances": 1, "pages": "all"}, "remaining": [], "complete": true}),
            false,
        ),
        (
            "validate_perspective",
            json!({"conforms": false, "result_count": 2, "results": [
            {"focus_node": t, "path": "todo://priority", "value": "literal:number:9",
                "constraint": "sh:MaxInclusiveConstraintComponent", "severity": "sh:Violation",
                "message": "out of range: must be <= 5", "shape": "todo://TaskShape#priority"},
            {"focus_node": t, "path": "todo://title", "value": null, "constraint": "sh:MinCountConstraintComponent",
                "severity": "sh:Violation", "message": "too few values: at least 1", "shape": "todo://TaskShape#title"}]}),
            true,
        ),
        (
            "validate_perspective",
            json!({"conforms": true, "result_count": 0, "results": []}),
            true,
        ),
        (
            "validate_perspective",
            json!({"conforms": true, "result_count": 0, "results": [{"focus_node": t}]}),
            false,
        ),
    ];
    for (name, result, ok) in cases {
        let tool = find(name);
        assert_eq!(accepts(&tool.output_schema, &result), ok, "{name}: {result}");
    }
}

#[test]
fn annotations_say_which_tools_read_delete_or_overwrite() {
    let read = [
        "list_perspectives",
        "query_links",
        "sparql_query",
        "changes_since",
        "describe_perspective",
        "instance_query",
        "instance_get",
        "get_children",
        "get_my_did",
        "auth_status",
        "get_documentation",
        "validate_perspective",
        "get_flows",
        "flow_state",
        "flow_actions",
    ];
    let delete = ["instance_remove", "forget", "instance_remove_from_collection"];
    let overwrite = ["instance_update", "add_model", "add_flow"];
    for tool in all_tools() {
        let name = tool.name.as_str();
        let expected = if read.contains(&name) {
            ToolAnnotations::READ
        } else if delete.contains(&name) {
            ToolAnnotations::DELETE
        } else if overwrite.contains(&name) {
            ToolAnnotations::OVERWRITE
        } else {
            ToolAnnotations::WRITE
        };
        assert_eq!(tool.annotations, expected, "{name}");
    }
}

#[test]
fn descriptions_are_short_and_carry_an_example() {
    for tool in all_tools() {
        assert!(!tool.title.is_empty(), "{}", tool.name);
        let chars = tool.description.chars().count();
        assert!(chars <= 900, "{}: description of {chars} characters", tool.name);
        assert!(
            tool.description.contains(&format!("Example: {}(", tool.name)),
            "{}: no example call",
            tool.name
        );
        assert!(
            tool.description.contains(" → "),
            "{}: example without result",
            tool.name
        );
    }
}
