//! The short cuts of the engine give the answers the long way gives.
//!
//! instance_query narrows its candidates in the store by the value keys of its filter (the
//! pushdown), then reads their values three ways: the candidates' own links (few candidates,
//! narrowed, or under a `parent`), a property at a time over the whole perspective (many
//! candidates), and not at all (no filter, or conditions on `id` alone: only the page is read).
//! Every way must give the same answer, byte for byte, as the engine with the pushdown off (every
//! instance of the class evaluated), on data written every way there is: by the engine, by hand
//! with AD4M's other spellings, with several links for one scalar, with unreadable links; and on
//! random data with random filters and pages ([`random`]).

mod common;
#[path = "engine_fast_paths/random.rs"]
mod random;

use common::*;
use serde_json::{Value, json};
use shacl_mcp::engine::QueryArgs;
use shacl_mcp::store::Order;

const PARENT: &str = "ad4m://board";

/// More Tasks than the threshold from which the engine reads a property at a time.
const TASKS: usize = 300;

struct Data {
    s: Setup,
    p: String,
    ids: Vec<String>,
}

fn data() -> Data {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("Q");
    let statuses = ["open", "in_progress", "done"];
    let mut ids = Vec::new();
    for i in 0..TASKS {
        // Some share a timestamp (then seq orders them).
        if i % 3 != 0 {
            s.clock.advance(7);
        }
        let mut props = json!({ "title": format!("task {i:03}"), "status": statuses[i % 3] });
        if i % 4 != 0 {
            props["priority"] = json!(1 + i % 5);
        }
        if i % 5 == 0 {
            props["tags"] = json!(["x", format!("t{}", i % 7)]);
        }
        if i % 6 == 0 {
            props["estimateHours"] = json!(i as f64 / 4.0);
        }
        if i % 9 == 0 {
            props["dueDate"] = json!(format!("2026-12-{:02}T10:00:00Z", 1 + i % 28));
        }
        let r = s
            .engine
            .instance_create(&p, "Task", obj(props).as_ref().unwrap(), None, Some(PARENT))
            .unwrap();
        ids.push(r["base_uri"].as_str().unwrap().to_string());
    }
    // Later writes: last write wins, by update and by hand.
    for (i, id) in ids.iter().enumerate().step_by(11) {
        s.clock.advance(3);
        let props = obj(json!({ "status": "done", "priority": 5 }));
        s.engine.instance_update(&p, "Task", id, props.as_ref(), &[]).unwrap();
        if i % 2 == 0 {
            // A second status link, newer, in another spelling.
            s.engine
                .add_link(&p, id, "todo://status", "literal://string:open", false)
                .unwrap();
            // An unreadable priority: the readable one before it still wins.
            s.engine
                .add_link(&p, id, "todo://priority", "literal:string:high", false)
                .unwrap();
        }
    }
    // Tasks written by hand, in AD4M's other spellings.
    for (i, status) in [
        "literal:done^^xsd:string",
        "literal:string:d%6Fne",
        "done",
        "literal://string:open",
    ]
    .iter()
    .enumerate()
    {
        s.clock.advance(5);
        let node = format!("ad4m://hand/{i}");
        let commands = json!([
            { "action": "addLink", "source": "this", "predicate": "rdf://type", "target": "todo://Task" },
            { "action": "addLink", "source": "this", "predicate": "todo://title", "target": format!("literal://string:Hand%20made%20{i}") },
            { "action": "addLink", "source": "this", "predicate": "todo://status", "target": status },
            { "action": "addLink", "source": "this", "predicate": "todo://priority", "target": "literal:2^^xsd:integer" },
            { "action": "addLink", "source": "this", "predicate": "todo://priority", "target": "literal:number:3.0" },
            { "action": "addLink", "source": "this", "predicate": "todo://tag", "target": "x" },
            { "action": "addLink", "source": "this", "predicate": "todo://tag", "target": "literal:string:x" },
        ]);
        s.engine
            .execute_commands(&p, &node, commands.as_array().unwrap(), None)
            .unwrap();
        s.engine.add_child(&p, PARENT, &node).unwrap();
        ids.push(node);
    }
    // Not Tasks: a node with Task values but no marker, and a TodoList.
    s.engine
        .add_link(&p, "ad4m://not-a-task", "todo://status", "literal:string:done", false)
        .unwrap();
    s.engine.add_child(&p, PARENT, "ad4m://not-a-task").unwrap();
    let list = obj(json!({ "name": "done" }));
    s.engine
        .instance_create(&p, "TodoList", list.as_ref().unwrap(), None, Some(PARENT))
        .unwrap();
    // Some removed.
    for id in ids.iter().take(TASKS).skip(5).step_by(37) {
        s.engine.instance_remove(&p, "Task", id).unwrap();
    }
    Data { s, p, ids }
}

