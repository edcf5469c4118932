//! A short load test, bounded in count and time, on loopback only: 8 clients over HTTP, 50
//! creates and 50 reads each, at once; every write lands and every read sees its own write.

use std::time::{Duration, Instant};

use serde_json::json;
use shacl_mcp_tests::*;

const CLIENTS: usize = 8;
const CALLS: usize = 50;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_clients_over_http() {
    let tasks = shared_dna("tasks.json");
    let server = HttpServer::start(&["--db", ":memory:", "--dna", &tasks, "--dynamic-class-tools", "true"]);
    let setup = server.client(None, Lifecycle::Legacy).await;
    let p = ok(&setup, "add_perspective", json!({ "name": "Load" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let started = Instant::now();
    let mut workers = Vec::new();
    for c in 0..CLIENTS {
        let client = server
            .client(
                None,
                if c % 2 == 0 {
                    Lifecycle::Legacy
                } else {
                    Lifecycle::Modern
                },
            )
            .await;
        let p = p.clone();
        workers.push(tokio::spawn(async move {
            for i in 0..CALLS {
                let title = format!("client {c} task {i}");
                let created = ok(
                    &client,
                    "task_create",
                    json!({ "perspective_id": p, "title": title, "priority": 1 + i % 5 }),
                )
                .await;
                let id = created["base_uri"].as_str().unwrap().to_string();
                let got = ok(
                    &client,
                    "task_get",
                    json!({ "perspective_id": p, "expression_address": id }),
                )
                .await;
                assert_eq!(got["title"], title);
            }
            client.cancel().await.unwrap();
        }));
    }
    for w in workers {
        tokio::time::timeout(Duration::from_secs(120), w)
            .await
            .expect("bounded in time")
            .unwrap();
    }
    let elapsed = started.elapsed();
    let all = ok(
        &setup,
        "instance_query",
        json!({ "perspective_id": p, "class_name": "Task", "limit": 1 }),
    )
    .await;
    assert_eq!(all["total_count"], CLIENTS * CALLS);
    let rate = (2 * CLIENTS * CALLS) as f64 / elapsed.as_secs_f64();
    eprintln!(
        "load: {} calls from {CLIENTS} clients in {elapsed:?} ({rate:.0} calls/s, debug build)",
        2 * CLIENTS * CALLS
    );
    setup.cancel().await.unwrap();
}
