//! Every instance operation over the sample DNAs, each asserting the exact result or problems.

mod common;

use common::*;
use serde_json::json;
use shacl_mcp::engine::QueryArgs;
use shacl_mcp::store::{LinkPattern, Order};

#[test]
fn create_get_update_unset() {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("Team");
    let t = s.created(&p, "Task", json!({ "title": "Write", "priority": 3, "dueDate": "2026-12-31T17:00:00+01:00", "estimateHours": 2, "tags": ["a", "b"] }));
    let got = s.engine.instance_get(&p, "Task", &t).unwrap();
    assert_eq!(
        got,
        json!({ "id": t, "baseExpression": t, "title": "Write", "status": "open", "priority": 3,
                "dueDate": "2026-12-31T17:00:00+01:00", "estimateHours": 2.0, "tags": ["a", "b"],
                "createdAt": T0, "updatedAt": T0, "author": s.did(), "timestamp": T0 })
    );
    s.clock.advance(1_000_000);
    let props = obj(json!({ "status": "done", "priority": 5 }));
    let updated = s
        .engine
        .instance_update(&p, "Task", &t, props.as_ref(), &["dueDate".to_string()])
        .unwrap();
    assert_eq!(
        updated,
        json!({ "success": true, "class_name": "Task", "base_uri": t, "updated_properties": ["status", "priority"], "unset_properties": ["dueDate"] })
    );
    let got = s.engine.instance_get(&p, "Task", &t).unwrap();
    assert_eq!(got["status"], "done");
    assert_eq!(got["priority"], 5);
    assert!(got.get("dueDate").is_none(), "unset removes the value");
    assert_eq!(got["updatedAt"], "2026-12-24T10:00:01.000000Z");
    assert_eq!(got["createdAt"], T0);
}

#[test]
fn every_problem_kind_at_once_in_order() {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("Team");
    let before = s.links(&p);
    let r = s.create(
        &p,
        "Task",
        json!({
            "bogus": 1,
            "tags": ["ok", 7, "x"],
            "assignee": "did:key:nope",
            "estimateHours": -1,
            "dueDate": "tomorrow",
            "priority": 3.5,
            "status": "closed",
            "title": ["a"],
        }),
    );
    assert_eq!(
        problems(r),
        pairs(&[
            ("title", "expects a single value, not an array"),
            (
                "status",
                "not one of the allowed values: \"open\", \"in_progress\", \"done\""
            ),
            ("priority", "expects a whole number"),
            (
                "dueDate",
                "expects a datetime (RFC 3339 with offset, e.g. 2026-12-24T10:00:00Z)"
            ),
            ("estimateHours", "out of range: must be >= 0"),
            (
                "assignee",
                "does not match the pattern ^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$"
            ),
            ("tags[1]", "expects a string"),
            (
                "bogus",
                "unknown property (writable: title, status, priority, dueDate, estimateHours, assignee, tags)"
            ),
        ])
    );
    assert_eq!(s.links(&p), before, "nothing written");
}

#[test]
fn strict_types_and_envelope_fields() {
    let s = setup(&["chat.json"]);
    let p = s.perspective("Chat");
    let e = error_json(s.create(
        &p,
        "Channel",
        json!({ "name": "general", "isPinned": "true", "members": "did:key:x" }),
    ));
    assert_eq!(
        e["validation_errors"][0],
        json!({ "property": "isPinned", "problem": "expects true or false", "expected_type": "boolean", "cardinality": "at most one value (maxCount 1)", "received": "string \"true\"", "constraint": "sh:DatatypeConstraintComponent", "fix": "give a value of the datatype the shape names" })
    );
    assert_eq!(
        e["validation_errors"][1],
        json!({ "property": "members", "problem": "expects an array of values", "expected_type": "reference", "cardinality": "any number of values (collection)", "received": "string \"did:key:x\"" })
    );
    // 3.0 is an integer
    let s = setup(&["tasks.json"]);
    let p = s.perspective("T");
    let t = s.created(&p, "Task", json!({ "title": "x", "priority": 3.0 }));
    assert_eq!(s.engine.instance_get(&p, "Task", &t).unwrap()["priority"], 3);
}

