//! `forget` over a file database: the record is gone from the file and its write-ahead log, the
//! signatures still verify, what stays elsewhere is attested, and the tool answers through MCP.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::*;
use serde_json::{Map, Value, json};
use shacl_mcp::clock::{RandomIds, SystemClock};
use shacl_mcp::engine::{Engine, ForgetTarget, QueryArgs};
use shacl_mcp::mcp::auth::Caller;
use shacl_mcp::mcp::{McpServer, ServerOptions};
use shacl_mcp::store::AuthorKey;
use shacl_mcp::store::sqlite::SqliteStore;

/// Unique to the forgotten record; as stored, a `literal:string:` is percent-encoded.
const MARKER: &str = "zebra 7f3c9a-41d8-b2e6 Ωmega";
const MARKER_ENCODED: &str = "zebra%207f3c9a-41d8-b2e6%20%CE%A9mega";
const OLD_MARKER: &str = "zebra-old 5e81c0-77aa";

struct TempDb(PathBuf);

impl TempDb {
    fn new(name: &str) -> TempDb {
        let dir = std::env::temp_dir().join(format!("shacl-mcp-forget-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDb(dir.join("store.db"))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.0.parent().unwrap());
    }
}

fn open(path: &Path) -> Engine {
    let store = SqliteStore::open(path, Arc::new(SystemClock)).expect("open");
    Engine::new(Arc::new(store), fixed(&["tasks.json"]), Arc::new(RandomIds))
}

fn uuid(result: Value) -> String {
    result["uuid"].as_str().unwrap().to_string()
}

fn create(engine: &Engine, p: &str, class: &str, properties: Value, parent: Option<&str>) -> String {
    let properties = obj(properties).unwrap();
    let result = engine
        .instance_create(p, class, &properties, None, parent)
        .unwrap_or_else(|e| panic!("create {class}: {:?}", e.to_json()));
    result["base_uri"].as_str().unwrap().to_string()
}

fn record(node: &str) -> ForgetTarget {
    ForgetTarget::Record(node.to_string())
}

fn add_link(action: &str, source: &str, predicate: &str, target: &str) -> Value {
    json!({ "action": action, "source": source, "predicate": predicate, "target": target })
}

fn verifies(engine: &Engine) {
    let report = engine.store().verify().unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// The database file and whatever lies beside it (-wal, -shm), as raw bytes.
fn files_of(path: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let file = PathBuf::from(format!("{}{suffix}", path.display()));
        if let Ok(bytes) = std::fs::read(&file) {
            files.push((file, bytes));
        }
    }
    files
}

/// The stored hashes of the links in and out of `node`, and the hashes of links removed earlier
/// that their transactions signed (read with a connection of its own, closed before returning).
fn hashes_of(path: &Path, node: &str) -> Vec<Vec<u8>> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let select = |sql: &str| -> Vec<Vec<u8>> {
        let mut stmt = conn.prepare(sql).unwrap();
        stmt.query_map([node], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let mut hashes = select("SELECT hash FROM links WHERE source = ?1 OR target = ?1");
    let live: std::collections::HashSet<Vec<u8>> = {
        let mut stmt = conn.prepare("SELECT hash FROM links").unwrap();
        stmt.query_map([], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let lists = select(
        "SELECT link_hashes FROM transactions WHERE id IN (SELECT tx FROM links WHERE source = ?1 OR target = ?1)",
    );
    for list in lists {
        hashes.extend(list.chunks(32).filter(|h| !live.contains(*h)).map(<[u8]>::to_vec));
    }
    hashes
}

fn assert_nowhere(path: &Path, needles: &[&str], state: &str) {
    let files = files_of(path);
    assert!(!files.is_empty());
    for (file, bytes) in &files {
        for needle in needles {
            assert!(
                !contains(bytes, needle),
                "{needle:?} survives in {} ({state})",
                file.display()
            );
        }
    }
    assert!(
        files.iter().any(|(_, bytes)| contains(bytes, "buy%20milk")),
        "the other data is still stored ({state})"
    );
}

#[test]
fn the_marker_is_nowhere_in_the_file_or_its_log() {
    let db = TempDb::new("marker");
    let engine = open(db.path());
    let p = uuid(engine.add_perspective("Work").unwrap());
    let milk = create(
        &engine,
        &p,
        "Task",
        json!({ "title": "buy milk", "tags": ["home"] }),
        None,
    );
    // The record: a value to be replaced first, a tag, and a parent (a has_child edge into it).
    let zebra = create(
        &engine,
        &p,
        "Task",
        json!({ "title": OLD_MARKER, "tags": [format!("tag {MARKER}")], "priority": 2 }),
        Some(&milk),
    );
    engine
        .instance_update(&p, "Task", &zebra, obj(json!({ "title": MARKER })).as_ref(), &[])
        .unwrap();
    let bread = create(&engine, &p, "Task", json!({ "title": "bake bread" }), None);
    // One transaction with links that go and a link that stays: a collection membership of a
    // list, a has_child edge out of the record, another membership.
    let list = create(&engine, &p, "TodoList", json!({ "name": "Groceries" }), None);
    engine
        .execute_commands(
            &p,
            &list,
            &[
                add_link("addLink", "this", "todo://item", &zebra),
                add_link("addLink", &zebra, "ad4m://has_child", &bread),
                add_link("addLink", "this", "todo://item", &milk),
            ],
            None,
        )
        .unwrap();
    // Enough writes after the record that its pages split and move.
    for i in 0..150 {
        create(
            &engine,
            &p,
            "Task",
            json!({ "title": format!("filler task number {i} with a longer title to fill pages"), "tags": [format!("t{i}")] }),
            None,
        );
    }
    verifies(&engine);
    assert_eq!(engine.instance_get(&p, "Task", &zebra).unwrap()["title"], MARKER);

    let hashes = hashes_of(db.path(), &zebra);
    assert_eq!(hashes.len(), 9, "8 links and the replaced title");

    let attestation = engine.forget(&p, record(&zebra)).unwrap();
    assert_eq!(
        attestation,
        json!({
            "erased": {
                // type, status, title, priority, tag and the has_child edge out; the has_child
                // edge in and the list's membership.
                "links": 8, "instances": 1, "index_entries": 1, "hashes": 8,
                // The replaced title, in the create's transaction.
                "stale_hashes": 1,
                // The create and the update, left empty; execute_commands keeps the list → milk link.
                "transactions": 2, "transactions_redacted": 1,
                "models": 0, "perspectives": 0,
            },
            "remaining": [],
            "complete": true,
        })
    );

    // Gone from the perspective, and the rest intact.
    assert!(engine.instance_get(&p, "Task", &zebra).is_err());
    assert_eq!(engine.instance_get(&p, "Task", &milk).unwrap()["title"], "buy milk");
    assert_eq!(engine.instance_get(&p, "Task", &bread).unwrap()["title"], "bake bread");
    let items = engine
        .query_links(
            &p,
            shacl_mcp::store::LinkPattern {
                source: Some(&list),
                predicate: Some("todo://item"),
                target: None,
            },
            None,
            None,
        )
        .unwrap();
    assert_eq!(items["total_count"], 1);
    assert_eq!(items["links"][0]["target"], milk.as_str());
    assert_eq!(engine.get_children(&p, &milk, None).unwrap()["total_count"], 0);
    let tasks = engine.instance_query(&p, "Task", &QueryArgs::default()).unwrap();
    assert_eq!(tasks["total_count"], 152);
    verifies(&engine);
    // Forgetting again finds nothing more and says so.
    let again = engine.forget(&p, record(&zebra)).unwrap();
    assert_eq!(again["erased"]["links"], 0);
    assert_eq!(again["complete"], true);

    // Nowhere while the store is still open (the log was truncated), nor once it is closed.
    let needles = [
        MARKER,
        MARKER_ENCODED,
        "7f3c9a-41d8-b2e6",
        OLD_MARKER,
        "5e81c0-77aa",
        zebra.as_str(),
    ];
    assert_nowhere(db.path(), &needles, "open");
    drop(engine);
    assert_nowhere(db.path(), &needles, "closed");
    for (file, bytes) in files_of(db.path()) {
        for hash in &hashes {
            assert!(
                !bytes.windows(hash.len()).any(|w| w == &hash[..]),
                "a hash of the record survives in {}",
                file.display()
            );
        }
    }

    // Reopened: everything else still reads and verifies.
    let engine = open(db.path());
    verifies(&engine);
    assert_eq!(engine.instance_get(&p, "Task", &milk).unwrap()["title"], "buy milk");
}

#[test]
fn links_in_other_perspectives_are_named_and_left_alone() {
    let db = TempDb::new("elsewhere");
    let engine = open(db.path());
    let p = uuid(engine.add_perspective("Mine").unwrap());
    let q = uuid(engine.add_perspective("Elsewhere").unwrap());
    let r = uuid(engine.add_perspective("Unrelated").unwrap());
    let zebra = create(&engine, &p, "Task", json!({ "title": MARKER }), None);
    engine
        .add_link(&q, "app://note/1", "app://about", &zebra, false)
        .unwrap();
    engine
        .add_link(&q, "app://note/2", "app://about", &zebra, false)
        .unwrap();
    engine
        .add_link(&q, &zebra, "app://seen_by", "app://note/1", false)
        .unwrap();
    engine
        .add_link(&r, "app://other", "app://about", "app://someone-else", false)
        .unwrap();

    let attestation = engine.forget(&p, record(&zebra)).unwrap();
    assert_eq!(attestation["complete"], false);
    assert_eq!(attestation["erased"]["links"], 3, "type, status, title");
    assert_eq!(
        attestation["remaining"],
        json!([{
            "what": format!("2 links in perspective {q} point at the record and 1 comes from it"),
            "why": "forget never reaches outside the perspective it is given",
        }])
    );
    let elsewhere = engine.query_links(&q, Default::default(), None, None).unwrap();
    assert_eq!(elsewhere["total_count"], 3, "untouched");
    assert_eq!(
        engine.query_links(&p, Default::default(), None, None).unwrap()["total_count"],
        0
    );
    verifies(&engine);

    // Only links into it elsewhere: the wording follows.
    let fox = create(&engine, &p, "Task", json!({ "title": "fox" }), None);
    engine.add_link(&q, "app://note/3", "app://about", &fox, false).unwrap();
    let attestation = engine.forget(&p, record(&fox)).unwrap();
    assert_eq!(
        attestation["remaining"][0]["what"],
        format!("1 link in perspective {q} points at the record")
    );
}

#[test]
fn one_link_a_whole_perspective_and_bad_arguments() {
    let db = TempDb::new("link");
    let engine = open(db.path());
    let p = uuid(engine.add_perspective("Links").unwrap());
    let q = uuid(engine.add_perspective("Copy").unwrap());
    let link = ("app://a", "app://knows", "app://b");
    for perspective in [&p, &p, &q] {
        engine.add_link(perspective, link.0, link.1, link.2, false).unwrap();
    }
    engine.add_link(&p, link.0, "app://likes", link.2, false).unwrap();
    let target = ForgetTarget::Link {
        source: link.0.into(),
        predicate: link.1.into(),
        target: link.2.into(),
    };
    let attestation = engine.forget(&p, target).unwrap();
    assert_eq!(attestation["erased"]["links"], 2, "both copies");
    assert_eq!(attestation["erased"]["instances"], 0);
    assert_eq!(attestation["erased"]["index_entries"], 0, "app://a keeps a link");
    assert_eq!(
        attestation["remaining"],
        json!([{ "what": format!("1 copy of this link in perspective {q}"), "why": "forget never reaches outside the perspective it is given" }])
    );
    let left = engine.query_links(&p, Default::default(), None, None).unwrap();
    assert_eq!(left["total_count"], 1);
    assert_eq!(left["links"][0]["predicate"], "app://likes");
    verifies(&engine);

    // A whole perspective, with a model of its own and instances.
    let w = uuid(engine.add_perspective("Doomed").unwrap());
    let shape = json!({
        "target_class": "app://Note",
        "properties": [{ "path": "app://text", "name": "text", "datatype": "xsd:string", "max_count": 1, "writable": true }],
        "constructor": [{ "action": "addLink", "source": "this", "predicate": "rdf://type", "target": "app://Note" }],
    });
    engine.add_model(&w, "Note", &shape).unwrap();
    create(&engine, &w, "Note", json!({ "text": "a" }), None);
    create(&engine, &w, "Note", json!({ "text": "b" }), None);
    create(&engine, &w, "Task", json!({ "title": "c" }), None);
    let attestation = engine.forget(&w, ForgetTarget::WholePerspective).unwrap();
    assert_eq!(
        attestation,
        json!({
            "erased": {
                "links": 7, "instances": 3, "index_entries": 3, "hashes": 7, "stale_hashes": 0,
                "transactions": 3, "transactions_redacted": 0, "models": 1, "perspectives": 1,
            },
            "remaining": [],
            "complete": true,
        })
    );
    let gone = error_json(engine.describe_perspective(&w));
    assert_eq!(gone["error"], format!("Perspective '{w}' not found"));
    let gone = error_json(engine.forget(&w, ForgetTarget::WholePerspective));
    assert_eq!(gone["error"], format!("Perspective '{w}' not found"));
    assert!(
        engine.list_perspectives().unwrap()["perspectives"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["uuid"] != w.as_str())
    );
    assert_eq!(
        engine.query_links(&q, Default::default(), None, None).unwrap()["total_count"],
        1
    );
    verifies(&engine);

    // Unknown perspective: the usual refusal.
    let missing = error_json(engine.forget("no-such", record("app://a")));
    assert_eq!(missing["error"], "Perspective 'no-such' not found");

    // Exactly one of base_uri, link, whole_perspective: true.
    let parse = |args: Value| {
        let args: Map<String, Value> = obj(args).unwrap();
        ForgetTarget::from_arguments(&args)
    };
    let problems_of = |args: Value| problems(parse(args).map(|_| Value::Null));
    assert_eq!(
        problems_of(json!({ "perspective_id": p })),
        pairs(&[(
            "base_uri",
            "missing required argument: give exactly one of base_uri, link or whole_perspective: true"
        )])
    );
    assert_eq!(
        problems_of(json!({ "whole_perspective": false })),
        pairs(&[(
            "base_uri",
            "missing required argument: give exactly one of base_uri, link or whole_perspective: true"
        )])
    );
    assert_eq!(
        problems_of(
            json!({ "base_uri": "app://a", "link": { "source": "s", "predicate": "p", "target": "t" }, "whole_perspective": true })
        ),
        pairs(&[
            (
                "link",
                "give exactly one of base_uri, link or whole_perspective: true: base_uri is given too"
            ),
            (
                "whole_perspective",
                "give exactly one of base_uri, link or whole_perspective: true: base_uri is given too"
            ),
        ])
    );
    assert_eq!(
        problems_of(json!({ "base_uri": "", "link": { "source": "s", "predicate": "" } })),
        pairs(&[
            (
                "link",
                "give exactly one of base_uri, link or whole_perspective: true: base_uri is given too"
            ),
            ("base_uri", "must not be empty"),
            ("link.predicate", "must not be empty"),
            ("link.target", "missing required argument"),
        ])
    );
    let envelope = error_json(parse(json!({})).map(|_| Value::Null));
    assert_eq!(envelope["tool"], "forget");
    assert!(
        envelope["error"]
            .as_str()
            .unwrap()
            .starts_with("Invalid arguments for tool 'forget' (1 problem): base_uri: missing required argument")
    );
    assert_eq!(parse(json!({ "base_uri": "app://a" })).unwrap(), record("app://a"));
    assert_eq!(
        parse(json!({ "whole_perspective": true, "base_uri": null })).unwrap(),
        ForgetTarget::WholePerspective
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_mcp_the_answer_matches_the_output_schema() {
    let db = TempDb::new("mcp");
    let engine = Arc::new(open(db.path()));
    let p = uuid(engine.add_perspective("Served").unwrap());
    let q = uuid(engine.add_perspective("Other").unwrap());
    let zebra = create(&engine, &p, "Task", json!({ "title": MARKER }), None);
    engine.add_link(&q, "app://x", "app://about", &zebra, false).unwrap();
    let server = McpServer::new(engine.clone(), ServerOptions::default());
    let tool = server
        .visible_tools(Caller::Stdio)
        .into_iter()
        .find(|t| t.name == "forget")
        .expect("forget is listed");
    let output_schema = Value::Object((*tool.output_schema.clone().expect("an outputSchema")).clone());
    let validator = jsonschema::validator_for(&output_schema).unwrap();

    let call = |args: Value| {
        let server = server.clone();
        async move {
            server
                .call("forget", obj(args), Caller::Stdio)
                .await
                .expect("a tool result")
        }
    };
    let result = call(json!({ "perspective_id": p, "base_uri": zebra })).await;
    assert_ne!(result.is_error, Some(true));
    let structured = result.structured_content.clone().expect("structuredContent");
    assert!(validator.is_valid(&structured), "{structured} against {output_schema}");
    assert_eq!(structured["complete"], false);
    assert_eq!(structured["erased"]["links"], 3);
    assert_eq!(structured["remaining"].as_array().unwrap().len(), 1);

    let whole = call(json!({ "perspective_id": q, "whole_perspective": true })).await;
    let structured = whole.structured_content.clone().expect("structuredContent");
    assert!(validator.is_valid(&structured), "{structured}");
    assert_eq!(structured["complete"], true);

    let bad = call(json!({ "perspective_id": p, "base_uri": zebra, "whole_perspective": true })).await;
    assert_eq!(bad.is_error, Some(true));
    let body = bad.structured_content.clone().expect("the envelope");
    assert_eq!(body["tool"], "forget");
    assert_eq!(body["validation_errors"][0]["property"], "whole_perspective");

    let missing = call(json!({ "perspective_id": q, "base_uri": zebra })).await;
    assert_eq!(missing.is_error, Some(true));
    assert_eq!(
        missing.structured_content.unwrap()["error"],
        format!("Perspective '{q}' not found")
    );
    verifies(&engine);
}

#[test]
fn a_log_readers_hold_is_attested_as_remaining() {
    let db = TempDb::new("reader");
    let engine = open(db.path());
    let p = uuid(engine.add_perspective("Busy").unwrap());
    let zebra = create(&engine, &p, "Task", json!({ "title": MARKER }), None);
    // A reader inside its snapshot keeps the log's pages from being checkpointed away.
    let reader = engine.store().read().unwrap();
    assert_eq!(reader.perspectives().unwrap().len(), 1);
    let attestation = engine.forget(&p, record(&zebra)).unwrap();
    drop(reader);
    assert_eq!(attestation["erased"]["links"], 3);
    assert_eq!(attestation["complete"], false);
    let remaining = attestation["remaining"].as_array().unwrap();
    assert_eq!(remaining.len(), 1, "{remaining:?}");
    assert_eq!(
        remaining[0]["what"],
        "pages written before the erasure in the database's write-ahead log (its -wal file)"
    );
    assert!(
        remaining[0]["why"]
            .as_str()
            .unwrap()
            .starts_with("the log could not be truncated (readers kept the checkpoint from finishing)")
    );
    // The next forget, with the reader gone, truncates it.
    let next = engine.forget(&p, record("app://nothing")).unwrap();
    assert_eq!(next["complete"], true);
    assert_eq!(
        std::fs::metadata(format!("{}-wal", db.path().display())).unwrap().len(),
        0
    );
    verifies(&engine);
}

#[test]
fn a_user_forgets_their_own_and_learns_nothing_of_others() {
    let db = TempDb::new("users");
    let node = open(db.path());
    let ada = node.as_user(Arc::new(AuthorKey::generate().unwrap()));
    let bob = node.as_user(Arc::new(AuthorKey::generate().unwrap()));
    let pa = uuid(ada.add_perspective("Ada's").unwrap());
    let pa2 = uuid(ada.add_perspective("Ada's other").unwrap());
    let pb = uuid(bob.add_perspective("Bob's").unwrap());
    let po = uuid(node.add_perspective("The node's").unwrap());
    let zebra = create(&ada, &pa, "Task", json!({ "title": MARKER }), None);
    // One transaction of Ada's with a link that goes and one that stays.
    ada.execute_commands(
        &pa,
        "app://list",
        &[
            add_link("addLink", "this", "app://item", &zebra),
            add_link("addLink", "this", "app://item", "app://kept"),
        ],
        None,
    )
    .unwrap();
    ada.add_link(&pa2, "app://mine", "app://about", &zebra, false).unwrap();
    bob.add_link(&pb, "app://bobs", "app://about", &zebra, false).unwrap();
    node.add_link(&po, "app://nodes", "app://about", &zebra, false).unwrap();
    verifies(&node);

    // Another user's perspective answers like a missing one.
    let refused = error_json(bob.forget(&pa, record(&zebra)));
    assert_eq!(refused["error"], format!("Perspective '{pa}' not found"));

    let attestation = ada.forget(&pa, record(&zebra)).unwrap();
    assert_eq!(
        attestation["erased"]["links"], 4,
        "type, status, title, the list's item"
    );
    assert_eq!(attestation["erased"]["transactions_redacted"], 1);
    assert_eq!(
        attestation["remaining"],
        json!([{
            "what": format!("1 link in perspective {pa2} points at the record"),
            "why": "forget never reaches outside the perspective it is given",
        }]),
        "only Ada's own perspectives are named"
    );
    // Ada's transaction, redacted by the node, still verifies; Bob's link is untouched.
    verifies(&node);
    assert_eq!(
        bob.query_links(&pb, Default::default(), None, None).unwrap()["total_count"],
        1
    );
    let kept = ada.query_links(&pa, Default::default(), None, None).unwrap();
    assert_eq!(kept["total_count"], 1);
    assert_eq!(kept["links"][0]["author"], ada.did());

    // The node's owner sees every perspective and names them all.
    let owner = node.forget(&pa2, record(&zebra)).unwrap();
    let named: Vec<&str> = owner["remaining"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["what"].as_str().unwrap())
        .collect();
    assert_eq!(
        named,
        [
            format!("1 link in perspective {pb} points at the record"),
            format!("1 link in perspective {po} points at the record"),
        ]
    );
}
