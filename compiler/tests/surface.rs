//! The tool surface of every sample DNA: valid draft 2020-12 schemas, closed as
//! docs/tools.md says, in the order docs/data-model.md fixes (Determinism); zoo's whole list
//! as a snapshot.

use std::path::Path;

use serde_json::Value;
use shacl_mcp_compiler::surface::{SurfaceOptions, tool_list};
use shacl_mcp_compiler::{Dna, ToolSpec, load};

const ALL: SurfaceOptions = SurfaceOptions {
    class_tools: true,
    multi_user: true,
};

fn dna(file: &str) -> Dna {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../dna").join(file);
    let (dna, diags) = load(&path);
    dna.unwrap_or_else(|| panic!("{file}: {diags}"))
}

fn sample_tool_lists() -> Vec<(&'static str, Vec<ToolSpec>)> {
    ["chat.json", "chat.ttl", "tasks.json", "zoo.json"]
        .into_iter()
        .map(|f| (f, tool_list(&dna(f), ALL)))
        .collect()
}

#[test]
fn zoo_tool_list_snapshot() {
    let tools: Vec<Value> = tool_list(&dna("zoo.json"), ALL).iter().map(ToolSpec::to_json).collect();
    insta::assert_json_snapshot!("zoo_tools", tools);
}

#[test]
fn every_schema_is_valid_draft_2020_12() {
    for (file, tools) in sample_tool_lists() {
        for tool in tools {
            for (which, schema) in [("input", &tool.input_schema), ("output", &tool.output_schema)] {
                if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
                    panic!(
                        "{file}: {which} schema of {} is not valid draft 2020-12: {e}",
                        tool.name
                    );
                }
                jsonschema::draft202012::new(schema)
                    .unwrap_or_else(|e| panic!("{file}: {which} schema of {} does not compile: {e}", tool.name));
            }
        }
    }
}

/// Top level closed, typed and without combinators; every object with fixed keys closed; no
/// `$ref` or `$schema` anywhere; every required name declared.
#[test]
fn input_schemas_are_strict() {
    for (file, tools) in sample_tool_lists() {
        for tool in tools {
            let s = &tool.input_schema;
            let at = format!("{file}: {}", tool.name);
            assert_eq!(s["type"], "object", "{at}");
            assert_eq!(s["additionalProperties"], false, "{at}");
            for key in ["oneOf", "anyOf", "allOf"] {
                assert!(s.get(key).is_none(), "{at}: top-level {key}");
            }
            let properties = s["properties"].as_object().expect("properties");
            for (name, p) in properties {
                assert!(p.get("type").is_some(), "{at}: parameter {name} has no type");
                assert!(
                    p.get("description").is_some(),
                    "{at}: parameter {name} has no description"
                );
            }
            for r in s["required"].as_array().expect("required") {
                assert!(
                    properties.contains_key(r.as_str().unwrap()),
                    "{at}: required {r} is not a property"
                );
            }
            walk(s, &mut |node| {
                assert!(
                    node.get("$ref").is_none() && node.get("$schema").is_none(),
                    "{at}: $ref/$schema"
                );
                if node.get("type") == Some(&Value::from("object")) && node.get("properties").is_some() {
                    assert_eq!(
                        node["additionalProperties"], false,
                        "{at}: an object with fixed keys is open: {node:?}"
                    );
                }
            });
        }
    }
}

fn walk(v: &Value, f: &mut impl FnMut(&serde_json::Map<String, Value>)) {
    match v {
        Value::Object(o) => {
            f(o);
            o.values().for_each(|c| walk(c, f));
        }
        Value::Array(a) => a.iter().for_each(|c| walk(c, f)),
        _ => {}
    }
}

#[test]
fn tools_come_in_the_fixed_order() {
    let tools = tool_list(&dna("tasks.json"), ALL);
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let statics = names.iter().position(|n| *n == "task_create").expect("task_create");
    assert_eq!(
        names[statics - 1],
        "flow_run_action",
        "per-class tools follow every static tool"
    );
    assert_eq!(
        &names[statics..],
        [
            "task_create",
            "task_query",
            "task_list",
            "task_get",
            "task_delete",
            "task_set_title",
            "task_set_status",
            "task_set_priority",
            "task_set_due_date",
            "task_set_estimate_hours",
            "task_set_assignee",
            "task_get_tags",
            "task_add_tags",
            "task_remove_tags",
            "todo_list_create",
            "todo_list_query",
            "todo_list_list",
            "todo_list_get",
            "todo_list_delete",
            "todo_list_set_name",
            "todo_list_get_items",
            "todo_list_add_items",
            "todo_list_remove_items",
        ]
    );
    // Parameters of create: the fixed ones, then the properties in declaration order.
    let create = &tools[statics].input_schema["properties"];
    let keys: Vec<&String> = create.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "perspective_id",
            "expression_address",
            "parent",
            "title",
            "status",
            "priority",
            "dueDate",
            "estimateHours",
            "assignee",
            "tags"
        ]
    );
}

