//! The example servers (`examples/chat`, `examples/tasks`), built as workspace members and
//! driven over stdio by rmcp's client: `tools/list`, a create/get round trip, and the tasks
//! example's hand-written `task_summary`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{Value, json};
use shacl_mcp_tests::*;

const DB: &[&str] = &["--db", ":memory:"];

fn chat_server() -> PathBuf {
    workspace_binary("chat-server", "chat-server")
}

fn tasks_server() -> PathBuf {
    workspace_binary("tasks-server", "tasks-server")
}

async fn tool_names(client: &Client) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect()
}

async fn perspective(client: &Client, name: &str) -> String {
    ok(client, "add_perspective", json!({ "name": name })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string()
}

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

/// The fields every instance object has besides its properties, checked for presence and form.
fn check_meta(instance: &Value, id: &str) {
    assert_eq!(instance["id"], id);
    assert_eq!(instance["baseExpression"], id);
    for key in ["createdAt", "updatedAt", "timestamp"] {
        assert!(
            instance[key].as_str().is_some_and(|t| t.ends_with('Z')),
            "{key}: {instance}"
        );
    }
    assert!(
        instance["author"]
            .as_str()
            .is_some_and(|a| a.starts_with("did:key:z6Mk")),
        "{instance}"
    );
}

const META: [&str; 6] = ["id", "baseExpression", "createdAt", "updatedAt", "author", "timestamp"];

#[tokio::test]
async fn chat_server_lists_its_tools_and_round_trips_a_channel_in_both_lifecycles() {
    let bin = chat_server();
    for lifecycle in Lifecycle::BOTH {
        let client = stdio_client_for(&bin, DB, lifecycle).await;
        let info = client.peer_info().expect("server info");
        let server = info.server_info.as_ref().expect("serverInfo");
        assert_eq!(server.name, "chat-server", "{lifecycle:?}");
        assert_eq!(server.version, env!("CARGO_PKG_VERSION"), "{lifecycle:?}");

        let names = tool_names(&client).await;
        assert_eq!(names.first().map(String::as_str), Some("list_perspectives"));
        for tool in [
            "instance_create",
            "channel_create",
            "channel_get",
            "channel_set_name",
            "channel_add_members",
            "message_create",
            "message_add_reactions",
        ] {
            assert!(
                names.iter().any(|n| n == tool),
                "{lifecycle:?}: {tool} missing from {names:?}"
            );
        }
        assert!(!names.iter().any(|n| n == "task_summary"), "{names:?}");

        let p = perspective(&client, "Chat").await;
        let created = ok(
            &client,
            "channel_create",
            json!({ "perspective_id": p, "name": "general", "description": "Everything else", "isPinned": true,
                    "members": ["did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"] }),
        )
        .await;
        let id = created["base_uri"].as_str().expect("base_uri").to_string();
        assert!(id.starts_with("ad4m://obj/"), "{created}");
        assert_eq!(created["created"], true);
        assert_eq!(created["class_name"], "Channel");
        assert_eq!(created["properties_set"], json!(["name", "description", "isPinned"]));

        let got = ok(
            &client,
            "channel_get",
            json!({ "perspective_id": p, "expression_address": id }),
        )
        .await;
        check_meta(&got, &id);
        assert_eq!(got["name"], "general");
        assert_eq!(got["description"], "Everything else");
        assert_eq!(got["isPinned"], true);
        assert_eq!(
            got["members"],
            json!(["did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"])
        );
        assert_eq!(got["messages"], json!([]));
        let expected: BTreeSet<&str> = META
            .into_iter()
            .chain(["name", "description", "isPinned", "members", "messages"])
            .collect();
        assert_eq!(keys(&got), expected, "{got}");

        // The compiled shape still checks: every problem at once.
        let e = tool_error(
            &client,
            "channel_create",
            json!({ "perspective_id": p, "isPinned": "maybe" }),
        )
        .await;
        assert_eq!(e["class_name"], "Channel", "{e}");
        assert_eq!(e["validation_errors"].as_array().map(Vec::len), Some(2), "{e}");
        client.cancel().await.unwrap();
    }
}

/// The exact `task_summary` entry of tools/list.
/// task_summary's outputSchema, as schemars derives it from `Summary` (rmcp's settings:
/// JSON Schema 2020-12, nested types under `$defs`).
fn task_summary_entry() -> Value {
    let count =
        |description: &str| json!({ "type": "integer", "format": "uint64", "minimum": 0, "description": description });
    json!({
        "type": "object",
        "properties": {
            "total": count("Tasks in the perspective."),
            "by_status": { "description": "Tasks per status; they add up to total.", "$ref": "#/$defs/ByStatus" },
            "overdue": {
                "type": "array",
                "description": "Ids of the tasks not done whose dueDate is before now, oldest task first.",
                "items": { "type": "string" }
            }
        },
        "required": ["total", "by_status", "overdue"],
        "additionalProperties": false,
        "$defs": {
            "ByStatus": {
                "type": "object",
                "properties": {
                    "open": count("Tasks with status open, or with no status."),
                    "in_progress": count("Tasks with status in_progress."),
                    "done": count("Tasks with status done.")
                },
                "required": ["open", "in_progress", "done"],
                "additionalProperties": false
            }
        }
    })
}

#[tokio::test]
async fn tasks_server_lists_generated_tools_and_task_summary_in_both_lifecycles() {
    let bin = tasks_server();
    for lifecycle in Lifecycle::BOTH {
        let client = stdio_client_for(&bin, DB, lifecycle).await;
        let info = client.peer_info().expect("server info");
        assert_eq!(
            info.server_info.as_ref().map(|i| i.name.as_str()),
            Some("tasks-server"),
            "{lifecycle:?}"
        );
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        for tool in [
            "list_perspectives",
            "instance_create",
            "task_create",
            "task_get",
            "task_query",
            "task_set_status",
            "todo_list_create",
            "todo_list_add_items",
            "task_summary",
        ] {
            assert!(names.contains(&tool), "{lifecycle:?}: {tool} missing from {names:?}");
        }
        // Hand-written tools come after the static tools and before the per-class ones.
        let at = |name: &str| names.iter().position(|n| *n == name).unwrap();
        assert!(at("task_summary") < at("task_create"), "{names:?}");
        assert!(at("list_perspectives") < at("task_summary"), "{names:?}");

        let summary = tools.iter().find(|t| t.name == "task_summary").unwrap();
        assert_eq!(
            Value::Object((*summary.input_schema).clone()),
            json!({
                "type": "object",
                "properties": {
                    "perspective_id": {
                        "type": "string",
                        "description": "UUID of the perspective (from list_perspectives or add_perspective)."
                    }
                },
                "required": ["perspective_id"],
                "additionalProperties": false
            })
        );
        assert_eq!(
            summary.output_schema.as_ref().map(|s| Value::Object((**s).clone())),
            Some(task_summary_entry())
        );
        // From the #[tool] method's doc comment: a line of description, a line of example.
        let description = summary.description.as_deref().unwrap_or_default();
        assert!(
            description.starts_with("Summarize the tasks of a perspective:"),
            "{description}"
        );
        assert!(description.contains(".\nExample: task_summary("), "{description}");
        assert_eq!(summary.title.as_deref(), Some("Task summary"));
        let annotations = summary.annotations.as_ref().expect("annotations");
        assert_eq!(annotations.read_only_hint, Some(true));
        assert_eq!(annotations.destructive_hint, Some(false));
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn tasks_server_round_trips_a_task() {
    let client = stdio_client_for(&tasks_server(), DB, Lifecycle::Legacy).await;
    let p = perspective(&client, "Team").await;
    let created = ok(
        &client,
        "task_create",
        json!({ "perspective_id": p, "title": "Write docs", "priority": 2, "dueDate": "2030-01-02T03:04:05Z",
                "estimateHours": 1.5, "tags": ["docs", "v1"] }),
    )
    .await;
    let id = created["base_uri"].as_str().expect("base_uri").to_string();
    assert_eq!(created["created"], true);
    assert_eq!(created["class_name"], "Task");

    let got = ok(
        &client,
        "task_get",
        json!({ "perspective_id": p, "expression_address": id }),
    )
    .await;
    check_meta(&got, &id);
    assert_eq!(got["title"], "Write docs");
    assert_eq!(got["status"], "open", "the constructor sets status open");
    assert_eq!(got["priority"], 2);
    assert_eq!(got["dueDate"], "2030-01-02T03:04:05Z");
    assert_eq!(got["estimateHours"], 1.5);
    assert_eq!(got["tags"], json!(["docs", "v1"]));
    let expected: BTreeSet<&str> = META
        .into_iter()
        .chain(["title", "status", "priority", "dueDate", "estimateHours", "tags"])
        .collect();
    assert_eq!(keys(&got), expected, "{got}");

    ok(
        &client,
        "task_set_status",
        json!({ "perspective_id": p, "expression_address": id, "value": "in_progress" }),
    )
    .await;
    let got = ok(
        &client,
        "task_get",
        json!({ "perspective_id": p, "expression_address": id }),
    )
    .await;
    assert_eq!(got["status"], "in_progress");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn task_summary_counts_by_status_and_lists_overdue_tasks() {
    let client = stdio_client_for(&tasks_server(), DB, Lifecycle::Modern).await;
    let p = perspective(&client, "Team").await;

    let empty = ok(&client, "task_summary", json!({ "perspective_id": p })).await;
    assert_eq!(
        empty,
        json!({ "total": 0, "by_status": { "open": 0, "in_progress": 0, "done": 0 }, "overdue": [] })
    );

    let past = "2001-02-03T04:05:06Z";
    let past_offset = "2020-06-01T12:00:00+02:00";
    let future = "2999-01-01T00:00:00Z";
    let create = async |title: &str, status: Option<&str>, due: Option<&str>| {
        let mut args = json!({ "perspective_id": p, "title": title });
        if let Some(status) = status {
            args["status"] = status.into();
        }
        if let Some(due) = due {
            args["dueDate"] = due.into();
        }
        ok(&client, "task_create", args).await["base_uri"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let late_open = create("late, open", None, Some(past)).await;
    let late_started = create("late, started", Some("in_progress"), Some(past_offset)).await;
    let _late_done = create("late but done", Some("done"), Some(past)).await;
    let _future = create("not due yet", Some("open"), Some(future)).await;
    let _undated = create("no due date", Some("in_progress"), None).await;
    let cleared = create("status cleared", Some("done"), Some(past)).await;
    // A task whose status is cleared counts as open, and as not done.
    ok(
        &client,
        "task_set_status",
        json!({ "perspective_id": p, "expression_address": cleared, "value": null }),
    )
    .await;
    // Another class and another perspective are not counted.
    ok(
        &client,
        "todo_list_create",
        json!({ "perspective_id": p, "name": "Sprint" }),
    )
    .await;
    let other = perspective(&client, "Other").await;
    ok(
        &client,
        "task_create",
        json!({ "perspective_id": other, "title": "elsewhere" }),
    )
    .await;

    let summary = ok(&client, "task_summary", json!({ "perspective_id": p })).await;
    assert_eq!(
        summary,
        json!({
            "total": 6,
            "by_status": { "open": 3, "in_progress": 2, "done": 1 },
            "overdue": [late_open, late_started, cleared]
        })
    );

    // Finishing a late task takes it off the overdue list.
    ok(
        &client,
        "task_set_status",
        json!({ "perspective_id": p, "expression_address": late_open, "value": "done" }),
    )
    .await;
    let summary = ok(&client, "task_summary", json!({ "perspective_id": p })).await;
    assert_eq!(summary["by_status"], json!({ "open": 2, "in_progress": 2, "done": 2 }));
    assert_eq!(summary["overdue"], json!([late_started, cleared]));

    // The strict inputSchema: a missing perspective and an unknown argument, both at once.
    let e = tool_error(&client, "task_summary", json!({ "colour": "red" })).await;
    let problems: Vec<&str> = e["validation_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["property"].as_str().unwrap())
        .collect();
    assert_eq!(problems, ["perspective_id", "colour"], "{e}");
    assert_eq!(e["tool"], "task_summary");
    // An unknown perspective: the engine's refusal, passed through.
    let e = tool_error(&client, "task_summary", json!({ "perspective_id": "nope" })).await;
    assert_eq!(e["error"], "Perspective 'nope' not found", "{e}");
    client.cancel().await.unwrap();
}
