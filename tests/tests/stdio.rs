//! `shacl-mcp serve --stdio` driven by rmcp's client in both lifecycles, and byte by byte.

use serde_json::{Value, json};
use shacl_mcp_tests::*;

const DB: &[&str] = &["--db", ":memory:"];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all: Vec<&str> = DB.to_vec();
    all.extend_from_slice(extra);
    all
}

#[tokio::test]
async fn identity_and_tools_in_both_lifecycles() {
    let chat = shared_dna("chat.json");
    for lifecycle in Lifecycle::BOTH {
        let client = stdio_client(&args(&["--dna", &chat]), lifecycle).await;
        let info = client.peer_info().expect("server info");
        assert_eq!(
            info.server_info.as_ref().map(|i| i.name.as_str()),
            Some("shacl-mcp"),
            "{lifecycle:?}"
        );
        let names: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(names.first().map(String::as_str), Some("list_perspectives"));
        assert!(
            !names.iter().any(|n| n == "channel_create"),
            "per-class tools are off by default"
        );
        let tool = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .find(|t| t.name == "instance_create")
            .unwrap();
        assert!(tool.output_schema.is_some(), "outputSchema is declared");
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn instances_through_generic_and_per_class_tools() {
    let tasks = shared_dna("tasks.json");
    for lifecycle in Lifecycle::BOTH {
        let client = stdio_client(&args(&["--dna", &tasks, "--dynamic-class-tools", "true"]), lifecycle).await;
        let p = ok(&client, "add_perspective", json!({ "name": "Team" })).await["uuid"]
            .as_str()
            .unwrap()
            .to_string();
        let created = ok(
            &client,
            "instance_create",
            json!({ "perspective_id": p, "class_name": "Task", "properties": { "title": "Write docs" } }),
        )
        .await;
        let t = created["base_uri"].as_str().unwrap().to_string();
        assert_eq!(created["properties_set"], json!(["title"]));
        let via_class = ok(
            &client,
            "task_create",
            json!({ "perspective_id": p, "title": "Review", "priority": 2, "tags": ["a"] }),
        )
        .await;
        let t2 = via_class["base_uri"].as_str().unwrap().to_string();
        ok(
            &client,
            "task_set_status",
            json!({ "perspective_id": p, "expression_address": t2, "value": "done" }),
        )
        .await;
        ok(
            &client,
            "task_add_tags",
            json!({ "perspective_id": p, "expression_address": t2, "value": "b" }),
        )
        .await;
        let tags = ok(
            &client,
            "task_get_tags",
            json!({ "perspective_id": p, "expression_address": t2 }),
        )
        .await;
        assert_eq!(
            tags,
            json!({ "expression_address": t2, "collection": "tags", "items": ["a", "b"] })
        );
        let open = ok(
            &client,
            "instance_query",
            json!({ "perspective_id": p, "class_name": "Task", "filter": { "status": "open" } }),
        )
        .await;
        assert_eq!(open["total_count"], 1);
        assert_eq!(open["instances"][0]["id"], t.as_str());
        let listed = ok(
            &client,
            "task_list",
            json!({ "perspective_id": p, "order": "newest_first" }),
        )
        .await;
        assert_eq!(listed["instances"][0]["id"], t2.as_str());
        let cleared = ok(
            &client,
            "task_set_priority",
            json!({ "perspective_id": p, "expression_address": t2, "value": null }),
        )
        .await;
        assert_eq!(cleared["unset_properties"], json!(["priority"]));
        let removed = ok(
            &client,
            "task_delete",
            json!({ "perspective_id": p, "expression_address": t }),
        )
        .await;
        assert_eq!(removed["deleted"], t.as_str());
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn validation_envelope_and_refusals() {
    let chat = shared_dna("chat.json");
    let client = stdio_client(&args(&["--dna", &chat]), Lifecycle::Legacy).await;
    let p = ok(&client, "add_perspective", json!({ "name": "Chat" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let e = tool_error(
        &client,
        "instance_create",
        json!({ "perspective_id": p, "class_name": "Channel", "properties": { "isPinned": "maybe" } }),
    )
    .await;
    assert_eq!(e["class_name"], "Channel");
    assert_eq!(e["validation_errors"].as_array().unwrap().len(), 2);
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .starts_with("Validation failed for class 'Channel' (2 problems)")
    );
    // Fixed arguments against the inputSchema: every problem at once.
    let e = tool_error(&client, "query_links", json!({ "limit": 0, "colour": "red" })).await;
    let problems: Vec<&str> = e["validation_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["property"].as_str().unwrap())
        .collect();
    assert_eq!(problems, ["perspective_id", "limit", "colour"], "{e}");
    assert_eq!(e["tool"], "query_links");
    // A per-class tool while they are off: the refusal names the instance_* call.
    let e = tool_error(&client, "channel_create", json!({ "perspective_id": p, "name": "x" })).await;
    assert!(
        e["hint"]
            .as_str()
            .unwrap()
            .contains("instance_create with class_name: \"Channel\""),
        "{e}"
    );
    assert!(e["hint"].as_str().unwrap().contains("--dynamic-class-tools true"));
    // Unknown perspective and class.
    let e = tool_error(&client, "describe_perspective", json!({ "perspective_id": "nope" })).await;
    assert_eq!(e["error"], "Perspective 'nope' not found");
    // An unknown tool is a protocol error naming it.
    let mut params = rmcp::model::CallToolRequestParams::new("no_such_tool");
    params = params.with_arguments(object(json!({})));
    let err = client.call_tool(params).await.expect_err("unknown tool");
    assert!(err.to_string().contains("no_such_tool"), "{err}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn jsonrpc_validation_errors_flag() {
    let chat = shared_dna("chat.json");
    let client = stdio_client(
        &args(&["--dna", &chat, "--jsonrpc-validation-errors", "true"]),
        Lifecycle::Legacy,
    )
    .await;
    let p = ok(&client, "add_perspective", json!({ "name": "Chat" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let mut params = rmcp::model::CallToolRequestParams::new("instance_create");
    params = params.with_arguments(object(
        json!({ "perspective_id": p, "class_name": "Channel", "properties": {} }),
    ));
    match client.call_tool(params).await {
        Err(rmcp::ServiceError::McpError(e)) => {
            assert_eq!(e.code.0, -32602);
            let data = e.data.expect("envelope in data");
            assert_eq!(data["validation_errors"][0]["property"], "name");
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    client.cancel().await.unwrap();
}

#[test]
fn framing_errors_are_answered_and_the_server_stays_up() {
    let mut s = RawStdio::start(DB);
    s.initialize();
    let cases: [(&[u8], i64); 5] = [
        (b"\xff\xfe{}", -32700),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"", -32700),
        (b"[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]", -32600),
        (b"{\"jsonrpc\":\"2.0\",\"id\":3}", -32600),
        (b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"add_link\",\"arguments\":\"x\"}}", -32602),
    ];
    for (bytes, code) in cases {
        s.send(bytes);
        let answer = s.recv();
        assert_eq!(answer["error"]["code"], code, "{answer}");
    }
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{}{}}}",
        "[".repeat(1000),
        "]".repeat(1000)
    );
    s.send(deep.as_bytes());
    assert_eq!(s.recv()["error"]["code"], -32700);
    let unknown = s.request(json!({"jsonrpc": "2.0", "id": 6, "method": "frobnicate"}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    // A notification is never answered: the next answer is the ping's.
    s.send(br#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#);
    let pong = s.request(json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}));
    assert_eq!(pong["id"], 7);
    assert!(pong.get("result").is_some(), "{pong}");
    assert!(s.finish().success(), "end of input is a clean shutdown");
}

#[test]
fn a_too_large_line_is_dropped_with_an_answer() {
    let mut s = RawStdio::start(DB);
    s.initialize();
    // 17 MiB on one line.
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"x\":\"{}\"}}}}",
        "a".repeat(17 << 20)
    );
    s.send(big.as_bytes());
    let answer = s.recv();
    assert_eq!(answer["error"]["code"], -32600);
    assert_eq!(answer["id"], Value::Null);
    assert!(answer["error"]["message"].as_str().unwrap().contains("larger than"));
    let pong = s.request(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    assert_eq!(pong["id"], 2);
}
