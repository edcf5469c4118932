//! The HTTP transport through a real socket, spoken as raw HTTP/1.1: the guard's answers
//! (docs/errors.md, HTTP column), JSON and SSE answers, sessions, authentication and the refusal to
//! listen beyond loopback without a credential.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use shacl_mcp::mcp::http::{HttpOptions, serve_http, serve_listener};
use shacl_mcp::mcp::{McpServer, Secret, ServerOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

const BOTH: &str = "application/json, text/event-stream";

struct Server {
    addr: SocketAddr,
    shutdown: CancellationToken,
    task: JoinHandle<std::io::Result<()>>,
}

fn mcp_server(credential: Option<&str>) -> McpServer {
    let setup = common::setup(&["chat.json"]);
    let options = ServerOptions {
        admin_credential: credential.and_then(Secret::new),
        ..ServerOptions::default()
    };
    McpServer::new(Arc::new(setup.engine), options)
}

async fn start(credential: Option<&str>, options: HttpOptions) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(serve_listener(
        mcp_server(credential),
        listener,
        options,
        shutdown.clone(),
    ));
    Server { addr, shutdown, task }
}

impl Server {
    async fn stop(self) {
        self.shutdown.cancel();
        let ended = tokio::time::timeout(Duration::from_secs(10), self.task).await;
        assert!(matches!(ended, Ok(Ok(Ok(())))), "graceful shutdown: {ended:?}");
    }

    /// A request with the usual headers; `headers` replace them by name ("" drops one).
    async fn send(&self, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let host = self.addr.to_string();
        let mut all: Vec<(String, String)> = vec![
            ("Host".into(), host),
            ("Content-Type".into(), "application/json".into()),
            ("Accept".into(), BOTH.into()),
            ("Connection".into(), "close".into()),
        ];
        for (name, value) in headers {
            all.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            if !value.is_empty() {
                all.push((name.to_string(), value.to_string()));
            }
        }
        let chunked = all
            .iter()
            .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v == "chunked");
        let mut head = format!("{method} /mcp HTTP/1.1\r\n");
        for (name, value) in &all {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if method == "POST" && !chunked {
            head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        head.push_str("\r\n");
        let mut stream = TcpStream::connect(self.addr).await.unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        if chunked {
            for chunk in body.chunks(100) {
                let _ = stream.write_all(format!("{:x}\r\n", chunk.len()).as_bytes()).await;
                let _ = stream.write_all(chunk).await;
                let _ = stream.write_all(b"\r\n").await;
            }
            let _ = stream.write_all(b"0\r\n\r\n").await;
        } else {
            let _ = stream.write_all(body).await;
        }
        tokio::time::timeout(Duration::from_secs(10), read_reply(&mut stream))
            .await
            .expect("an answer in time")
    }

    async fn post(&self, body: &Value) -> Reply {
        self.send("POST", &[], body.to_string().as_bytes()).await
    }

    async fn post_with(&self, headers: &[(&str, &str)], body: &Value) -> Reply {
        self.send("POST", headers, body.to_string().as_bytes()).await
    }

    /// A ping answered with 200: the server still works after whatever came before.
    async fn still_works(&self) {
        let reply = self.post(&json!({"jsonrpc": "2.0", "id": 99, "method": "ping"})).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(reply.json()["id"], 99);
    }
}

#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or("")
    }

    /// The JSON-RPC message: the body, or the response among the SSE events.
    fn json(&self) -> Value {
        if self.content_type().starts_with("text/event-stream") {
            return sse_response(&self.body).unwrap_or_else(|| panic!("no response in the stream: {}", self.body));
        }
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    fn error(&self) -> (i64, String) {
        let v = self.json();
        (
            v["error"]["code"].as_i64().unwrap(),
            v["error"]["message"].as_str().unwrap().to_string(),
        )
    }
}

fn sse_response(body: &str) -> Option<Value> {
    let complete = body.rfind("\n\n").map_or("", |end| &body[..end]);
    complete
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|m| m.get("id").is_some() && (m.get("result").is_some() || m.get("error").is_some()))
}