#[test]
fn too_many_items_and_length() {
    let s = setup(&["tasks.json", "chat.json"]);
    let p = s.perspective("T");
    let tags: Vec<String> = (0..11).map(|i| format!("t{i}")).collect();
    assert_eq!(
        problems(s.create(&p, "Task", json!({ "title": "x", "tags": tags }))),
        pairs(&[("tags", "too many values: at most 10")])
    );
    assert_eq!(
        problems(s.create(&p, "Message", json!({ "body": "" }))),
        pairs(&[("body", "too short: at least 1 characters")])
    );
    assert_eq!(
        problems(s.create(&p, "Message", json!({ "body": "x".repeat(4001) }))),
        pairs(&[("body", "too long: at most 4000 characters")])
    );
    // lengths count code points, not bytes
    s.created(&p, "Message", json!({ "body": "é".repeat(4000) }));
}

#[test]
fn read_only_reasons_and_markers() {
    let s = setup(&["zoo.json"]);
    let p = s.perspective("Zoo");
    let r = s.create(
        &p,
        "Dog",
        json!({ "name": "rex", "owner": "ad4m://k", "friendCount": 2, "chipId": "c", "kind": "zoo://dog" }),
    );
    assert_eq!(
        problems(r),
        pairs(&[
            ("owner", "read-only (reverse relation — stored on the target instance)"),
            ("friendCount", "read-only (computed by a getter expression)"),
            ("chipId", "read-only (declared read-only)"),
            (
                "kind",
                "unknown property (writable: born, name, age, goodBoy, toys, weightLog)"
            ),
        ])
    );
    // Create-only: given on create, refused on update.
    let toy = s.created(&p, "Toy", json!({ "label": "Ball", "serial": "S1" }));
    let props = obj(json!({ "serial": "S2" }));
    assert_eq!(
        problems(s.engine.instance_update(&p, "Toy", &toy, props.as_ref(), &[])),
        pairs(&[("serial", "read-only (set on create only)")])
    );
    assert_eq!(s.engine.instance_get(&p, "Toy", &toy).unwrap()["serial"], "S1");
}

#[test]
fn patterns_with_flags_ranges_and_enums() {
    let s = setup(&["zoo.json"]);
    let p = s.perspective("Zoo");
    // `flags: i`: upper case matches.
    s.created(&p, "Toy", json!({ "label": "Big Ball", "serial": "1" }));
    assert_eq!(
        problems(s.create(&p, "Toy", json!({ "label": "ball-1", "serial": "2", "weightKg": 50 }))),
        pairs(&[
            ("label", "does not match the pattern ^[a-z ]+$"),
            ("weightKg", "out of range: must be < 50")
        ])
    );
    assert_eq!(
        problems(s.create(&p, "Dog", json!({ "name": "Max", "age": 21 }))),
        pairs(&[
            ("name", "not one of the allowed values: \"rex\", \"fido\", \"bello\""),
            ("name", "does not match the pattern ^[a-z]+$"),
            ("age", "out of range: must be <= 20.5"),
        ])
    );
}

#[test]
fn references_must_name_instances_of_the_target_class() {
    let s = setup(&["zoo.json"]);
    let p = s.perspective("Zoo");
    let toy = s.created(&p, "Toy", json!({ "label": "ball", "serial": "1" }));
    let keeper = s.created(&p, "Keeper", json!({ "name": "Kim" }));
    let dog = s.created(&p, "Dog", json!({ "name": "rex", "toys": [toy] }));
    assert_eq!(
        problems(s.create(
            &p,
            "Dog",
            json!({ "name": "fido", "toys": [keeper, "zoo://nothing", "not an iri"] })
        )),
        pairs(&[
            ("toys[0]", "not a Toy: the node is not an instance of Toy"),
            ("toys[1]", "no Toy with this IRI in the perspective"),
            (
                "toys[2]",
                "not an IRI (expected a scheme, e.g. ad4m://…, did:key:…, https://…)"
            ),
        ])
    );
    // A Dog is an Animal: references to Dog accept it; Keeper.favouriteDog takes it.
    let props = obj(json!({ "favouriteDog": dog }));
    s.engine
        .instance_update(&p, "Keeper", &keeper, props.as_ref(), &[])
        .unwrap();
}

