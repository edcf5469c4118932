//! `shacl-mcp serve --http` driven by rmcp's client: stateless (the default) in both
//! lifecycles, with sessions, list_changed on each, authentication, Origin, and a log that
//! never shows the credential.

use std::sync::atomic::Ordering;
use std::time::Duration;

use rmcp::model::{ServerNotification, SubscriptionFilter};
use serde_json::json;
use shacl_mcp_tests::*;

fn note_model() -> serde_json::Value {
    json!({
        "target_class": "app://Note",
        "properties": [{ "path": "app://text", "name": "text", "datatype": "xsd:string", "min_count": 1, "max_count": 1, "writable": true }],
        "constructor": [{ "action": "addLink", "source": "this", "predicate": "rdf://type", "target": "app://Note" }]
    })
}

#[tokio::test]
async fn stateless_and_sessions_in_both_lifecycles() {
    let chat = shared_dna("chat.json");
    for sessions in ["false", "true"] {
        let server = HttpServer::start(&[
            "--db",
            ":memory:",
            "--dna",
            &chat,
            "--dynamic-class-tools",
            "true",
            "--http-sessions",
            sessions,
        ]);
        for lifecycle in Lifecycle::BOTH {
            let client = server.client(None, lifecycle).await;
            let at = format!("sessions={sessions} {lifecycle:?}");
            let info = client.peer_info().expect("info");
            assert_eq!(
                info.server_info.as_ref().map(|i| i.name.as_str()),
                Some("shacl-mcp"),
                "{at}"
            );
            let tools = client.list_all_tools().await.unwrap();
            assert!(tools.iter().any(|t| t.name == "channel_add_members"), "{at}");
            let p = ok(&client, "add_perspective", json!({ "name": "HTTP" })).await["uuid"]
                .as_str()
                .unwrap()
                .to_string();
            let ch = ok(
                &client,
                "channel_create",
                json!({ "perspective_id": p, "name": "general" }),
            )
            .await["base_uri"]
                .as_str()
                .unwrap()
                .to_string();
            let msg = ok(
                &client,
                "message_create",
                json!({ "perspective_id": p, "body": "hi", "parent": ch }),
            )
            .await;
            assert_eq!(msg["added_to_parent"], true, "{at}");
            let listed = ok(&client, "message_list", json!({ "perspective_id": p, "parent": ch })).await;
            assert_eq!(listed["total_count"], 1, "{at}");
            let e = tool_error(&client, "message_create", json!({ "perspective_id": p, "body": "" })).await;
            assert_eq!(
                e["validation_errors"][0]["problem"], "too short: at least 1 characters",
                "{at}"
            );
            // Stateless: another connection (any node) sees the same data.
            let other = server.client(None, lifecycle).await;
            let got = ok(
                &other,
                "channel_get",
                json!({ "perspective_id": p, "expression_address": ch }),
            )
            .await;
            assert_eq!(got["name"], "general", "{at}");
            other.cancel().await.unwrap();
            client.cancel().await.unwrap();
        }
    }
}