fn args(filter: &Value, parent: bool, limit: u64, offset: u64, order: Order) -> QueryArgs {
    QueryArgs {
        filter: obj(filter.clone()),
        parent: parent.then(|| PARENT.to_string()),
        limit: Some(limit),
        offset: Some(offset),
        order,
    }
}

fn query(d: &Data, filter: &Value, parent: bool, limit: u64, offset: u64, order: Order) -> Value {
    d.s.engine
        .instance_query(&d.p, "Task", &args(filter, parent, limit, offset, order))
        .unwrap_or_else(|e| panic!("{filter}: {:?}", e.to_json()))
}

fn filters(d: &Data) -> Vec<Value> {
    vec![
        json!({}),
        json!({ "status": "done" }),
        json!({ "status": "open" }),
        json!({ "status": ["done", "in_progress"] }),
        json!({ "status": { "not": "open" } }),
        json!({ "priority": 2 }),
        json!({ "priority": 3.0 }),
        json!({ "priority": { "gt": 2, "lte": 4 } }),
        json!({ "priority": "high" }),
        json!({ "estimateHours": { "gte": 10 } }),
        json!({ "dueDate": { "lt": "2026-12-10" } }),
        json!({ "title": { "contains": "made" } }),
        json!({ "title": { "lt": "task 100" } }),
        json!({ "title": "task 042" }),
        json!({ "tags": "x" }),
        json!({ "tags": ["t3", "t5"] }),
        json!({ "tags": { "not": "x" } }),
        json!({ "id": d.ids[7] }),
        json!({ "id": [d.ids[8], d.ids[300], "ad4m://nowhere"] }),
        json!({ "id": { "contains": "hand" } }),
        json!({ "OR": [{ "status": "done" }, { "priority": 1 }] }),
        json!({ "AND": [{ "status": "done" }, { "NOT": { "priority": 5 } }] }),
        json!({ "NOT": { "OR": [{ "tags": "x" }, { "status": "in_progress" }] } }),
        json!({ "status": "done", "tags": "x", "priority": { "gte": 2 } }),
        json!({ "status": "nothing" }),
    ]
}

#[test]
fn every_way_of_reading_gives_the_same_answer() {
    let d = data();
    let pages = [(500, 0), (100, 0), (7, 3), (10, 95), (1, 299), (50, 400)];
    for filter in filters(&d) {
        for order in [Order::OldestFirst, Order::NewestFirst] {
            for (limit, offset) in pages {
                // Under the parent every candidate is read one at a time; without it, many
                // candidates are read a property at a time (or not at all).
                let one_by_one = query(&d, &filter, true, limit, offset, order);
                let by_property = query(&d, &filter, false, limit, offset, order);
                assert_eq!(
                    one_by_one, by_property,
                    "{filter} {order:?} limit {limit} offset {offset}"
                );
                let naive = d.s.engine.without_pushdown();
                for parent in [true, false] {
                    let args = args(&filter, parent, limit, offset, order);
                    let scanned = naive.instance_query(&d.p, "Task", &args).unwrap();
                    let planned = if parent { &one_by_one } else { &by_property };
                    assert_eq!(
                        *planned, scanned,
                        "{filter} {order:?} limit {limit} offset {offset} parent {parent}"
                    );
                }
            }
        }
    }
}

