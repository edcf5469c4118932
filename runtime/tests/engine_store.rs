//! The engine on a file database: data survives a restart with signatures that verify, and
//! two hundred concurrent creates all land.

mod common;

use std::sync::Arc;

use common::*;
use serde_json::json;
use shacl_mcp::clock::{RandomIds, SystemClock};
use shacl_mcp::engine::{Engine, QueryArgs};
use shacl_mcp::store::sqlite::SqliteStore;

fn temp_db(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("shacl-mcp-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("store.db")
}

fn open(path: &std::path::Path) -> Engine {
    let store = SqliteStore::open(path, Arc::new(SystemClock)).expect("open");
    Engine::new(Arc::new(store), fixed(&["tasks.json"]), Arc::new(RandomIds))
}

#[test]
fn data_survives_reopen_and_verifies() {
    let path = temp_db("reopen");
    let (p, t, did) = {
        let engine = open(&path);
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
    let engine = open(&path);
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
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_creates_all_land() {
    let path = temp_db("concurrent");
    let engine = Arc::new(open(&path));
    let p = engine.add_perspective("Load").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let mut handles = Vec::new();
    for i in 0..200 {
        let (engine, p) = (engine.clone(), p.clone());
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
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
