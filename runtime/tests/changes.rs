//! `changes_since` (docs/data-model.md, "The change feed") over SQLite files, or PostgreSQL
//! schemas when `SHACL_MCP_TEST_POSTGRES` is set: kinds, the class filter, paging, cursors
//! across restarts and nodes, forget, access rules and refusals.

mod common;

use std::sync::Arc;

use common::*;
use serde_json::{Value, json};
use shacl_mcp::clock::{RandomIds, SystemClock};
use shacl_mcp::engine::{Engine, ForgetTarget};
use shacl_mcp::store::AuthorKey;

fn engine(db: &TestDb) -> Engine {
    Engine::new(
        db.open(Arc::new(SystemClock)).links,
        fixed(&["tasks.json"]),
        Arc::new(RandomIds),
    )
}

fn task(engine: &Engine, p: &str, title: &str) -> String {
    let properties = obj(json!({ "title": title })).unwrap();
    let created = engine.instance_create(p, "Task", &properties, None, None).unwrap();
    created["base_uri"].as_str().unwrap().to_string()
}

fn list(engine: &Engine, p: &str, name: &str) -> String {
    let properties = obj(json!({ "name": name })).unwrap();
    let created = engine.instance_create(p, "TodoList", &properties, None, None).unwrap();
    created["base_uri"].as_str().unwrap().to_string()
}

fn retitle(engine: &Engine, p: &str, id: &str, title: &str) {
    let properties = obj(json!({ "title": title })).unwrap();
    engine.instance_update(p, "Task", id, Some(&properties), &[]).unwrap();
}

fn start(engine: &Engine, p: &str) -> String {
    let answer = engine.changes_since(p, None, None, None).unwrap();
    assert_eq!(answer["changes"], json!([]));
    assert_eq!(answer["has_more"], false);
    answer["cursor"].as_str().unwrap().to_string()
}

/// (base_uri, kind, class_names) of each entry, and the answer.
fn since(
    engine: &Engine,
    p: &str,
    cursor: &str,
    class: Option<&str>,
    limit: Option<u64>,
) -> (Vec<(String, String, Value)>, Value) {
    let answer = engine.changes_since(p, Some(cursor), class, limit).unwrap();
    let entries = answer["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["base_uri"].as_str().unwrap().to_string(),
                e["kind"].as_str().unwrap().to_string(),
                e["class_names"].clone(),
            )
        })
        .collect();
    (entries, answer)
}

fn entry(id: &str, kind: &str, classes: &[&str]) -> (String, String, Value) {
    (id.to_string(), kind.to_string(), json!(classes))
}