/// Reads one response: the head, then a Content-Length or chunked body; an SSE body only up
/// to its JSON-RPC response (the stream may stay open).
async fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut buf).await.unwrap();
        assert!(
            n > 0,
            "connection closed before the head: {:?}",
            String::from_utf8_lossy(&raw)
        );
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8(raw[..head_end].to_vec()).unwrap();
    let mut rest = raw[head_end + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let find = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let sse = find("content-type").is_some_and(|t| t.starts_with("text/event-stream"));
    let mut body = Vec::new();
    if let Some(length) = find("content-length") {
        let length: usize = length.parse().unwrap();
        while rest.len() < length {
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "body cut short");
            rest.extend_from_slice(&buf[..n]);
        }
        body = rest[..length].to_vec();
    } else if find("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
        loop {
            // Decode every complete chunk in `rest`.
            let mut ended = false;
            while let Some(line_end) = rest.windows(2).position(|w| w == b"\r\n") {
                let size = usize::from_str_radix(std::str::from_utf8(&rest[..line_end]).unwrap().trim(), 16).unwrap();
                if rest.len() < line_end + 2 + size + 2 {
                    break;
                }
                body.extend_from_slice(&rest[line_end + 2..line_end + 2 + size]);
                rest.drain(..line_end + 2 + size + 2);
                if size == 0 {
                    ended = true;
                    break;
                }
            }
            if ended || (sse && sse_response(&String::from_utf8_lossy(&body)).is_some()) {
                break;
            }
            let n = stream.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            rest.extend_from_slice(&buf[..n]);
        }
    } else {
        body = rest;
        let _ = stream.read_to_end(&mut body).await;
    }
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

fn initialize(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
}

fn call(id: i64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}}})
}

#[tokio::test]
async fn stateless_json_answers() {
    let server = start(None, HttpOptions::default()).await;
    let reply = server.post(&initialize(1)).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.content_type(), "application/json");
    assert!(reply.header("mcp-session-id").is_none());
    let init = reply.json();
    assert_eq!(init["id"], 1);
    assert_eq!(init["result"]["serverInfo"]["name"], "shacl-mcp");

    let reply = server
        .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    assert_eq!(reply.status, 202);

    let reply = server
        .post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    assert_eq!((reply.status, reply.content_type()), (200, "application/json"));
    let tools = reply.json()["result"]["tools"].as_array().unwrap().clone();
    assert!(tools.iter().any(|t| t["name"] == "list_perspectives"), "{tools:?}");

    let reply = server.post(&call(3, "list_perspectives")).await;
    assert_eq!((reply.status, reply.content_type()), (200, "application/json"));
    let result = &reply.json()["result"];
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"]["perspectives"], json!([]));

    // A known method rmcp answers on its own, and one nobody knows.
    let reply = server
        .post(&json!({"jsonrpc": "2.0", "id": 4, "method": "no/such"}))
        .await;
    assert_eq!((reply.status, reply.error().0), (200, -32601));
    server.stop().await;
}

/// Stateless tool calls are answered by the transport's direct route or by rmcp's service
/// (a `_meta` key other than `progressToken` sends a call to rmcp): the two answers are the
/// same, byte for byte, for results, refusals, argument errors, unknown tools and callers
/// without a credential.
#[tokio::test]
async fn a_directly_answered_tool_call_reads_as_rmcps_answer() {
    let server = start(None, HttpOptions::default()).await;
    let created = server
        .post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "add_perspective", "arguments": {"name": "Direct"}}}))
        .await;
    let perspective = created.json()["result"]["structuredContent"]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let existing = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "instance_create",
        "arguments": {"perspective_id": perspective, "class_name": "Channel", "properties": {"name": "general"},
        "base_uri": "ad4m://channel/d0x"}}});
    assert_eq!(server.post(&existing).await.json()["result"]["isError"], false);
    // `BASE` is a fresh instance per call and route (the answers then differ in that alone).
    let calls: Vec<(&str, Value)> = vec![
        ("get_my_did", json!({})),
        ("list_perspectives", json!({})),
        (
            "instance_create",
            json!({"perspective_id": perspective, "class_name": "Channel",
            "properties": {"name": "general"}, "base_uri": "BASE"}),
        ),
        (
            "channel_create",
            json!({"perspective_id": perspective, "name": "random", "base_uri": "BASE"}),
        ),
        (
            "instance_create",
            json!({"perspective_id": perspective, "class_name": "Channel",
            "properties": {"name": "general"}, "base_uri": "ad4m://channel/d0x"}),
        ),
        (
            "instance_get",
            json!({"perspective_id": perspective, "class_name": "Channel", "base_uri": "ad4m://channel/d0x"}),
        ),
        (
            "instance_query",
            json!({"perspective_id": perspective, "class_name": "Channel", "filter": {"name": "general"}}),
        ),
        (
            "instance_get",
            json!({"perspective_id": perspective, "class_name": "Nope", "base_uri": "ad4m://x"}),
        ),
        (
            "instance_create",
            json!({"perspective_id": perspective, "class_name": "Channel", "properties": {"name": 7}}),
        ),
        ("instance_query", json!({"perspective_id": 3})),
        ("no_such_tool", json!({})),
    ];
    let versions: [&[(&str, &str)]; 3] = [
        &[],
        &[("MCP-Protocol-Version", "2025-06-18")],
        &[("MCP-Protocol-Version", "2025-11-25")],
    ];
    for (i, (tool, arguments)) in calls.iter().enumerate() {
        for (v, headers) in versions.iter().enumerate() {
            let id = 10 + i as i64;
            let with_base = |route: &str| {
                let text = arguments
                    .to_string()
                    .replace("BASE", &format!("ad4m://channel/{route}{i}{v}"));
                serde_json::from_str::<Value>(&text).unwrap()
            };
            let mut direct = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": with_base("d")}});
            if v == 1 {
                direct["params"]["_meta"] = json!({"progressToken": id});
            }
            let through_rmcp = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": with_base("r"), "_meta": {"x-route": "rmcp"}}});
            let (a, b) = (
                server.post_with(headers, &direct).await,
                server.post_with(headers, &through_rmcp).await,
            );
            assert_eq!(
                (a.status, a.content_type()),
                (b.status, b.content_type()),
                "{tool} {headers:?}"
            );
            let rmcp_body = b.body.replace(&format!("channel/r{i}{v}"), &format!("channel/d{i}{v}"));
            assert_eq!(a.body, rmcp_body, "{tool} {headers:?}");
        }
    }
    server.stop().await;

    // Without the credential a server asks for: the same refusal both ways.
    let server = start(Some("s3cret-credential-value"), HttpOptions::default()).await;
    let direct = call(1, "list_perspectives");
    let mut through_rmcp = direct.clone();
    through_rmcp["params"]["_meta"] = json!({"x-route": "rmcp"});
    let (a, b) = (server.post(&direct).await, server.post(&through_rmcp).await);
    assert_eq!((a.status, &a.body), (b.status, &b.body));
    assert_eq!(a.json()["result"]["isError"], true, "{}", a.body);
    server.stop().await;
}