#[test]
fn a_dog_is_an_animal() {
    let s = setup(&["zoo.json"]);
    let p = s.perspective("Zoo");
    let animal = s.created(&p, "Animal", json!({ "born": "2020-01-01" }));
    let dog = s.created(&p, "Dog", json!({ "name": "rex", "born": "2021-02-03" }));
    let animals = s.engine.instance_query(&p, "Animal", &QueryArgs::default()).unwrap();
    let ids: Vec<&str> = animals["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [animal.as_str(), dog.as_str()]);
    assert_eq!(animals["instances"][1]["born"], "2021-02-03");
    assert!(
        animals["instances"][1].get("name").is_none(),
        "as an Animal, with Animal's properties"
    );
    let dogs = s.engine.instance_query(&p, "Dog", &QueryArgs::default()).unwrap();
    assert_eq!(dogs["total_count"], 1, "an Animal is not a Dog");
    assert_eq!(dogs["instances"][0]["toys"], json!([]), "empty collections are []");
}

#[test]
fn collections_add_remove_idempotent() {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("T");
    let t = s.created(&p, "Task", json!({ "title": "x" }));
    let add = |v: &str| {
        s.engine
            .instance_add_to_collection(&p, "Task", &t, "tags", &json!(v))
            .unwrap()
    };
    assert_eq!(add("a")["links_added"], 1);
    let again = add("a");
    assert_eq!(
        again,
        json!({ "success": true, "class_name": "Task", "base_uri": t, "collection": "tags", "links_added": 0, "already_member": true })
    );
    add("b");
    let removed = s
        .engine
        .instance_remove_from_collection(&p, "Task", &t, "tags", &json!("a"))
        .unwrap();
    assert_eq!(
        removed,
        json!({ "success": true, "class_name": "Task", "base_uri": t, "collection": "tags", "links_removed": 1 })
    );
    assert_eq!(s.engine.instance_get(&p, "Task", &t).unwrap()["tags"], json!(["b"]));
    assert_eq!(
        problems(
            s.engine
                .instance_add_to_collection(&p, "Task", &t, "title", &json!("z"))
        ),
        pairs(&[("title", "not a collection: set it with instance_update")])
    );
    assert_eq!(
        problems(
            s.engine
                .instance_add_to_collection(&p, "Task", &t, "labels", &json!("z"))
        ),
        pairs(&[("labels", "unknown collection (writable collections: tags)")])
    );
    for i in 0..9 {
        add(&format!("t{i}"));
    }
    assert_eq!(
        problems(
            s.engine
                .instance_add_to_collection(&p, "Task", &t, "tags", &json!("overflow"))
        ),
        pairs(&[("tags", "too many values: at most 10")])
    );
    // Updating a collection is refused with the tools to use.
    let props = obj(json!({ "tags": ["x"] }));
    assert_eq!(
        problems(s.engine.instance_update(&p, "Task", &t, props.as_ref(), &[])),
        pairs(&[(
            "tags",
            "a collection cannot be set by update: use instance_add_to_collection or instance_remove_from_collection"
        )])
    );
}

#[test]
fn remove_takes_every_link_in_and_out() {
    let s = setup(&["zoo.json"]);
    let p = s.perspective("Zoo");
    let toy = s.created(&p, "Toy", json!({ "label": "ball", "serial": "1" }));
    let dog = s.created(&p, "Dog", json!({ "name": "rex", "toys": [toy] }));
    s.engine
        .add_link(&p, "zoo://elsewhere", "zoo://likes", &dog, false)
        .unwrap();
    let before = s.links(&p);
    let r = s.engine.instance_remove(&p, "Dog", &dog).unwrap();
    // Dog had: Animal's rdf://type, kind, name, toy = 4 links out, 1 in.
    assert_eq!(
        r,
        json!({ "success": true, "class_name": "Dog", "deleted": dog, "links_removed": 5 })
    );
    assert_eq!(s.links(&p), before - 5);
    let e = error_json(s.engine.instance_get(&p, "Dog", &dog));
    assert_eq!(e["error"], format!("No Dog with id '{dog}' in perspective '{p}'"));
}

#[test]
fn queries_filter_page_and_order() {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("T");
    let mut ids = Vec::new();
    for (i, (title, status, priority)) in [
        ("alpha", "open", 1),
        ("beta", "done", 2),
        ("gamma", "open", 3),
        ("delta", "in_progress", 4),
        ("epsilon", "open", 5),
    ]
    .iter()
    .enumerate()
    {
        s.clock.advance(10);
        let tags = if i % 2 == 0 {
            json!(["even"])
        } else {
            json!(["odd", "x"])
        };
        ids.push(s.created(
            &p,
            "Task",
            json!({ "title": title, "status": status, "priority": priority, "tags": tags }),
        ));
    }
    let q = |filter: serde_json::Value| {
        let args = QueryArgs {
            filter: obj(filter),
            ..QueryArgs::default()
        };
        let r = s.engine.instance_query(&p, "Task", &args).unwrap();
        r["instances"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["title"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(q(json!({ "status": "open" })), ["alpha", "gamma", "epsilon"]);
    assert_eq!(q(json!({ "status": ["done", "in_progress"] })), ["beta", "delta"]);
    assert_eq!(q(json!({ "priority": { "gt": 2, "lte": 4 } })), ["gamma", "delta"]);
    assert_eq!(q(json!({ "title": { "contains": "ta" } })), ["beta", "delta"]);
    assert_eq!(q(json!({ "title": { "lt": "c" } })), ["alpha", "beta"]);
    assert_eq!(q(json!({ "status": { "not": "open" } })), ["beta", "delta"]);
    assert_eq!(q(json!({ "tags": "odd" })), ["beta", "delta"]);
    assert_eq!(
        q(json!({ "OR": [{ "priority": 1 }, { "priority": 5 }] })),
        ["alpha", "epsilon"]
    );
    assert_eq!(
        q(json!({ "AND": [{ "status": "open" }, { "NOT": { "priority": 3 } }] })),
        ["alpha", "epsilon"]
    );
    assert_eq!(q(json!({ "id": ids[1] })), ["beta"]);
    assert_eq!(q(json!({ "priority": 2.0 })), ["beta"], "numbers compare numerically");

    let page = QueryArgs {
        limit: Some(2),
        offset: Some(1),
        order: Order::NewestFirst,
        ..QueryArgs::default()
    };
    let r = s.engine.instance_query(&p, "Task", &page).unwrap();
    assert_eq!((r["count"].as_u64(), r["total_count"].as_u64()), (Some(2), Some(5)));
    let titles: Vec<&str> = r["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["delta", "gamma"]);

    let args = QueryArgs {
        filter: obj(json!({ "colour": "red" })),
        ..QueryArgs::default()
    };
    let e = error_json(s.engine.instance_query(&p, "Task", &args));
    assert_eq!(e["error"], "Unknown property 'colour' in filter for class 'Task'");
    assert!(e["hint"].as_str().unwrap().contains("title, status, priority"));
}

#[test]
fn parent_edges_and_children() {
    let s = setup(&["chat.json"]);
    let p = s.perspective("Chat");
    let ch = s.created(&p, "Channel", json!({ "name": "general" }));
    let id = s.next_id();
    let r = s
        .engine
        .instance_create(
            &p,
            "Message",
            obj(json!({ "body": "hi" })).as_ref().unwrap(),
            None,
            Some(&ch),
        )
        .unwrap();
    assert_eq!(
        r,
        json!({ "created": true, "class_name": "Message", "base_uri": id, "properties_set": ["body"], "parent": ch, "added_to_parent": true })
    );
    s.created(&p, "Message", json!({ "body": "not a child" }));
    let args = QueryArgs {
        parent: Some(ch.clone()),
        ..QueryArgs::default()
    };
    let r = s.engine.instance_query(&p, "Message", &args).unwrap();
    assert_eq!(r["total_count"], 1);
    let children = s.engine.get_children(&p, &ch, None).unwrap();
    assert_eq!(
        children,
        json!({ "parent": ch, "count": 1, "total_count": 1, "children": [{ "id": id, "timestamp": T0, "author": s.did() }] })
    );
}

#[test]
fn raw_links_read_back_like_the_engines_own() {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("T");
    let t = s.next_id();
    let commands = json!([
        { "action": "addLink", "source": "this", "predicate": "rdf://type", "target": "todo://Task" },
        { "action": "setSingleTarget", "source": "this", "predicate": "todo://title", "target": "literal://string:Hand%20made" },
        { "action": "addLink", "source": "this", "predicate": "todo://priority", "target": "literal:2^^xsd:integer" },
        { "action": "addLink", "source": "this", "predicate": "todo://tag", "target": "tag" },
    ]);
    let params = obj(json!({ "tag": "from-params" }));
    let r = s
        .engine
        .execute_commands(&p, &t, commands.as_array().unwrap(), params.as_ref())
        .unwrap();
    assert_eq!(
        r,
        json!({ "executed": true, "perspective_id": p, "expression_address": t, "links_added": 4, "links_removed": 0 })
    );
    let got = s.engine.instance_get(&p, "Task", &t).unwrap();
    assert_eq!(
        (got["title"].as_str(), got["priority"].as_i64()),
        (Some("Hand made"), Some(2))
    );
    assert_eq!(got["tags"], json!(["from-params"]));
    assert!(got.get("status").is_none(), "no constructor ran");
    // Last write wins for a scalar with two links.
    s.clock.advance(5);
    s.engine
        .add_link(&p, &t, "todo://title", "literal:string:Second", false)
        .unwrap();
    assert_eq!(s.engine.instance_get(&p, "Task", &t).unwrap()["title"], "Second");
    let links = s
        .engine
        .query_links(
            &p,
            LinkPattern {
                source: Some(&t),
                predicate: Some("todo://title"),
                target: None,
            },
            None,
            None,
        )
        .unwrap();
    assert_eq!(links["total_count"], 2);
}

#[test]
fn perspectives_classes_and_refusals() {
    let s = setup(&["chat.json"]);
    let e = error_json(s.engine.instance_query("nope", "Channel", &QueryArgs::default()));
    assert_eq!(e["error"], "Perspective 'nope' not found");
    let p = s.perspective("Chat");
    let listed = s.engine.list_perspectives().unwrap();
    assert_eq!(
        listed,
        json!({ "perspectives": [{ "uuid": p, "name": "Chat", "neighbourhood": null, "owner": s.did() }] })
    );
    let e = error_json(s.engine.instance_query(&p, "Room", &QueryArgs::default()));
    assert_eq!(e["error"], format!("Unknown class 'Room' in perspective '{p}'"));
    assert!(e["hint"].as_str().unwrap().contains("Channel, Message"));
    // Case-insensitive lookup after the exact one.
    assert_eq!(
        s.engine.instance_query(&p, "channel", &QueryArgs::default()).unwrap()["class_name"],
        "Channel"
    );
}

#[test]
fn add_model_and_describe() {
    let s = setup(&["chat.json"]);
    let p = s.perspective("P");
    let note = json!({
        "target_class": "app://Note",
        "properties": [{ "path": "app://text", "name": "text", "datatype": "xsd:string", "min_count": 1, "max_count": 1, "writable": true },
                       { "path": "app://about", "name": "about", "class": "app://Channel", "max_count": 1, "writable": true }],
        "constructor": [{ "action": "addLink", "source": "this", "predicate": "rdf://type", "target": "app://Note" }]
    });
    let r = s.engine.add_model(&p, "Note", &json!(note.to_string())).unwrap();
    assert_eq!(
        r,
        json!({ "success": true, "perspective_id": p, "class_name": "Note", "replaced": false })
    );
    let ch = s.created(&p, "Channel", json!({ "name": "general" }));
    s.created(&p, "Note", json!({ "text": "hello", "about": ch }));
    assert_eq!(s.engine.add_model(&p, "Note", &note).unwrap()["replaced"], true);

    let e = error_json(s.engine.add_model(
        &p,
        "Channel",
        &json!({ "target_class": "app://Channel", "properties": [] }),
    ));
    assert!(e["error"].as_str().unwrap().contains("fixed DNA"), "{e}");
    let e = error_json(s.engine.add_model(&p, "Memo", &note));
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("class_name `Memo` does not match"),
        "{e}"
    );
    let e = error_json(s.engine.add_model(
        &p,
        "Bad",
        &json!({ "target_class": "app://Bad", "properties": [{ "path": "app://x", "datatyp": "x" }] }),
    ));
    assert!(e["error"].as_str().unwrap().contains("unknown key `datatyp`"), "{e}");

    let d = s.engine.describe_perspective(&p).unwrap();
    let names: Vec<&str> = d["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Channel", "Message", "Note"]);
    assert_eq!(
        d["classes"][0]["properties"][0],
        json!({ "name": "name", "type": "string", "required": true, "cardinality": { "min": 1, "max": 1 }, "predicate": "app://has_name", "interpretation_hint": "Human-readable channel name.", "resolve_language": "literal" })
    );
    assert!(d["usage"].as_str().unwrap().contains("class_name"));
    // Another perspective does not see the model.
    let q = s.perspective("Q");
    assert!(
        error_json(s.engine.instance_query(&q, "Note", &QueryArgs::default()))["error"]
            .as_str()
            .unwrap()
            .contains("Unknown class")
    );
}
