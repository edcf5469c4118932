//! Hostile input over stdio and HTTP, each case with the exact answer docs/errors.md gives; after
//! every case the server still answers the next valid call correctly.

use serde_json::{Value, json};
use shacl_mcp_tests::*;

const DB: &[&str] = &["--db", ":memory:"];

fn call(id: i64, tool: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": tool, "arguments": arguments } })
}

/// The structured content of a tool result (`isError` as given).
fn result(answer: &Value) -> (bool, &Value) {
    (
        answer["result"]["isError"] == true,
        &answer["result"]["structuredContent"],
    )
}

fn still_up(s: &mut RawStdio) {
    let pong = s.request(json!({ "jsonrpc": "2.0", "id": 999, "method": "ping" }));
    assert_eq!(pong, json!({ "jsonrpc": "2.0", "id": 999, "result": {} }));
}

#[test]
fn stdio_hostile_input() {
    let tasks = shared_dna("tasks.json");
    let mut args = DB.to_vec();
    args.extend(["--dna", tasks.as_str()]);
    let mut s = RawStdio::start(&args);
    s.initialize();
    let p = result(&s.request(call(1, "add_perspective", json!({ "name": "H" })))).1["uuid"]
        .as_str()
        .unwrap()
        .to_string();

    // 10 MB strings: an argument that long is taken or refused whole, never cut.
    let long = "x".repeat(10 << 20);
    let a = s.request(call(
        2,
        "instance_create",
        json!({ "perspective_id": p, "class_name": "Task", "properties": { "title": long } }),
    ));
    let (is_error, body) = result(&a);
    assert!(!is_error, "a long title is a valid title: {body}");
    still_up(&mut s);

    // Wrong JSON types in every argument of a tool: every problem at once.
    let a = s.request(call(
        3,
        "query_links",
        json!({ "perspective_id": 5, "source": [], "predicate": {}, "target": true, "limit": "9", "offset": -1 }),
    ));
    let (is_error, body) = result(&a);
    assert!(is_error);
    let props: Vec<&str> = body["validation_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["property"].as_str().unwrap())
        .collect();
    assert_eq!(
        props,
        ["perspective_id", "source", "predicate", "target", "limit", "offset"],
        "{body}"
    );

    // Unknown tools and methods.
    let a = s.request(call(4, "drop_database", json!({})));
    assert_eq!(a["error"]["code"], -32602);
    assert!(a["error"]["message"].as_str().unwrap().contains("drop_database"));
    let a = s.request(json!({ "jsonrpc": "2.0", "id": 5, "method": "admin/shutdown" }));
    assert_eq!(a["error"]["code"], -32601);

    // Filters that try SQL injection are values, matched as values.
    let injection = "x'); DROP TABLE links; --";
    let a = s.request(call(
        6,
        "instance_query",
        json!({ "perspective_id": p, "class_name": "Task", "filter": { "title": injection } }),
    ));
    assert_eq!(result(&a).1["total_count"], 0);
    let a = s.request(call(
        7,
        "query_links",
        json!({ "perspective_id": p, "source": injection }),
    ));
    assert_eq!(result(&a).1["total_count"], 0);
    let a = s.request(call(
        8,
        "instance_query",
        json!({ "perspective_id": p, "class_name": "Task" }),
    ));
    assert_eq!(result(&a).1["total_count"], 1, "the table is still there");

    // A pattern that would backtrack catastrophically elsewhere: the regex crate is linear.
    let model = json!({ "target_class": "app://Evil", "properties": [
        { "path": "app://v", "name": "v", "datatype": "xsd:string", "max_count": 1, "writable": true, "pattern": "^(a+)+$" } ] });
    let a = s.request(call(
        9,
        "add_model",
        json!({ "perspective_id": p, "class_name": "Evil", "shacl_json": model }),
    ));
    assert!(!result(&a).0, "{a}");
    let evil = format!("{}!", "a".repeat(100_000));
    let a = s.request(call(
        10,
        "instance_create",
        json!({ "perspective_id": p, "class_name": "Evil", "properties": { "v": evil } }),
    ));
    let (is_error, body) = result(&a);
    assert!(is_error);
    assert_eq!(
        body["validation_errors"][0]["problem"],
        "does not match the pattern ^(a+)+$"
    );

    // Ids with path characters are IRIs like any other, stored and found as written.
    for id in [
        "ad4m://obj/../../etc/passwd",
        "file:///etc/passwd",
        "ad4m://obj/%2e%2e/x",
    ] {
        let a = s.request(call(
            11,
            "instance_create",
            json!({ "perspective_id": p, "class_name": "Task", "base_uri": id, "properties": { "title": "t" } }),
        ));
        assert_eq!(result(&a).1["base_uri"], id);
        let a = s.request(call(
            12,
            "instance_get",
            json!({ "perspective_id": p, "class_name": "Task", "base_uri": id }),
        ));
        assert_eq!(result(&a).1["id"], id);
    }
    let a = s.request(call(
        13,
        "instance_get",
        json!({ "perspective_id": "../../etc/passwd", "class_name": "Task", "base_uri": "x:y" }),
    ));
    assert_eq!(result(&a).1["error"], "Perspective '../../etc/passwd' not found");

    // A flood of notifications: none answered, the next request answered first.
    for _ in 0..5000 {
        s.send(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#);
    }
    still_up(&mut s);

    // Nested 100,000 deep, truncated, invalid UTF-8.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    s.send(deep.as_bytes());
    assert_eq!(
        s.recv(),
        json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32700, "message": "Parse error: JSON nested deeper than 128 levels" } })
    );
    s.send(b"{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"tools/li");
    assert_eq!(s.recv()["error"]["code"], -32700);
    s.send(b"\xc3\x28");
    assert_eq!(
        s.recv(),
        json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32700, "message": "Parse error: not UTF-8" } })
    );
    still_up(&mut s);
    assert!(s.finish().success());
}

#[test]
fn http_hostile_input() {
    let tasks = shared_dna("tasks.json");
    let server = HttpServer::start(&["--db", ":memory:", "--dna", &tasks]);
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let up = || {
        let (status, body) = server.post(&[], ping);
        assert_eq!((status, body.contains("\"result\":{}")), (200, true), "{body}");
    };
    // A 64 MiB body: 413 with a JSON-RPC -32600, without reading it all.
    let big = vec![b'x'; 64 << 20];
    let (status, body) = server.post(&[], &big);
    assert_eq!(status, 413);
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["error"]["code"], -32600);
    up();
    for (bytes, status, code) in [
        (b"\xff\xfe".to_vec(), 400, -32700),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"".to_vec(),
            400,
            -32700,
        ),
        (
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
            400,
            -32700,
        ),
        (
            b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]".to_vec(),
            400,
            -32600,
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"no/such\"}".to_vec(),
            200,
            -32601,
        ),
    ] {
        let (got, body) = server.post(&[], &bytes);
        assert_eq!(got, status, "{body}");
        let answer: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(answer["error"]["code"], code, "{body}");
        up();
    }
    // A foreign Origin.
    let (status, body) = server.post(&[("Origin", "https://attacker.example")], ping);
    assert_eq!(
        (status, body.as_str()),
        (
            403,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"origin not allowed"}}"#
        )
    );
    up();
}