#[test]
fn without_a_filter_only_the_page_is_read_and_the_answer_is_the_same() {
    let d = data();
    // Always true, and read instance by instance (it names a property).
    let everything = json!({ "NOT": { "title": "\u{0}never" } });
    for order in [Order::OldestFirst, Order::NewestFirst] {
        for (limit, offset) in [(500, 0), (100, 0), (7, 3), (10, 295), (50, 400)] {
            let read = query(&d, &everything, true, limit, offset, order);
            for parent in [true, false] {
                let args = QueryArgs {
                    parent: parent.then(|| PARENT.to_string()),
                    limit: Some(limit),
                    offset: Some(offset),
                    order,
                    ..QueryArgs::default()
                };
                let unfiltered = d.s.engine.instance_query(&d.p, "Task", &args).unwrap();
                assert_eq!(
                    read, unfiltered,
                    "{order:?} limit {limit} offset {offset} parent {parent}"
                );
            }
        }
    }
}

#[test]
fn other_spellings_and_later_links_are_found_by_value() {
    let d = data();
    let ids = |r: &Value| -> Vec<String> {
        r["instances"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_str().unwrap().to_string())
            .collect()
    };
    // A status equal to "done" in any spelling counts; a newer "open" hides an older "done".
    // (So equality cannot be answered from the index by the canonical target alone.)
    let done = query(&d, &json!({ "status": "done" }), false, 500, 0, Order::OldestFirst);
    let found = ids(&done);
    for hand in ["ad4m://hand/0", "ad4m://hand/1", "ad4m://hand/2"] {
        assert!(found.contains(&hand.to_string()), "{hand} is done");
    }
    assert!(!found.contains(&"ad4m://hand/3".to_string()));
    assert!(!found.contains(&d.ids[0]), "updated to done, then a newer open link");
    assert!(found.contains(&d.ids[11]), "updated to done");
    assert!(!found.contains(&"ad4m://not-a-task".to_string()));
    assert_eq!(done["total_count"].as_u64(), Some(found.len() as u64));
    // The unreadable priority is skipped: the update's 5 still holds.
    let five = query(&d, &json!({ "priority": 5 }), false, 500, 0, Order::OldestFirst);
    assert!(ids(&five).contains(&d.ids[0]));
    // `literal:number:3.0` after `literal:2^^xsd:integer`: the priority is 3.
    let three = query(&d, &json!({ "priority": 3 }), false, 500, 0, Order::OldestFirst);
    assert!(ids(&three).contains(&"ad4m://hand/0".to_string()));
}

/// Random data sets, each queried with random filters and pages.
const RANDOM_SEEDS: u64 = 8;
const RANDOM_QUERIES: usize = 150;