#[test]
fn per_class_parameters_are_typed_from_the_shape() {
    let tools = tool_list(&dna("tasks.json"), ALL);
    let create = tools.iter().find(|t| t.name == "task_create").unwrap();
    let p = &create.input_schema["properties"];
    assert_eq!(p["status"]["enum"], serde_json::json!(["open", "in_progress", "done"]));
    assert_eq!(
        (p["priority"]["type"].as_str(), p["priority"]["minimum"].as_i64()),
        (Some("integer"), Some(1))
    );
    assert_eq!(p["priority"]["maximum"], 5);
    assert_eq!(p["dueDate"]["format"], "date-time");
    assert_eq!(p["estimateHours"]["type"], "number");
    assert_eq!(p["assignee"]["pattern"], "^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$");
    assert_eq!(p["tags"]["maxItems"], 10);
    assert_eq!(create.input_schema["required"], serde_json::json!(["perspective_id"]));
    assert!(create.description.contains("title*"), "{}", create.description);
    // An optional scalar's setter takes null to clear it.
    let set_status = tools.iter().find(|t| t.name == "task_set_status").unwrap();
    assert_eq!(
        set_status.input_schema["properties"]["value"]["type"],
        serde_json::json!(["string", "null"])
    );
}

#[test]
fn markers_and_read_only_properties_are_not_parameters() {
    let tools = tool_list(&dna("zoo.json"), ALL);
    let dog_create = tools.iter().find(|t| t.name == "dog_create").unwrap();
    let params = dog_create.input_schema["properties"].as_object().unwrap();
    for hidden in ["kind", "owner", "friendCount", "chipId"] {
        assert!(
            !params.contains_key(hidden),
            "{hidden} must not be a dog_create parameter"
        );
    }
    for shown in ["born", "name", "age", "goodBoy", "toys", "weightLog"] {
        assert!(params.contains_key(shown), "{shown} must be a dog_create parameter");
    }
    // Create-only: Toy.serial is given on create but has no setter.
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(
        tools
            .iter()
            .any(|t| t.name == "toy_create" && t.input_schema["properties"].get("serial").is_some())
    );
    assert!(!names.contains(&"toy_set_serial"));
    // A read-only collection can be read, not written.
    assert!(names.contains(&"keeper_get_visited_by") && !names.contains(&"keeper_add_visited_by"));
    // Pattern with flags is left to the engine; without flags it is in the schema.
    let toy = tools.iter().find(|t| t.name == "toy_create").unwrap();
    assert!(toy.input_schema["properties"]["label"].get("pattern").is_none());
}

#[test]
fn account_tools_only_in_multi_user_mode() {
    let dna = dna("chat.json");
    let single = tool_list(&dna, SurfaceOptions::default());
    assert!(!single.iter().any(|t| t.name == "signup"));
    assert!(
        !single.iter().any(|t| t.name == "channel_create"),
        "per-class tools are off by default"
    );
    assert!(tool_list(&dna, ALL).iter().any(|t| t.name == "signup"));
}

#[test]
fn code_generation_is_deterministic() {
    use shacl_mcp_compiler::codegen::{Options, generate_files};
    for file in ["chat.json", "chat.ttl", "tasks.json", "zoo.json"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../dna").join(file);
        let (first, _) = generate_files(&[path.as_path()], &Options::default()).expect("generates");
        let (again, _) = generate_files(&[path.as_path()], &Options::default()).expect("generates");
        assert_eq!(first, again, "{file}: the same DNA gives the same code, byte for byte");
        assert!(first.starts_with("// @generated"));
        syn::parse_file(&first).unwrap_or_else(|e| panic!("{file}: generated code parses: {e}"));
    }
}

/// A Turtle DNA with constraints beyond the typed surface: describe_perspective's class object
/// and the create and set tools say each rule the engine checks at write, in words.
#[test]
fn engine_rules_are_described_where_agents_read() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/core-dna/events.ttl");
    let (loaded, diags) = load(&path);
    let events = loaded.unwrap_or_else(|| panic!("{diags}"));
    let event = events.class("Event").expect("Event");
    let described = shacl_mcp_compiler::describe::class_json(event);
    let rules = described["checked_at_write"].as_array().expect("checked_at_write");
    let less_than = rules
        .iter()
        .find(|r| r["constraint"] == "sh:LessThanConstraintComponent")
        .expect("the sh:lessThan rule");
    assert_eq!(less_than["property"], "start");
    assert_eq!(less_than["rule"], "each value must be less than every value of ex:end");
    let tools = tool_list(&events, ALL);
    let create = tools.iter().find(|t| t.name == "event_create").expect("event_create");
    assert!(
        create.description.contains("Also checked at write")
            && create
                .description
                .contains("`start`: each value must be less than every value of ex:end"),
        "{}",
        create.description
    );
    let set_start = tools
        .iter()
        .find(|t| t.name == "event_set_start")
        .expect("event_set_start");
    assert!(
        set_start
            .description
            .contains("Also checked at write: `start`: each value must be less than"),
        "{}",
        set_start.description
    );
    // A typed-only class says nothing more.
    let chat = dna("chat.ttl");
    let channel = shacl_mcp_compiler::describe::class_json(chat.class("Channel").unwrap());
    assert!(channel.get("checked_at_write").is_none());
}
