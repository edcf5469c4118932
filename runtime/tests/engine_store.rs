//! The engine on a database that outlives it (a SQLite file, or a PostgreSQL schema with
//! `SHACL_MCP_TEST_POSTGRES`): data survives a restart with signatures that verify, and two
//! hundred concurrent creates all land, through two engines on PostgreSQL (two nodes).

mod common;

use std::sync::Arc;

use common::*;
use serde_json::json;
use shacl_mcp::clock::{RandomIds, SystemClock};
use shacl_mcp::engine::{Engine, QueryArgs};

fn open(db: &TestDb) -> Engine {
    let store = db.open(Arc::new(SystemClock));
    Engine::new(store.links, fixed(&["tasks.json"]), Arc::new(RandomIds))
}

#[test]
fn data_survives_reopen_and_verifies() {
    let db = TestDb::new("reopen");
    let (p, t, did) = {
        let engine = open(&db);
        let p = engine.add_perspective("Team").unwrap()["uuid"]
            .as_str()
            .unwrap()
            .to_string();
        let props = obj(json!({ "title": "persist me", "tags": ["a"] })).unwrap();
        let t = engine.instance_create(&p, "Task", &props, None, None).unwrap()["base_uri"]
            .as_str()
            .unwrap()
            .to_string();
        (p, t, engine.store().did().to_string())
    };
    let engine = open(&db);
    assert_eq!(engine.store().did(), did, "the node key is kept");
    let got = engine.instance_get(&p, "Task", &t).unwrap();
    assert_eq!(
        (got["title"].as_str(), got["status"].as_str()),
        (Some("persist me"), Some("open"))
    );
    let report = engine.store().verify().unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!(
        (report.transactions, report.links),
        (1, 4),
        "one signed transaction for the create"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_creates_all_land() {
    let db = TestDb::new("concurrent");
    let engine = Arc::new(open(&db));
    // On PostgreSQL every other create goes through a second node.
    let second = if db.is_postgres() {
        Arc::new(open(&db))
    } else {
        engine.clone()
    };
    let p = engine.add_perspective("Load").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let mut handles = Vec::new();
    for i in 0..200 {
        let engine = if i % 2 == 0 { engine.clone() } else { second.clone() };
        let p = p.clone();
        handles.push(tokio::task::spawn_blocking(move || {
            let props = obj(json!({ "title": format!("task {i}"), "priority": 1 + i % 5 })).unwrap();
            engine.instance_create(&p, "Task", &props, None, None).map(|_| ())
        }));
    }
    // Readers run meanwhile.
    let reader = {
        let (engine, p) = (engine.clone(), p.clone());
        tokio::task::spawn_blocking(move || {
            for _ in 0..20 {
                engine.instance_query(&p, "Task", &QueryArgs::default()).unwrap();
            }
        })
    };
    for h in handles {
        h.await.unwrap().unwrap();
    }
    reader.await.unwrap();
    let args = QueryArgs {
        limit: Some(1),
        ..QueryArgs::default()
    };
    assert_eq!(engine.instance_query(&p, "Task", &args).unwrap()["total_count"], 200);
    assert!(engine.store().verify().unwrap().failures.is_empty());
}
