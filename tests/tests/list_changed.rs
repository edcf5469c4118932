//! `notifications/tools/list_changed` when add_model adds per-class tools: on stdio in the
//! legacy lifecycle (a session notification) and in the 2026-07-28 one (subscriptions/listen).

use std::sync::atomic::Ordering;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::RunningService;
use serde_json::json;
use shacl_mcp_tests::*;

fn note_model() -> serde_json::Value {
    json!({
        "target_class": "app://Note",
        "properties": [{ "path": "app://text", "name": "text", "datatype": "xsd:string", "min_count": 1, "max_count": 1, "writable": true }],
        "constructor": [{ "action": "addLink", "source": "this", "predicate": "rdf://type", "target": "app://Note" }]
    })
}

/// A legacy stdio session on chat.json with per-class tools, counting list_changed, and a
/// perspective of its own.
async fn legacy_session() -> (RunningService<RoleClient, ListChanged>, ListChanged, String) {
    let chat = shared_dna("chat.json");
    let handler = ListChanged::default();
    let args = [
        "--db",
        ":memory:",
        "--dna",
        chat.as_str(),
        "--dynamic-class-tools",
        "true",
    ];
    let client = stdio_client_with(handler.clone(), &args, Lifecycle::Legacy).await;
    let p = ok(&client, "add_perspective", json!({ "name": "P" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    (client, handler, p)
}

/// add_model of the Note class, then the list_changed it causes.
async fn add_note_model(client: &RunningService<RoleClient, ListChanged>, handler: &ListChanged, p: &str) {
    ok(
        client,
        "add_model",
        json!({ "perspective_id": p, "class_name": "Note", "shacl_json": note_model() }),
    )
    .await;
    tokio::time::timeout(Duration::from_secs(10), handler.seen.notified())
        .await
        .expect("list_changed arrives");
}

#[tokio::test]
async fn legacy_stdio_session_is_notified_and_lists_the_new_tools() {
    let (client, handler, p) = legacy_session().await;
    assert!(
        !client
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "note_create")
    );
    add_note_model(&client, &handler, &p).await;
    assert_eq!(handler.count.load(Ordering::SeqCst), 1);
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    let i = names
        .iter()
        .position(|n| n == "note_create")
        .expect("note_create listed");
    assert!(
        i > names.iter().position(|n| n == "message_create").unwrap(),
        "run-time classes come after the fixed DNA"
    );
    let created = ok(&client, "note_create", json!({ "perspective_id": p, "text": "hello" })).await;
    assert_eq!(created["class_name"], "Note");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn modern_stdio_listen_stream_is_notified() {
    let chat = shared_dna("chat.json");
    let args = [
        "--db",
        ":memory:",
        "--dna",
        chat.as_str(),
        "--dynamic-class-tools",
        "true",
    ];
    let client = stdio_client(&args, Lifecycle::Modern).await;
    let mut subscription = client
        .peer()
        .listen(SubscriptionFilter::builder().tools_list_changed().build())
        .await
        .expect("subscriptions/listen");
    // The catch-up notification sent when the listen starts.
    let first = tokio::time::timeout(Duration::from_secs(10), subscription.next())
        .await
        .expect("catch-up");
    assert!(
        matches!(first, Ok(Some(ServerNotification::ToolListChangedNotification(_)))),
        "{first:?}"
    );
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
async fn forgetting_a_perspective_with_models_takes_their_tools_away() {
    let (client, handler, p) = legacy_session().await;
    add_note_model(&client, &handler, &p).await;
    ok(
        &client,
        "forget",
        json!({ "perspective_id": p, "whole_perspective": true }),
    )
    .await;
    tokio::time::timeout(Duration::from_secs(10), handler.seen.notified())
        .await
        .expect("list_changed after forget");
    assert_eq!(handler.count.load(Ordering::SeqCst), 2);
    let tools = client.list_all_tools().await.unwrap();
    assert!(
        !tools.iter().any(|t| t.name == "note_create"),
        "the forgotten class's tools are gone"
    );
    client.cancel().await.unwrap();
}
