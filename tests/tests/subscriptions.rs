//! Resource subscriptions against the real binary: `notifications/resources/updated` from a
//! write by another process on the same SQLite file, in both lifecycles; unsubscribe; the access
//! rules of multi-user mode; stateless HTTP's refusal. (Across PostgreSQL nodes: the Python
//! suite, `tests/python/test_subscriptions.py`.)
#![allow(deprecated)] // resources/subscribe is the legacy lifecycle's, which this suite tests too

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    ResourceUpdatedNotificationParam, ServerNotification, SubscribeRequestParams, SubscriptionFilter,
    UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RunningService, Subscription};
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};
use shacl_mcp_tests::*;

const PREFIX: &str = "shacl-mcp://perspectives/";

/// The URIs of `notifications/resources/updated`, in order.
#[derive(Clone, Default)]
struct Updates {
    uris: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Updates {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.uris.lock().unwrap().push(params.uri);
    }
}

impl Updates {
    fn count(&self, uri: &str) -> usize {
        self.uris.lock().unwrap().iter().filter(|u| *u == uri).count()
    }

    /// Waits (up to 10 s) until `uri` has been notified more than `before` times.
    async fn wait_past(&self, uri: &str, before: usize) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.count(uri) <= before {
            assert!(
                Instant::now() < deadline,
                "no notification of {uri}; saw {:?}",
                self.uris.lock().unwrap()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn uuid(answer: Value) -> String {
    answer["uuid"].as_str().unwrap().to_string()
}

fn instance_uri(p: &str, class: &str, id: &str) -> String {
    let encoded: String = id
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("{PREFIX}{p}/{class}/{encoded}")
}

async fn channel<H: ClientHandler>(client: &RunningService<RoleClient, H>, p: &str, name: &str) -> String {
    let created = ok(
        client,
        "instance_create",
        json!({ "perspective_id": p, "class_name": "Channel", "properties": { "name": name } }),
    )
    .await;
    created["base_uri"].as_str().unwrap().to_string()
}

async fn rename<H: ClientHandler>(client: &RunningService<RoleClient, H>, p: &str, id: &str, name: &str) {
    ok(
        client,
        "instance_update",
        json!({ "perspective_id": p, "class_name": "Channel", "base_uri": id, "properties": { "name": name } }),
    )
    .await;
}

async fn subscribe<H: ClientHandler>(client: &RunningService<RoleClient, H>, uri: &str) {
    client
        .peer()
        .subscribe(SubscribeRequestParams::new(uri))
        .await
        .unwrap_or_else(|e| panic!("subscribe {uri}: {e:?}"));
}

#[tokio::test]
async fn another_process_on_the_file_is_heard_until_unsubscribed() {
    let dir = TempDir::new("subscriptions");
    let db = dir.0.join("store.db").display().to_string();
    let chat = shared_dna("chat.json");
    let args = ["--db", db.as_str(), "--dna", chat.as_str()];
    let updates = Updates::default();
    let listener = stdio_client_with(updates.clone(), &args, Lifecycle::Legacy).await;
    let writer = stdio_client(&args, Lifecycle::Legacy).await;
    let p = uuid(ok(&writer, "add_perspective", json!({ "name": "P" })).await);
    let fence = uuid(ok(&writer, "add_perspective", json!({ "name": "fence" })).await);
    let id = channel(&writer, &p, "general").await;
    let (channel_uri, p_uri, fence_uri) = (
        instance_uri(&p, "Channel", &id),
        format!("{PREFIX}{p}"),
        format!("{PREFIX}{fence}"),
    );
    for uri in [&channel_uri, &p_uri, &fence_uri] {
        subscribe(&listener, uri).await;
    }

    rename(&writer, &p, &id, "random").await;
    updates.wait_past(&channel_uri, 0).await;
    updates.wait_past(&p_uri, 0).await;

    listener
        .peer()
        .unsubscribe(UnsubscribeRequestParams::new(&channel_uri))
        .await
        .unwrap();
    let (channels, perspectives) = (updates.count(&channel_uri), updates.count(&p_uri));
    rename(&writer, &p, &id, "off-topic").await;
    // A later change in a later perspective: delivered after anything of the first.
    ok(
        &writer,
        "add_link",
        json!({ "perspective_id": fence, "source": "app://a", "predicate": "app://b", "target": "app://c" }),
    )
    .await;
    updates.wait_past(&fence_uri, 0).await;
    assert_eq!(
        updates.count(&channel_uri),
        channels,
        "unsubscribed: no more notifications"
    );
    assert!(
        updates.count(&p_uri) > perspectives,
        "still subscribed to the perspective"
    );

    // A removal is a change of the instance too; a URI of nothing is refused.
    subscribe(&listener, &channel_uri).await;
    let before = updates.count(&channel_uri);
    ok(
        &writer,
        "instance_remove",
        json!({ "perspective_id": p, "class_name": "Channel", "base_uri": id }),
    )
    .await;
    updates.wait_past(&channel_uri, before).await;
    for bad in [
        format!("{PREFIX}no-such-perspective"),
        "https://example.org/x".to_string(),
    ] {
        let refused = listener.peer().subscribe(SubscribeRequestParams::new(&bad)).await;
        assert!(format!("{refused:?}").contains("no resource"), "{bad}: {refused:?}");
    }
    writer.cancel().await.unwrap();
    listener.cancel().await.unwrap();
}

async fn next(stream: &mut Subscription) -> Result<Option<ServerNotification>, rmcp::service::ServiceError> {
    tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("a notification")
}

#[tokio::test]
async fn a_listen_stream_hears_another_process() {
    let dir = TempDir::new("subscriptions-listen");
    let db = dir.0.join("store.db").display().to_string();
    let chat = shared_dna("chat.json");
    let args = ["--db", db.as_str(), "--dna", chat.as_str()];
    let listener = stdio_client(&args, Lifecycle::Modern).await;
    let writer = stdio_client(&args, Lifecycle::Legacy).await;
    let p = uuid(ok(&writer, "add_perspective", json!({ "name": "P" })).await);
    let p_uri = format!("{PREFIX}{p}");
    let filter = SubscriptionFilter::builder().resource_subscription(&p_uri).build();
    let mut stream = listener.peer().listen(filter).await.expect("subscriptions/listen");
    let catch_up = next(&mut stream).await;
    assert!(
        matches!(&catch_up, Ok(Some(ServerNotification::ResourceUpdatedNotification(n))) if n.params.uri == p_uri),
        "{catch_up:?}"
    );
    channel(&writer, &p, "general").await;
    let heard = next(&mut stream).await;
    assert!(
        matches!(&heard, Ok(Some(ServerNotification::ResourceUpdatedNotification(n))) if n.params.uri == p_uri),
        "{heard:?}"
    );
    drop(stream);
    writer.cancel().await.unwrap();
    listener.cancel().await.unwrap();
}

#[tokio::test]
async fn users_hear_only_of_their_own_perspectives_and_stateless_http_refuses() {
    const SECRET: &str = "subscriptions-token-secret-of-forty-chars";
    let chat = shared_dna("chat.json");
    let server = HttpServer::start_with_env(
        &[
            "--db",
            ":memory:",
            "--dna",
            &chat,
            "--multi-user",
            "--http-sessions",
            "true",
        ],
        &[("SHACL_MCP_JWT_SECRET", SECRET)],
    );
    let guest = server.client(None, Lifecycle::Legacy).await;
    let mut tokens = Vec::new();
    for email in ["ada@example.org", "bob@example.org"] {
        ok(
            &guest,
            "signup",
            json!({ "email": email, "password": "correct horse battery" }),
        )
        .await;
        let login = ok(
            &guest,
            "login_email",
            json!({ "email": email, "password": "correct horse battery" }),
        )
        .await;
        tokens.push(login["token"].as_str().unwrap().to_string());
    }
    let (ada_updates, bob_updates) = (Updates::default(), Updates::default());
    let ada = server
        .client_with(ada_updates.clone(), Some(&tokens[0]), Lifecycle::Legacy)
        .await;
    let bob = server
        .client_with(bob_updates.clone(), Some(&tokens[1]), Lifecycle::Legacy)
        .await;
    let hers = uuid(ok(&ada, "add_perspective", json!({ "name": "hers" })).await);
    let his = uuid(ok(&bob, "add_perspective", json!({ "name": "his" })).await);
    let (hers_uri, his_uri) = (format!("{PREFIX}{hers}"), format!("{PREFIX}{his}"));

    let refused = bob.peer().subscribe(SubscribeRequestParams::new(&hers_uri)).await;
    let missing = bob
        .peer()
        .subscribe(SubscribeRequestParams::new(format!("{PREFIX}no-such-perspective")))
        .await;
    assert!(format!("{refused:?}").contains("no resource"), "{refused:?}");
    assert_eq!(
        format!("{refused:?}").replace(&hers, "<p>"),
        format!("{missing:?}").replace("no-such-perspective", "<p>"),
        "another user's perspective answers like a missing one"
    );
    subscribe(&ada, &hers_uri).await;
    subscribe(&bob, &his_uri).await;
    channel(&ada, &hers, "hers").await;
    ada_updates.wait_past(&hers_uri, 0).await;
    channel(&bob, &his, "his").await;
    bob_updates.wait_past(&his_uri, 0).await;
    assert_eq!(bob_updates.count(&hers_uri), 0);
    assert_eq!(ada_updates.count(&his_uri), 0);

    // Stateless HTTP (no session): nothing could carry a notification.
    let stateless = HttpServer::start(&["--db", ":memory:", "--dna", &chat]);
    let client = stateless.client(None, Lifecycle::Legacy).await;
    let p = uuid(ok(&client, "add_perspective", json!({ "name": "P" })).await);
    let refused = client
        .peer()
        .subscribe(SubscribeRequestParams::new(format!("{PREFIX}{p}")))
        .await;
    assert!(format!("{refused:?}").contains("needs a session"), "{refused:?}");
}