/// The differential test: on random data (foreign spellings, overwritten scalars, removed links,
/// collections, nodes that are not Tasks, writes from a clock that stepped back, writes taken
/// back), random filters, orders and pages answer exactly as
/// with the pushdown off. Every fourth data set has more Tasks than the bulk threshold, so the
/// full scan reads a property at a time over the perspective.
#[test]
fn random_filters_answer_as_the_full_scan() {
    for seed in 1..=RANDOM_SEEDS {
        let mut rng = random::Rng::new(seed);
        let s = setup(&["tasks.json"]);
        let p = s.perspective("R");
        let nodes = if seed % 4 == 0 { 300 } else { 40 + rng.below(80) };
        let mut ids = Vec::with_capacity(nodes);
        for i in 0..nodes {
            if rng.chance(70) {
                s.clock.advance(1 + rng.below(3) as i64);
            }
            let node = format!("ad4m://r{seed}/{i}");
            let task = rng.chance(90);
            let commands = random::commands(&mut rng, task);
            s.engine.execute_commands(&p, &node, &commands, None).unwrap();
            if rng.chance(30) {
                s.engine.add_child(&p, PARENT, &node).unwrap();
            }
            ids.push(node);
        }
        // Later writes over earlier ones: last write wins. Now and then the clock steps back,
        // and the write is the earlier one.
        for _ in 0..nodes / 3 {
            s.clock.advance(if rng.chance(10) { -5 } else { 1 });
            let node = rng.pick(&ids).clone();
            let commands = random::commands(&mut rng, false);
            s.engine.execute_commands(&p, &node, &commands, None).unwrap();
            // Now and then taken back: the values before it are the last again.
            if rng.chance(20) {
                s.engine
                    .execute_commands(&p, &node, &random::undo(&commands), None)
                    .unwrap();
            }
        }
        let naive = s.engine.without_pushdown();
        let mut answered = 0;
        for _ in 0..RANDOM_QUERIES {
            let filter = random::filter(&mut rng, &ids);
            let (limit, offset, order, parent) = random::page(&mut rng, nodes);
            let args = args(&filter, parent, limit, offset, order);
            let context = format!("seed {seed}: {filter} {order:?} limit {limit} offset {offset} parent {parent}");
            match (
                s.engine.instance_query(&p, "Task", &args),
                naive.instance_query(&p, "Task", &args),
            ) {
                (Ok(planned), Ok(scanned)) => {
                    assert_eq!(planned, scanned, "{context}");
                    answered += usize::from(planned["total_count"].as_u64() > Some(0));
                }
                (Err(planned), Err(scanned)) => assert_eq!(planned.to_json(), scanned.to_json(), "{context}"),
                (planned, scanned) => panic!("{context}: {planned:?} but {scanned:?}"),
            }
        }
        // The filters hit: the comparison is of answers, not of empty lists.
        assert!(
            answered >= RANDOM_QUERIES / 5,
            "seed {seed}: {answered} queries with answers"
        );
    }
}

/// A create skips the removals of its setters while the new node has no links, and only then.
#[test]
fn create_on_a_node_with_links_still_replaces_them() {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("C");
    let node = "ad4m://old";
    s.engine
        .add_link(&p, node, "todo://status", "literal:string:in_progress", false)
        .unwrap();
    s.engine
        .add_link(&p, node, "todo://title", "literal:string:Old", false)
        .unwrap();
    s.clock.advance(10);
    let props = obj(json!({ "title": "New", "priority": 2 }));
    s.engine
        .instance_create(&p, "Task", props.as_ref().unwrap(), Some(node), None)
        .unwrap();
    let got = s.engine.instance_get(&p, "Task", node).unwrap();
    assert_eq!(
        (got["title"].as_str(), got["status"].as_str()),
        (Some("New"), Some("open"))
    );
    for (predicate, left) in [("todo://title", 1), ("todo://status", 1), ("todo://priority", 1)] {
        let pattern = shacl_mcp::store::LinkPattern {
            source: Some(node),
            predicate: Some(predicate),
            target: None,
        };
        let links = s.engine.query_links(&p, pattern, None, None).unwrap();
        assert_eq!(links["total_count"], left, "{predicate}: {links}");
    }
    // A fresh node: the constructor's default status is replaced by the given one.
    let id = s.created(&p, "Task", json!({ "title": "t", "status": "done" }));
    let pattern = shacl_mcp::store::LinkPattern {
        source: Some(&id),
        predicate: Some("todo://status"),
        target: None,
    };
    let links = s.engine.query_links(&p, pattern, None, None).unwrap();
    assert_eq!(links["total_count"], 1);
    assert_eq!(links["links"][0]["target"], "literal:string:done");
}

/// instance_get decides from the node's links whether it is an instance.
#[test]
fn get_of_a_node_without_the_whole_marker() {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("G");
    s.engine
        .add_link(&p, "ad4m://half", "todo://title", "literal:string:x", false)
        .unwrap();
    s.engine
        .add_link(&p, "ad4m://half", "rdf://type", "todo://TodoList", false)
        .unwrap();
    for node in ["ad4m://half", "ad4m://nothing"] {
        let e = error_json(s.engine.instance_get(&p, "Task", node));
        assert_eq!(e["error"], format!("No Task with id '{node}' in perspective '{p}'"));
    }
    s.engine
        .add_link(&p, "ad4m://half", "rdf://type", "todo://Task", false)
        .unwrap();
    assert_eq!(s.engine.instance_get(&p, "Task", "ad4m://half").unwrap()["title"], "x");
}