#[tokio::test]
async fn the_guard_refuses_in_the_order_of_errors_md() {
    let options = HttpOptions {
        max_body: 512,
        allowed_origins: vec!["https://app.example.com".into()],
        allowed_hosts: vec!["mcp.example.com".into()],
        ..HttpOptions::default()
    };
    let server = start(None, options).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let port = server.addr.port();
    let forbidden = json!({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"origin not allowed"}});

    for (name, value) in [
        ("Origin", "http://evil.example.com".to_string()),
        ("Origin", format!("http://localhost:{}", port + 1)),
        ("Origin", "null".to_string()),
        ("Host", format!("evil.example.com:{port}")),
        ("Host", format!("localhost:{}", port + 1)),
    ] {
        let reply = server.post_with(&[(name, &value)], &ping).await;
        assert_eq!(reply.status, 403, "{name}: {value}");
        assert_eq!(reply.content_type(), "application/json");
        assert_eq!(reply.json(), forbidden);
        assert_eq!(reply.body, forbidden.to_string());
        server.still_works().await;
    }
    // The server's own names, and the configured extras.
    for (name, value) in [
        ("Origin", format!("http://localhost:{port}")),
        ("Origin", format!("http://127.0.0.1:{port}")),
        ("Origin", "https://app.example.com".to_string()),
        ("Host", format!("localhost:{port}")),
        ("Host", format!("[::1]:{port}")),
        ("Host", "mcp.example.com".to_string()),
    ] {
        let reply = server.post_with(&[(name, &value)], &ping).await;
        assert_eq!(reply.status, 200, "{name}: {value}: {}", reply.body);
    }
    // Host and Origin come first, on every method.
    let reply = server.send("GET", &[("Host", "evil.example.com")], b"").await;
    assert_eq!(reply.status, 403);
    let reply = server
        .send("POST", &[("Origin", "http://evil.example.com")], b"\xff")
        .await;
    assert_eq!(reply.status, 403);

    // Too large, with and without Content-Length, before anything is parsed.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"_meta":{{"pad":"{}"}}}}}}"#,
        "x".repeat(600)
    );
    for chunked in [false, true] {
        let headers: &[(&str, &str)] = if chunked {
            &[("Transfer-Encoding", "chunked")]
        } else {
            &[]
        };
        let reply = server.send("POST", headers, big.as_bytes()).await;
        assert_eq!(reply.status, 413, "chunked {chunked}: {}", reply.body);
        assert_eq!(reply.error(), (-32600, "message larger than 512 bytes".to_string()));
        assert_eq!(reply.json()["id"], Value::Null);
        server.still_works().await;
    }
    let reply = server.send("POST", &[], b"\xff".repeat(600).as_slice()).await;
    assert_eq!(reply.status, 413);

    // Framing: parse errors and envelopes, 400 with the JSON-RPC error.
    let cases: [(&[u8], i64); 6] = [
        (b"\xff\xfe{}", -32700),
        (br#"{"jsonrpc":"2.0","id":1,"method":"pi"#, -32700),
        (b"", -32700),
        (br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600),
        (br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#, -32600),
        (br#"{"jsonrpc":"2.0","id":8}"#, -32600),
    ];
    for (body, code) in cases {
        let reply = server.send("POST", &[], body).await;
        assert_eq!(reply.status, 400, "{}: {}", String::from_utf8_lossy(body), reply.body);
        assert_eq!(reply.content_type(), "application/json");
        assert_eq!(reply.error().0, code, "{}", reply.body);
        server.still_works().await;
    }
    let reply = server
        .send("POST", &[], br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
        .await;
    assert_eq!(reply.error().1, "Invalid Request: batches are not supported");
    let reply = server
        .send("POST", &[], br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#)
        .await;
    assert_eq!(reply.json()["id"], 7);
    // tools/call with arguments that are not an object: -32602 with status 200.
    let bad_args =
        json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_perspectives","arguments":[1]}});
    let reply = server.post(&bad_args).await;
    assert_eq!(
        (reply.status, reply.error().0, reply.json()["id"].clone()),
        (200, -32602, json!(5))
    );

    // Accept: neither JSON nor SSE.
    for accept in ["text/plain", "", "application/json;q=0, text/event-stream;q=0"] {
        let reply = server.post_with(&[("Accept", accept)], &ping).await;
        assert_eq!(reply.status, 406, "Accept: {accept:?}");
        server.still_works().await;
    }
    // A wrong Content-Type: rmcp's own 415.
    let reply = server.post_with(&[("Content-Type", "text/plain")], &ping).await;
    assert_eq!(reply.status, 415);
    // Stateless: no GET stream, no DELETE.
    assert_eq!(
        server.send("GET", &[("Accept", "text/event-stream")], b"").await.status,
        405
    );
    assert_eq!(server.send("DELETE", &[], b"").await.status, 405);
    server.still_works().await;
    server.stop().await;
}

#[tokio::test]
async fn json_or_sse_as_the_client_accepts() {
    let server = start(None, HttpOptions::default()).await;
    let reply = server
        .post_with(&[("Accept", "text/event-stream")], &call(1, "list_perspectives"))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.content_type().starts_with("text/event-stream"), "{reply:?}");
    assert!(
        reply.body.contains("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\""),
        "{}",
        reply.body
    );
    assert_eq!(reply.json()["result"]["isError"], false);

    let reply = server
        .post_with(&[("Accept", "application/json")], &call(2, "list_perspectives"))
        .await;
    assert_eq!((reply.status, reply.content_type()), (200, "application/json"));
    assert_eq!(reply.json()["id"], 2);

    let reply = server
        .post_with(
            &[("Accept", "text/event-stream;q=0.5, application/json;q=0.9")],
            &initialize(3),
        )
        .await;
    assert_eq!((reply.status, reply.content_type()), (200, "application/json"));
    server.stop().await;
}

#[tokio::test]
async fn sessions_are_kept_bounded_and_ended() {
    let options = HttpOptions {
        sessions: true,
        max_sessions: 2,
        ..HttpOptions::default()
    };
    let server = start(None, options).await;
    let reply = server.post(&initialize(1)).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(
        reply.content_type().starts_with("text/event-stream"),
        "sessions answer in SSE: {reply:?}"
    );
    assert_eq!(reply.json()["result"]["serverInfo"]["name"], "shacl-mcp");
    let session = reply.header("mcp-session-id").expect("a session id").to_string();
    let with_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];

    let reply = server
        .post_with(
            &with_session,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
    assert_eq!(reply.status, 202);
    let reply = server.post_with(&with_session, &call(2, "list_perspectives")).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["result"]["isError"], false);
    // A client that accepts JSON only gets the response out of the stream.
    let json_only = [with_session[0], with_session[1], ("Accept", "application/json")];
    let reply = server
        .post_with(&json_only, &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}))
        .await;
    assert_eq!(
        (reply.status, reply.content_type()),
        (200, "application/json"),
        "{}",
        reply.body
    );
    assert!(
        reply.json()["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    // Framing still comes first inside a session.
    let reply = server.send("POST", &with_session, b"{").await;
    assert_eq!((reply.status, reply.error().0), (400, -32700));
    // An unknown session.
    let reply = server
        .post_with(&[("Mcp-Session-Id", "nope")], &call(4, "list_perspectives"))
        .await;
    assert_eq!(reply.status, 404);

    // The second session fits (JSON-only: the initialize answer as JSON, with its id), a third not.
    let reply = server
        .post_with(&[("Accept", "application/json")], &initialize(5))
        .await;
    assert_eq!(
        (reply.status, reply.content_type()),
        (200, "application/json"),
        "{}",
        reply.body
    );
    assert!(reply.header("mcp-session-id").is_some());
    let reply = server.post(&initialize(6)).await;
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(reply.json()["id"], 6);
    // Ending one makes room.
    assert_eq!(server.send("DELETE", &with_session, b"").await.status, 202);
    let mut reply = server.post(&initialize(7)).await;
    for _ in 0..50 {
        if reply.status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        reply = server.post(&initialize(7)).await;
    }
    assert_eq!(reply.status, 200, "{}", reply.body);
    server.stop().await;
}

#[tokio::test]
async fn idle_sessions_are_closed() {
    let options = HttpOptions {
        sessions: true,
        session_idle: Duration::from_millis(300),
        ..HttpOptions::default()
    };
    let server = start(None, options).await;
    let reply = server.post(&initialize(1)).await;
    let session = reply.header("mcp-session-id").expect("a session id").to_string();
    let with_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    assert_eq!(
        server
            .post_with(&with_session, &call(2, "list_perspectives"))
            .await
            .status,
        200
    );
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(
        server
            .post_with(&with_session, &call(3, "list_perspectives"))
            .await
            .status,
        404
    );
    server.stop().await;
}

#[tokio::test]
async fn a_credential_is_needed_for_tool_calls() {
    let server = start(Some("s3cret"), HttpOptions::default()).await;
    for auth in ["", "Bearer wrong", "s3cret"] {
        let reply = server
            .post_with(&[("Authorization", auth)], &call(1, "list_perspectives"))
            .await;
        assert_eq!(reply.status, 200);
        let result = &reply.json()["result"];
        assert_eq!(result["isError"], true, "{auth:?}: {result}");
        assert_eq!(result["structuredContent"]["error"], "Not authenticated");
    }
    // What needs no credential: tools/list, ping, auth_status.
    let reply = server
        .post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    assert!(
        reply.json()["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    let reply = server.post(&call(3, "auth_status")).await;
    assert_eq!(reply.json()["result"]["structuredContent"]["authenticated"], false);

    let reply = server
        .post_with(&[("Authorization", "Bearer s3cret")], &call(4, "list_perspectives"))
        .await;
    assert_eq!(reply.json()["result"]["isError"], false, "{}", reply.body);
    let reply = server
        .post_with(&[("Authorization", "Bearer s3cret")], &call(5, "auth_status"))
        .await;
    assert_eq!(reply.json()["result"]["structuredContent"]["authenticated"], true);
    server.stop().await;
}

#[tokio::test]
async fn no_open_listening_without_a_credential() {
    let options = HttpOptions {
        addr: "0.0.0.0:0".parse().unwrap(),
        ..HttpOptions::default()
    };
    let err = serve_http(mcp_server(None), options, CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied);
    assert!(err.to_string().contains("without an admin credential"), "{err}");
    assert!(err.to_string().contains("SHACL_MCP_ADMIN_CREDENTIAL"), "{err}");

    let listener = TcpListener::bind("0.0.0.0:0").await.unwrap();
    let err = serve_listener(
        mcp_server(None),
        listener,
        HttpOptions::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied);

    // With a credential the same address is served.
    let listener = TcpListener::bind("0.0.0.0:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(serve_listener(
        mcp_server(Some("s3cret")),
        listener,
        HttpOptions::default(),
        shutdown.clone(),
    ));
    let server = Server {
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        shutdown,
        task,
    };
    server.still_works().await;
    server.stop().await;
}

#[tokio::test]
async fn shutdown_ends_open_streams() {
    let options = HttpOptions {
        sessions: true,
        ..HttpOptions::default()
    };
    let server = start(None, options).await;
    let reply = server.post(&initialize(1)).await;
    let session = reply.header("mcp-session-id").unwrap().to_string();
    let _ = server
        .post_with(
            &[("Mcp-Session-Id", &session)],
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
    // The session's GET stream stays open until the server stops.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n",
        server.addr
    );
    stream.write_all(get.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    server.stop().await;
}
