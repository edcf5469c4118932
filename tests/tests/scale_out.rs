//! Three `serve --http` nodes on one PostgreSQL database (`SHACL_MCP_TEST_POSTGRES`; skipped
//! without it unless `SHACL_MCP_REQUIRE_POSTGRES=1`, as in CI): clients spread over the nodes
//! write and read; every write is seen from every node; a node killed mid-run loses no
//! acknowledged write; add_model on one node reaches the others' clients as list_changed; a
//! token from one node works on the others, and failed logins count on every node.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};
use shacl_mcp_tests::*;

const JWT_SECRET: &str = "a shared secret of the three nodes, 32+ bytes";

/// The database url, in a schema of this test's own; `None` (the test passes, saying why) when
/// no PostgreSQL is configured.
fn database(name: &str) -> Option<String> {
    let Some(url) = std::env::var("SHACL_MCP_TEST_POSTGRES").ok().filter(|u| !u.is_empty()) else {
        assert!(
            std::env::var("SHACL_MCP_REQUIRE_POSTGRES").as_deref() != Ok("1"),
            "SHACL_MCP_REQUIRE_POSTGRES=1 but SHACL_MCP_TEST_POSTGRES is not set"
        );
        eprintln!("skipped: set SHACL_MCP_TEST_POSTGRES to a PostgreSQL url to run the scale-out tests");
        return None;
    };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let schema = format!("scale_{name}_{}_{nanos}", std::process::id());
    let separator = if url.contains('?') { '&' } else { '?' };
    Some(format!("{url}{separator}schema={schema}"))
}

fn node(db: &str, dna: &str, extra: &[&str], env: &[(&str, &str)]) -> HttpServer {
    let mut args = vec!["--db", db, "--dna", dna, "--dynamic-class-tools", "true"];
    args.extend_from_slice(extra);
    let mut env = env.to_vec();
    env.push(("SHACL_MCP_LOG", "warn"));
    HttpServer::start_with_env(&args, &env)
}