#[test]
fn one_entry_per_instance_with_its_kind_relative_to_the_cursor() {
    let db = TestDb::new("changes_kinds");
    let engine = engine(&db);
    let p = engine.add_perspective("feed").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let kept = task(&engine, &p, "kept");
    let gone = task(&engine, &p, "gone");
    let cursor = start(&engine, &p);
    retitle(&engine, &p, &kept, "kept, retitled");
    engine.instance_remove(&p, "Task", &gone).unwrap();
    let fresh = task(&engine, &p, "fresh");
    retitle(&engine, &p, &fresh, "fresh, retitled");
    let todo = list(&engine, &p, "groceries");
    let (entries, answer) = since(&engine, &p, &cursor, None, None);
    assert_eq!(
        entries,
        [
            entry(&kept, "updated", &["Task"]),
            entry(&gone, "removed", &["Task"]),
            entry(&fresh, "created", &["Task"]),
            entry(&todo, "created", &["TodoList"]),
        ]
    );
    let first = &answer["changes"][0];
    assert_eq!(first["author"], engine.did());
    assert!(first["at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(answer["has_more"], false);
    // The answer's cursor is the end: nothing after it, and the current end is the same.
    let end = answer["cursor"].as_str().unwrap();
    assert_eq!(since(&engine, &p, end, None, None).0, []);
    assert_eq!(start(&engine, &p), end);
    // The class filter keeps the entries of that class (named as describe_perspective does).
    assert_eq!(
        since(&engine, &p, &cursor, Some("todolist"), None).0,
        [entry(&todo, "created", &["TodoList"])]
    );
}

#[test]
fn pages_follow_the_limit_and_add_up_to_the_whole() {
    let db = TestDb::new("changes_pages");
    let engine = engine(&db);
    let p = engine.add_perspective("pages").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let cursor = start(&engine, &p);
    let ids: Vec<String> = (0..5).map(|i| task(&engine, &p, &format!("t{i}"))).collect();
    list(&engine, &p, "not a task");
    let (mut seen, mut at, mut pages) = (Vec::new(), cursor.clone(), 0);
    loop {
        let (entries, answer) = since(&engine, &p, &at, Some("Task"), Some(2));
        assert!(entries.len() <= 2);
        seen.extend(entries.into_iter().map(|(id, _, _)| id));
        at = answer["cursor"].as_str().unwrap().to_string();
        pages += 1;
        if answer["has_more"] == false {
            break;
        }
    }
    assert_eq!(seen, ids);
    assert_eq!(pages, 3);
    let (all, _) = since(&engine, &p, &cursor, None, Some(1000));
    assert_eq!(all.len(), 6);
}

#[test]
fn a_cursor_outlives_a_restart_and_sees_every_node() {
    let db = TestDb::new("changes_restart");
    let (p, cursor, before) = {
        let engine = engine(&db);
        let p = engine.add_perspective("lasting").unwrap()["uuid"]
            .as_str()
            .unwrap()
            .to_string();
        let cursor = start(&engine, &p);
        (p.clone(), cursor, task(&engine, &p, "before the restart"))
    };
    // Opened again: a restart on SQLite, another node on PostgreSQL; a third runs beside it.
    let engine = engine(&db);
    let beside = self::engine(&db);
    let after = task(&beside, &p, "on another node");
    let (entries, _) = since(&engine, &p, &cursor, None, None);
    assert_eq!(
        entries,
        [
            entry(&before, "created", &["Task"]),
            entry(&after, "created", &["Task"])
        ]
    );
}

#[test]
fn forget_takes_the_instance_out_of_the_feed() {
    let db = TestDb::new("changes_forget");
    let engine = engine(&db);
    let p = engine.add_perspective("forget").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let cursor = start(&engine, &p);
    let id = task(&engine, &p, "private");
    retitle(&engine, &p, &id, "still private");
    let other = task(&engine, &p, "other");
    engine.forget(&p, ForgetTarget::Record(id.clone())).unwrap();
    // Neither its history nor its removal: the IRI itself leaves the database.
    let (entries, answer) = since(&engine, &p, &cursor, None, None);
    assert_eq!(entries, [entry(&other, "created", &["Task"])]);
    assert_eq!(answer["has_more"], false);
    assert!(engine.change_rows(&p, 0, 1000).unwrap().iter().all(|r| r.source != id));
}

#[test]
fn another_users_perspective_answers_like_a_missing_one() {
    let db = TestDb::new("changes_access");
    let node = engine(&db);
    let ada = node.as_user(Arc::new(AuthorKey::generate().unwrap()));
    let bob = node.as_user(Arc::new(AuthorKey::generate().unwrap()));
    let p = ada.add_perspective("ada's").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let cursor = start(&ada, &p);
    task(&ada, &p, "hers");
    let foreign = error_json(bob.changes_since(&p, Some(&cursor), None, None));
    let missing = error_json(bob.changes_since("no-such-perspective", Some(&cursor), None, None));
    assert_eq!(foreign["error"], format!("Perspective '{p}' not found"));
    assert_eq!(foreign["hint"], missing["hint"]);
    assert!(bob.can_read(&p).is_ok_and(|seen| !seen));
    assert_eq!(since(&ada, &p, &cursor, None, None).0.len(), 1);
    assert_eq!(
        since(&ada, &p, &cursor, None, None).1["changes"][0]["author"],
        ada.did()
    );
}

#[test]
fn bad_cursors_and_unknown_classes_are_refused() {
    let db = TestDb::new("changes_refusals");
    let engine = engine(&db);
    let p = engine.add_perspective("refusals").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let envelope = error_json(engine.changes_since(&p, Some("yesterday"), None, None));
    assert_eq!(envelope["validation_errors"][0]["property"], "cursor");
    let unknown = error_json(engine.changes_since(&p, None, Some("Nope"), None));
    assert!(
        unknown["error"].as_str().unwrap().contains("Unknown class 'Nope'"),
        "{unknown}"
    );
}