#[tokio::test]
async fn list_changed_over_http() {
    let chat = shared_dna("chat.json");
    // Legacy with sessions: a session notification.
    let server = HttpServer::start(&[
        "--db",
        ":memory:",
        "--dna",
        &chat,
        "--dynamic-class-tools",
        "true",
        "--http-sessions",
        "true",
    ]);
    let handler = ListChanged::default();
    let client = server.client_with(handler.clone(), None, Lifecycle::Legacy).await;
    let p = ok(&client, "add_perspective", json!({ "name": "P" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    ok(
        &client,
        "add_model",
        json!({ "perspective_id": p, "class_name": "Note", "shacl_json": note_model() }),
    )
    .await;
    tokio::time::timeout(Duration::from_secs(10), handler.seen.notified())
        .await
        .expect("sessions: list_changed");
    assert!(
        client
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "note_create")
    );
    client.cancel().await.unwrap();
    drop(server);

    // Legacy stateless: only in the response to the call that caused it.
    let server = HttpServer::start(&["--db", ":memory:", "--dna", &chat, "--dynamic-class-tools", "true"]);
    let handler = ListChanged::default();
    let client = server.client_with(handler.clone(), None, Lifecycle::Legacy).await;
    let p = ok(&client, "add_perspective", json!({ "name": "P" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    ok(
        &client,
        "add_model",
        json!({ "perspective_id": p, "class_name": "Note", "shacl_json": note_model() }),
    )
    .await;
    tokio::time::timeout(Duration::from_secs(10), handler.seen.notified())
        .await
        .expect("stateless: list_changed in the response");
    assert_eq!(handler.count.load(Ordering::SeqCst), 1);
    client.cancel().await.unwrap();

    // 2026-07-28: through subscriptions/listen, with the catch-up notification first.
    let client = server.client(None, Lifecycle::Modern).await;
    let mut subscription = client
        .peer()
        .listen(SubscriptionFilter::builder().tools_list_changed().build())
        .await
        .expect("listen");
    let first = tokio::time::timeout(Duration::from_secs(10), subscription.next())
        .await
        .expect("catch-up");
    assert!(
        matches!(first, Ok(Some(ServerNotification::ToolListChangedNotification(_)))),
        "{first:?}"
    );
    let memo = json!({ "target_class": "app://Memo", "properties": [] });
    ok(
        &client,
        "add_model",
        json!({ "perspective_id": p, "class_name": "Memo", "shacl_json": memo }),
    )
    .await;
    let next = tokio::time::timeout(Duration::from_secs(10), subscription.next())
        .await
        .expect("list_changed");
    assert!(
        matches!(next, Ok(Some(ServerNotification::ToolListChangedNotification(_)))),
        "{next:?}"
    );
    drop(subscription);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn authentication_and_origin() {
    const SECRET: &str = "correct-horse-battery-staple-0193";
    let chat = shared_dna("chat.json");
    let log = std::env::temp_dir().join(format!("shacl-mcp-auth-{}.log", std::process::id()));
    let mut server = HttpServer::start_logged(
        &["--db", ":memory:", "--dna", &chat],
        &[("SHACL_MCP_ADMIN_CREDENTIAL", SECRET), ("SHACL_MCP_LOG", "debug")],
        log.clone(),
    );
    for lifecycle in Lifecycle::BOTH {
        let anonymous = server.client(None, lifecycle).await;
        assert!(
            anonymous.list_all_tools().await.is_ok(),
            "tools/list needs no credential"
        );
        let e = tool_error(&anonymous, "list_perspectives", json!({})).await;
        assert_eq!(e["error"], "Not authenticated", "{lifecycle:?}");
        let status = ok(&anonymous, "auth_status", json!({})).await;
        assert_eq!(status["authenticated"], false);
        anonymous.cancel().await.unwrap();

        let wrong = server.client(Some("not-the-secret"), lifecycle).await;
        assert_eq!(
            tool_error(&wrong, "list_perspectives", json!({})).await["error"],
            "Not authenticated"
        );
        wrong.cancel().await.unwrap();

        let admin = server.client(Some(SECRET), lifecycle).await;
        ok(&admin, "list_perspectives", json!({})).await;
        assert_eq!(ok(&admin, "auth_status", json!({})).await["authenticated"], true);
        ok(&admin, "add_perspective", json!({ "name": "secret-free" })).await;
        admin.cancel().await.unwrap();
    }
    // DNS rebinding: a foreign Origin or Host gets 403 with a JSON-RPC body.
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let (status, body) = server.post(&[("Origin", "http://evil.example")], ping);
    assert_eq!(status, 403);
    assert_eq!(
        body,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"origin not allowed"}}"#
    );
    let (status, _) = server.post(&[("Host", "evil.example")], ping);
    assert_eq!(status, 403);
    server.stop();
    // The credential never reaches the log, though every request carried it.
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.lines().count() > 10, "the log has lines: {text}");
    assert!(!text.contains(SECRET), "the credential leaked into the log");
    assert!(
        !text.to_ascii_lowercase().contains("authorization"),
        "a header reached the log"
    );
    let _ = std::fs::remove_file(log);
}

#[test]
fn refuses_to_bind_elsewhere_without_a_credential() {
    let output = std::process::Command::new(binary())
        .args(["serve", "--db", ":memory:", "--http", "0.0.0.0:0"])
        .env_remove("SHACL_MCP_ADMIN_CREDENTIAL")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("SHACL_MCP_ADMIN_CREDENTIAL"));
}