fn id(created: &Value) -> String {
    created["base_uri"].as_str().expect("base_uri").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_nodes_share_every_write_and_a_killed_node_loses_none() {
    let Some(db) = database("writes") else { return };
    let tasks = shared_dna("tasks.json");
    let mut nodes: Vec<HttpServer> = (0..3).map(|_| node(&db, &tasks, &[], &[])).collect();
    let setup = nodes[0].client(None, Lifecycle::Legacy).await;
    let p = ok(&setup, "add_perspective", json!({ "name": "Scale" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();

    // Six writers, two per node, both lifecycles; each reads its write back through the next node.
    let mut workers = Vec::new();
    for w in 0..6 {
        let home = nodes[w % 3].client(None, Lifecycle::BOTH[w % 2]).await;
        let other = nodes[(w + 1) % 3].client(None, Lifecycle::BOTH[(w + 1) % 2]).await;
        let p = p.clone();
        workers.push(tokio::spawn(async move {
            let mut acknowledged = BTreeMap::new();
            for i in 0..40 {
                let title = format!("writer {w} task {i}");
                let created = ok(
                    &home,
                    "task_create",
                    json!({ "perspective_id": p, "title": title, "priority": 1 + i % 5 }),
                )
                .await;
                let got = ok(
                    &other,
                    "task_get",
                    json!({ "perspective_id": p, "expression_address": id(&created) }),
                )
                .await;
                assert_eq!(got["title"], title, "a write on one node is read on the next at once");
                acknowledged.insert(id(&created), title);
            }
            acknowledged
        }));
    }
    let mut acknowledged = BTreeMap::new();
    for w in workers {
        acknowledged.extend(
            tokio::time::timeout(Duration::from_secs(180), w)
                .await
                .expect("bounded")
                .unwrap(),
        );
    }
    assert_eq!(acknowledged.len(), 240);

    // Writers on node 2 while it is killed: what it acknowledged before dying is kept.
    let mut victims = Vec::new();
    for w in 0..3 {
        let client = nodes[2].client(None, Lifecycle::Legacy).await;
        let p = p.clone();
        victims.push(tokio::spawn(async move {
            let mut acked = BTreeMap::new();
            for i in 0.. {
                let title = format!("victim {w} task {i}");
                let mut params = rmcp::model::CallToolRequestParams::new("task_create");
                params = params.with_arguments(object(json!({ "perspective_id": p, "title": title })));
                match client.call_tool(params).await {
                    Ok(result) if result.is_error != Some(true) => {
                        acked.insert(id(&result.structured_content.unwrap()), title);
                    }
                    _ => break,
                }
            }
            acked
        }));
    }
    tokio::time::sleep(Duration::from_millis(700)).await;
    nodes[2].stop();
    for v in victims {
        acknowledged.extend(
            tokio::time::timeout(Duration::from_secs(60), v)
                .await
                .expect("bounded")
                .unwrap(),
        );
    }
    assert!(acknowledged.len() > 240, "the victims wrote before the kill");

    // Every acknowledged write, whole, from both surviving nodes; nothing half-written.
    for survivor in &nodes[..2] {
        let client = survivor.client(None, Lifecycle::Modern).await;
        for (task, title) in &acknowledged {
            let got = ok(
                &client,
                "task_get",
                json!({ "perspective_id": p, "expression_address": task }),
            )
            .await;
            assert_eq!(&got["title"], title);
            assert_eq!(got["status"], "open", "the constructor's links landed with the create");
        }
        let all = ok(
            &client,
            "instance_query",
            json!({ "perspective_id": p, "class_name": "Task", "limit": 1 }),
        )
        .await;
        let total = all["total_count"].as_u64().unwrap() as usize;
        // A create in flight when the node died may have committed without its answer.
        assert!(
            (acknowledged.len()..=acknowledged.len() + 3).contains(&total),
            "{total} tasks for {} acknowledged",
            acknowledged.len()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_model_on_one_node_reaches_the_clients_of_another() {
    let Some(db) = database("models") else { return };
    let chat = shared_dna("chat.json");
    let sessions = ["--http-sessions", "true"];
    let a = node(&db, &chat, &sessions, &[]);
    let b = node(&db, &chat, &sessions, &[]);
    let writer = a.client(None, Lifecycle::Legacy).await;
    let handler = ListChanged::default();
    let watcher = b.client_with(handler.clone(), None, Lifecycle::Legacy).await;
    let p = ok(&writer, "add_perspective", json!({ "name": "Models" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let note = json!({
        "target_class": "app://Note",
        "properties": [{ "path": "app://text", "name": "text", "datatype": "xsd:string", "min_count": 1, "max_count": 1, "writable": true }],
        "constructor": [{ "action": "addLink", "source": "this", "predicate": "rdf://type", "target": "app://Note" }]
    });
    ok(
        &writer,
        "add_model",
        json!({ "perspective_id": p, "class_name": "Note", "shacl_json": note }),
    )
    .await;
    tokio::time::timeout(Duration::from_secs(10), handler.seen.notified())
        .await
        .expect("list_changed reaches a client of the other node");
    assert!(handler.count.load(Ordering::SeqCst) >= 1);
    let created = ok(
        &watcher,
        "note_create",
        json!({ "perspective_id": p, "text": "from b" }),
    )
    .await;
    let got = ok(
        &writer,
        "instance_get",
        json!({ "perspective_id": p, "class_name": "Note", "base_uri": id(&created) }),
    )
    .await;
    assert_eq!(got["text"], "from b");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_from_one_node_works_on_another_and_limits_are_shared() {
    let Some(db) = database("accounts") else { return };
    let chat = shared_dna("chat.json");
    let env = [("SHACL_MCP_JWT_SECRET", JWT_SECRET)];
    let nodes: Vec<HttpServer> = (0..3).map(|_| node(&db, &chat, &["--multi-user"], &env)).collect();
    let guest = nodes[0].client(None, Lifecycle::Legacy).await;
    ok(
        &guest,
        "signup",
        json!({ "email": "ada@example.org", "password": "correct horse battery" }),
    )
    .await;
    let login = ok(
        &guest,
        "login_email",
        json!({ "email": "ada@example.org", "password": "correct horse battery" }),
    )
    .await;
    let token = login["token"].as_str().unwrap().to_string();

    let on_b = nodes[1].client(Some(&token), Lifecycle::Modern).await;
    let status = ok(&on_b, "auth_status", json!({})).await;
    assert_eq!(status["authenticated"], true, "{status}");
    let p = ok(&on_b, "add_perspective", json!({ "name": "Ada's" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let on_c = nodes[2].client(Some(&token), Lifecycle::Legacy).await;
    let listed = ok(&on_c, "list_perspectives", json!({})).await;
    assert!(listed.to_string().contains(&p), "{listed}");

    // Five failed logins spread over the nodes: the sixth attempt waits on any of them.
    for n in 0..5 {
        let client = nodes[n % 3].client(None, Lifecycle::Legacy).await;
        let failed = tool_error(
            &client,
            "login_email",
            json!({ "email": "ada@example.org", "password": "wrong password!" }),
        )
        .await;
        assert!(
            failed["error"].as_str().unwrap().starts_with("Login failed"),
            "{failed}"
        );
    }
    let client = nodes[2].client(None, Lifecycle::Legacy).await;
    let limited = tool_error(
        &client,
        "login_email",
        json!({ "email": "ada@example.org", "password": "correct horse battery" }),
    )
    .await;
    assert!(
        limited["error"]
            .as_str()
            .unwrap()
            .starts_with("Too many failed attempts"),
        "{limited}"
    );
}
