//! Flows through the engine, exact (fixed clock, seeded ids): the zoo DNA's Feeding flow and
//! the tasks lifecycle of dna/tasks-flow.json (guards, a shape-breaking step, consensus), and
//! two agents racing for one step.

mod common;

use std::sync::Arc;

use common::*;
use serde_json::{Value, json};
use shacl_mcp::engine::Engine;
use shacl_mcp::store::{AuthorKey, LinkPattern};

/// Every link of a perspective, as query_links shows them.
fn all_links(s: &Setup, p: &str) -> Value {
    s.engine
        .query_links(p, LinkPattern::default(), Some(1000), None)
        .unwrap()
}

fn text(v: &Value) -> String {
    serde_json::to_string(v).unwrap()
}

/// A user ("Ada") acting on the node beside its owner, and a perspective of her own: the set-up
/// of every test with two agents (multi-user mode keeps a user's perspectives to herself, so the
/// second agent is the owner).
fn ada_and_her_perspective(admin: &Engine) -> (Engine, String) {
    let ada = admin.as_user(Arc::new(AuthorKey::generate().unwrap()));
    let p = ada.add_perspective("Ada's").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    (ada, p)
}

#[test]
fn zoo_feeding_transcript() {
    let s = setup(&["zoo.json"]);
    let p = s.perspective("Zoo");
    let dog = s.created(&p, "Dog", json!({ "name": "rex" }));
    let e = &s.engine;

    assert_eq!(
        text(&e.get_flows(&p, None).unwrap()),
        text(&json!({ "flows": [ {
            "name": "Feeding", "input_types": ["any"],
            "states": [ { "name": "hungry", "value": 0 }, { "name": "fed", "value": 1 } ],
            "transitions": [ { "action_name": "feed", "from_state": "hungry", "to_state": "fed" } ] } ] }))
    );
    assert_eq!(e.flow_state(&p, "Feeding", &dog).unwrap(), json!({ "state": null }));

    let instance = s.next_id();
    assert_eq!(
        e.flow_start(&p, "Feeding", &dog).unwrap(),
        json!({ "started": true, "instance": instance, "state": "hungry" })
    );
    assert_eq!(
        e.flow_start(&p, "Feeding", &dog).unwrap(),
        json!({ "started": false, "instance": instance, "state": "hungry" })
    );
    assert_eq!(
        text(&e.flow_actions(&p, "Feeding", &dog).unwrap()),
        text(
            &json!({ "state": "hungry", "available": [ { "action_name": "feed", "to_state": "fed" } ], "blocked": [] })
        )
    );

    s.clock.advance(1_000_000);
    let _record = s.next_id();
    assert_eq!(
        text(&e.flow_run_action(&p, "Feeding", &dog, "feed").unwrap()),
        text(&json!({ "transitioned": true, "from": "hungry", "to": "fed", "links_added": 1, "links_removed": 0 }))
    );
    let t1 = "2026-12-24T10:00:01.000000Z";
    assert_eq!(
        text(&e.flow_state(&p, "Feeding", &dog).unwrap()),
        text(
            &json!({ "instance": instance, "state": "fed", "value": 1, "since": t1, "history": [
            { "action_name": "feed", "from": "hungry", "to": "fed", "author": s.did(), "timestamp": t1 } ] })
        )
    );
    assert_eq!(
        text(&e.flow_actions(&p, "Feeding", &dog).unwrap()),
        text(&json!({ "state": "fed", "available": [], "blocked": [] }))
    );
    let again = error_json(e.flow_run_action(&p, "Feeding", &dog, "feed"));
    assert_eq!(
        again,
        json!({
            "error": format!("Action 'feed' is not available: '{dog}' is in state 'fed' of flow 'Feeding'"),
            "hint": "Actions available from 'fed': none (a final state). Call flow_actions to see which of them are blocked and why."
        })
    );

    // The definitions, the instance, its record and the action's write, in AD4M's layout.
    let fed = e
        .query_links(
            &p,
            LinkPattern {
                source: Some(&dog),
                predicate: Some("zoo://fed"),
                target: None,
            },
            None,
            None,
        )
        .unwrap();
    assert_eq!(fed["links"][0]["target"], "literal:boolean:true");
    let flow = e
        .query_links(
            &p,
            LinkPattern {
                source: Some("zoo://FeedingFlow"),
                ..LinkPattern::default()
            },
            None,
            None,
        )
        .unwrap();
    let predicates: Vec<&str> = flow["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["predicate"].as_str().unwrap())
        .collect();
    assert_eq!(
        predicates,
        [
            "rdf://type",
            "ad4m://flowName",
            "ad4m://flowDefinition",
            "ad4m://hasState",
            "ad4m://hasState",
            "ad4m://hasTransition"
        ]
    );
    let inst = e
        .query_links(
            &p,
            LinkPattern {
                source: Some(&instance),
                ..LinkPattern::default()
            },
            None,
            None,
        )
        .unwrap();
    let facts: Vec<(String, String)> = inst["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["predicate"].as_str().unwrap().to_string(),
                l["target"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        facts[..3],
        pairs(&[
            ("rdf://type", "ad4m://FlowInstance"),
            ("ad4m://flow", "zoo://FeedingFlow"),
            ("ad4m://subject", dog.as_str()),
        ])[..]
    );
    assert!(facts.contains(&("ad4m://currentState".to_string(), "zoo://Feeding.fed".to_string())));
}

const ADA: &str = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

#[test]
fn tasks_lifecycle_transcript() {
    let s = setup(&["tasks-flow.json"]);
    let p = s.perspective("Team");
    let task = s.created(&p, "Task", json!({ "title": "Write the flows docs" }));
    let e = &s.engine;

    let instance = s.next_id();
    assert_eq!(
        e.flow_start(&p, "TaskLifecycle", &task).unwrap(),
        json!({ "started": true, "instance": instance, "state": "open" })
    );
    let assignee_reason = "in_progress.requires[0]: state 'in_progress' requires at least 1 Task where {\"id\":\"$flow.subject\",\"assignee\":{\"contains\":\"did:\"}}; found 0";
    let comment_reason =
        "done.requires[0]: state 'done' requires at least 1 Comment linked to the subject by todo://about; found 0";
    let actions = e.flow_actions(&p, "TaskLifecycle", &task).unwrap();
    assert_eq!(
        text(&actions),
        text(&json!({ "state": "open", "available": [], "blocked": [
            { "action_name": "start", "to_state": "in_progress", "reasons": [assignee_reason] },
            { "action_name": "scrap", "to_state": "done", "reasons": [
                comment_reason,
                format!("status: not one of the allowed values: \"open\", \"in_progress\", \"done\" (on {task}), received literal:string:scrapped"),
                format!("priority: out of range: must be <= 5 (on {task}), received literal:number:9"),
            ] } ] }))
    );

    // The guard holds the step back, and nothing is written.
    let before = all_links(&s, &p);
    let refused = error_json(e.flow_run_action(&p, "TaskLifecycle", &task, "start"));
    assert_eq!(
        text(&refused),
        text(&json!({
            "error": format!("Action 'start' of flow 'TaskLifecycle' refused (1 problem): {assignee_reason}"),
            "flow_name": "TaskLifecycle", "action_name": "start",
            "validation_errors": [ { "property": "in_progress.requires[0]", "problem": assignee_reason.split_once(": ").unwrap().1 } ],
            "hint": "Nothing was written. Call flow_actions for what may be done now and why a step is blocked."
        }))
    );
    assert_eq!(all_links(&s, &p), before);

    let mut assign = serde_json::Map::new();
    assign.insert("assignee".into(), json!(ADA));
    e.instance_update(&p, "Task", &task, Some(&assign), &[]).unwrap();
    s.clock.advance(1_000_000);
    let _record = s.next_id();
    assert_eq!(
        text(&e.flow_run_action(&p, "TaskLifecycle", &task, "start").unwrap()),
        text(
            &json!({ "transitioned": true, "from": "open", "to": "in_progress", "links_added": 1, "links_removed": 1 })
        )
    );
    assert_eq!(e.instance_get(&p, "Task", &task).unwrap()["status"], "in_progress");
    assert_eq!(
        text(&e.flow_actions(&p, "TaskLifecycle", &task).unwrap()),
        text(&json!({ "state": "in_progress", "available": [], "blocked": [
            { "action_name": "finish", "to_state": "done", "reasons": [comment_reason] } ] }))
    );

    let comment = s.created(&p, "Comment", json!({ "text": "Written.", "about": task }));
    assert_eq!(
        text(&e.flow_actions(&p, "TaskLifecycle", &task).unwrap()),
        text(&json!({ "state": "in_progress", "available": [
            { "action_name": "finish", "to_state": "done", "description": "Close the task (needs a comment about it)." } ], "blocked": [] }))
    );
    s.clock.advance(1_000_000);
    let _record = s.next_id();
    assert_eq!(
        text(&e.flow_run_action(&p, "TaskLifecycle", &task, "finish").unwrap()),
        text(
            &json!({ "transitioned": true, "from": "in_progress", "to": "done", "links_added": 1, "links_removed": 1 })
        )
    );
    let (t1, t2) = ("2026-12-24T10:00:01.000000Z", "2026-12-24T10:00:02.000000Z");
    assert_eq!(
        text(&e.flow_state(&p, "TaskLifecycle", &task).unwrap()),
        text(
            &json!({ "instance": instance, "state": "done", "value": 2, "since": t2, "history": [
            { "action_name": "start", "from": "open", "to": "in_progress", "author": s.did(), "timestamp": t1 },
            { "action_name": "finish", "from": "in_progress", "to": "done", "author": s.did(), "timestamp": t2 } ] })
        )
    );

    // Input types: a comment is not a task.
    assert_eq!(
        error_json(e.flow_start(&p, "TaskLifecycle", &comment)),
        json!({
            "error": format!("'{comment}' may not enter flow 'TaskLifecycle': it is not an instance of Task"),
            "hint": "Start the flow on an instance of one of its input types (get_flows with subject lists the flows a node may enter)."
        })
    );
    let names = |v: Value| -> Vec<String> {
        v["flows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(e.get_flows(&p, Some(&comment)).unwrap()), Vec::<String>::new());
    assert_eq!(
        names(e.get_flows(&p, Some(&task)).unwrap()),
        ["TaskLifecycle", "Approval"]
    );
}

#[test]
fn a_step_that_breaks_a_shape_writes_nothing_and_says_every_reason() {
    let s = setup(&["tasks-flow.json"]);
    let p = s.perspective("Team");
    let task = s.created(&p, "Task", json!({ "title": "Doomed" }));
    s.engine.flow_start(&p, "TaskLifecycle", &task).unwrap();
    let before = all_links(&s, &p);
    let refused = problems(s.engine.flow_run_action(&p, "TaskLifecycle", &task, "scrap"));
    assert_eq!(
        refused,
        pairs(&[
            (
                "done.requires[0]",
                "state 'done' requires at least 1 Comment linked to the subject by todo://about; found 0"
            ),
            (
                "status",
                &format!("not one of the allowed values: \"open\", \"in_progress\", \"done\" (on {task})")
            ),
            ("priority", &format!("out of range: must be <= 5 (on {task})")),
        ])
    );
    assert_eq!(all_links(&s, &p), before, "a refused step writes nothing");
    assert_eq!(
        s.engine.flow_state(&p, "TaskLifecycle", &task).unwrap()["state"],
        "open"
    );
}

#[test]
fn consensus_of_two_agents() {
    let s = setup(&["tasks-flow.json"]);
    let admin = &s.engine;
    let (ada, p) = ada_and_her_perspective(admin);
    let mut title = serde_json::Map::new();
    title.insert("title".into(), json!("Ship it"));
    let task = ada.instance_create(&p, "Task", &title, None, None).unwrap()["base_uri"]
        .as_str()
        .unwrap()
        .to_string();
    ada.flow_start(&p, "Approval", &task).unwrap();

    let waiting = json!({ "transitioned": false, "proposals": 1, "needed": 2 });
    assert_eq!(ada.flow_run_action(&p, "Approval", &task, "approve").unwrap(), waiting);
    assert_eq!(
        ada.flow_run_action(&p, "Approval", &task, "approve").unwrap(),
        waiting,
        "the same agent counts once"
    );
    assert_eq!(ada.flow_state(&p, "Approval", &task).unwrap()["state"], "draft");
    let approved = LinkPattern {
        source: Some(&task),
        predicate: Some("todo://approved"),
        target: None,
    };
    assert_eq!(
        ada.query_links(&p, approved, None, None).unwrap()["total_count"],
        0,
        "a proposal moves nothing"
    );
    let proposals = LinkPattern {
        predicate: Some("ad4m://proposal"),
        ..LinkPattern::default()
    };
    assert_eq!(ada.query_links(&p, proposals, None, None).unwrap()["total_count"], 1);

    assert_eq!(
        text(&admin.flow_run_action(&p, "Approval", &task, "approve").unwrap()),
        text(&json!({ "transitioned": true, "from": "draft", "to": "approved", "links_added": 1, "links_removed": 0 }))
    );
    let state = ada.flow_state(&p, "Approval", &task).unwrap();
    assert_eq!(state["state"], "approved");
    assert_eq!(state["history"][0]["author"], admin.did());
    assert_eq!(ada.query_links(&p, approved, None, None).unwrap()["total_count"], 1);
}

#[test]
fn two_agents_race_for_one_step() {
    let s = setup(&["zoo.json"]);
    let p = s.perspective("Zoo");
    let dog = s.created(&p, "Dog", json!({ "name": "fido" }));
    s.engine.flow_start(&p, "Feeding", &dog).unwrap();
    let engine: &Engine = &s.engine;
    let barrier = std::sync::Barrier::new(2);
    let results: Vec<_> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    barrier.wait();
                    engine.flow_run_action(&p, "Feeding", &dog, "feed")
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let moved = results
        .iter()
        .filter(|r| r.as_ref().is_ok_and(|v| v["transitioned"] == true))
        .count();
    assert_eq!(moved, 1, "exactly one step: {results:?}");
    let refused = results.into_iter().find_map(|r| r.err()).expect("one refusal");
    let message = refused.to_json().unwrap()["error"].as_str().unwrap().to_string();
    assert!(message.contains("is in state 'fed'"), "{message}");
    let history = s.engine.flow_state(&p, "Feeding", &dog).unwrap()["history"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(history, 1);
}

fn flow_names(v: Value) -> Vec<String> {
    v["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn add_flow_registers_replaces_and_refuses() {
    let s = setup(&["tasks-flow.json"]);
    let e = &s.engine;
    let p = s.perspective("Team");
    let other = s.perspective("Other");
    let review = json!({ "name": "Review", "namespace": "todo://", "input_types": ["Task"],
        "states": [ { "name": "waiting", "value": 0 }, { "name": "reviewed", "value": 1 } ],
        "transitions": [ { "action_name": "approve", "from_state": "waiting", "to_state": "reviewed", "actions": [] } ] });
    assert_eq!(
        e.add_flow(&p, &review).unwrap(),
        json!({ "success": true, "perspective_id": p, "flow_name": "Review", "replaced": false })
    );
    // As JSON text too; the same name again replaces it.
    assert_eq!(
        e.add_flow(&p, &Value::String(review.to_string())).unwrap(),
        json!({ "success": true, "perspective_id": p, "flow_name": "Review", "replaced": true })
    );
    assert_eq!(
        flow_names(e.get_flows(&p, None).unwrap()),
        ["TaskLifecycle", "Approval", "Review"]
    );
    assert_eq!(
        flow_names(e.get_flows(&other, None).unwrap()),
        ["TaskLifecycle", "Approval"]
    );
    let definitions = LinkPattern {
        source: Some("todo://ReviewFlow"),
        predicate: Some("ad4m://hasState"),
        target: None,
    };
    assert_eq!(
        e.query_links(&p, definitions, None, None).unwrap()["total_count"],
        2,
        "one definition, not two"
    );

    let task = s.created(&p, "Task", json!({ "title": "Check it" }));
    e.flow_start(&p, "review", &task).unwrap();
    assert_eq!(
        e.flow_run_action(&p, "Review", &task, "approve").unwrap()["to"],
        "reviewed"
    );

    assert_eq!(
        error_json(e.add_flow(
            &p,
            &json!({ "name": "Approval", "namespace": "x://", "states": [], "transitions": [] })
        )),
        json!({
            "error": "Flow 'Approval' is part of this server's fixed DNA and cannot be replaced at run time",
            "hint": "Choose another flow name; the fixed DNA's flows are in every perspective already (get_flows lists them)."
        })
    );
    let bad = json!({ "name": "Bad", "namespace": "todo://", "input_types": ["Ticket"], "colour": "red",
        "states": [ { "name": "a", "value": 0 } ],
        "transitions": [ { "action_name": "go", "from_state": "a", "to_state": "b", "actions": [] } ] });
    let refused = error_json(e.add_flow(&p, &bad));
    assert_eq!(
        refused["error"],
        "Flow refused (3 problems): /colour: unknown key `colour` in flow (the keys of a flow are: name, namespace, \
         interpretation_hint, input_types, states, transitions, start_actions, consensus); /input_types/0: unknown class \
         `Ticket` (the classes are: Task, Comment (or \"any\" in input_types)); /transitions/0/to_state: unknown state `b` \
         in flow `Bad` (the states are: a)"
    );
}

#[test]
fn describe_perspective_lists_each_class_s_flows() {
    let s = setup(&["tasks-flow.json"]);
    let p = s.perspective("Team");
    let described = s.engine.describe_perspective(&p).unwrap();
    let task = &described["classes"][0];
    assert_eq!(task["name"], "Task");
    assert_eq!(
        task["flows"][1],
        json!({ "name": "Approval", "states": ["draft", "approved"],
            "transitions": [ { "action_name": "approve", "from_state": "draft", "to_state": "approved" } ] })
    );
    assert_eq!(
        flow_names(json!({ "flows": task["flows"] })),
        ["TaskLifecycle", "Approval"]
    );
    assert!(
        described["classes"][1].get("flows").is_none(),
        "a Comment enters no flow"
    );
}

#[test]
fn proposals_from_an_earlier_visit_no_longer_count() {
    let s = setup(&["tasks-flow.json"]);
    let admin = &s.engine;
    let (ada, p) = ada_and_her_perspective(admin);
    let cycle = json!({ "name": "Cycle", "namespace": "app://", "input_types": ["any"],
        "states": [ { "name": "a", "value": 0 }, { "name": "b", "value": 1, "consensus": { "n": 2 } } ],
        "transitions": [
            { "action_name": "go", "from_state": "a", "to_state": "b", "actions": [] },
            { "action_name": "back", "from_state": "b", "to_state": "a", "actions": [] } ] });
    ada.add_flow(&p, &cycle).unwrap();
    let node = "app://thing";
    ada.flow_start(&p, "Cycle", node).unwrap();
    assert_eq!(ada.flow_run_action(&p, "Cycle", node, "go").unwrap()["proposals"], 1);
    assert_eq!(
        admin.flow_run_action(&p, "Cycle", node, "go").unwrap()["transitioned"],
        true
    );
    assert_eq!(
        ada.flow_run_action(&p, "Cycle", node, "back").unwrap()["transitioned"],
        true
    );
    assert_eq!(
        admin.flow_run_action(&p, "Cycle", node, "go").unwrap(),
        json!({ "transitioned": false, "proposals": 1, "needed": 2 }),
        "both earlier proposals were made before the flow came back to `a`"
    );
}

#[test]
fn only_the_role_may_propose() {
    let s = setup(&["tasks-flow.json"]);
    let e = &s.engine;
    let p = s.perspective("Team");
    let signoff = json!({ "name": "SignOff", "namespace": "todo://", "input_types": ["Task"],
        "states": [ { "name": "pending", "value": 0 },
            { "name": "signed", "value": 1, "consensus": { "n": 1,
                "from_role": { "class_name": "Task", "where": { "id": "$flow.subject" }, "did_property": "assignee" } } } ],
        "transitions": [ { "action_name": "sign", "from_state": "pending", "to_state": "signed", "actions": [] } ] });
    e.add_flow(&p, &signoff).unwrap();
    let task = s.created(&p, "Task", json!({ "title": "Sign me", "assignee": ADA }));
    e.flow_start(&p, "SignOff", &task).unwrap();
    let blocked = e.flow_actions(&p, "SignOff", &task).unwrap();
    assert_eq!(
        blocked["blocked"][0]["reasons"][0],
        format!(
            "consensus: only the agents of at least 1 Task where {{\"id\":\"$flow.subject\"}} (their assignee) may propose entering 'signed'; {} is not one of them",
            s.did()
        )
    );
    let mut me = serde_json::Map::new();
    me.insert("assignee".into(), json!(s.did()));
    e.instance_update(&p, "Task", &task, Some(&me), &[]).unwrap();
    assert_eq!(
        e.flow_run_action(&p, "SignOff", &task, "sign").unwrap()["transitioned"],
        true
    );
}

/// Through MCP: every flow tool answers within its output schema, a refusal is a tool error.
#[tokio::test]
async fn flow_tools_over_mcp_answer_within_their_schemas() {
    use shacl_mcp::mcp::auth::Caller;
    use shacl_mcp::mcp::{McpServer, ServerOptions};

    let s = setup(&["tasks-flow.json"]);
    let p = s.perspective("Team");
    let task = s.created(&p, "Task", json!({ "title": "t", "assignee": ADA }));
    let Setup { engine, .. } = s;
    let server = McpServer::new(Arc::new(engine), ServerOptions::default());
    let tools = server.visible_tools(Caller::Stdio);
    let subject = json!({ "perspective_id": p, "flow_name": "TaskLifecycle", "subject": task });
    let run = |flow: &str, action: &str| json!({ "perspective_id": p, "flow_name": flow, "subject": task, "action_name": action });
    let review = json!({ "name": "Review", "namespace": "todo://", "input_types": ["Task"],
        "states": [ { "name": "waiting", "value": 0 } ], "transitions": [] });
    let calls = [
        ("get_flows", json!({ "perspective_id": p }), false),
        ("get_flows", json!({ "perspective_id": p, "subject": task }), false),
        ("flow_state", subject.clone(), false),
        ("flow_actions", subject.clone(), false),
        ("flow_start", subject.clone(), false),
        ("flow_state", subject.clone(), false),
        ("flow_actions", subject.clone(), false),
        ("flow_run_action", run("TaskLifecycle", "start"), false),
        ("flow_run_action", run("TaskLifecycle", "start"), true),
        ("flow_state", subject.clone(), false),
        (
            "flow_start",
            json!({ "perspective_id": p, "flow_name": "Approval", "subject": task }),
            false,
        ),
        ("flow_run_action", run("Approval", "approve"), false),
        ("flow_run_action", run("Nope", "approve"), true),
        ("add_flow", json!({ "perspective_id": p, "flow": review }), false),
        ("add_flow", json!({ "perspective_id": p, "flow": "not json" }), true),
        ("describe_perspective", json!({ "perspective_id": p }), false),
    ];
    for (name, args, is_error) in calls {
        let tool = tools
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name} is listed"));
        let schema = Value::Object((*tool.output_schema.clone().expect("an outputSchema")).clone());
        let validator = jsonschema::validator_for(&schema).unwrap();
        let result = server
            .call(name, obj(args.clone()), Caller::Stdio)
            .await
            .expect("a tool result");
        assert_eq!(result.is_error.unwrap_or(false), is_error, "{name} {args}: {result:?}");
        if !is_error {
            let structured = result.structured_content.clone().expect("structuredContent");
            assert!(validator.is_valid(&structured), "{name}: {structured}");
        }
    }
}

/// Two nodes on one database (two SQLite connections to one file, or two PostgreSQL nodes on
/// one schema) race for one step: the store's write lock lets exactly one move the flow.
#[test]
fn two_nodes_race_for_one_step() {
    use shacl_mcp::clock::{FixedClock, SeededIds};

    let db = TestDb::new("flows_race");
    let clock = Arc::new(FixedClock::at("2026-12-24T10:00:00Z").unwrap());
    let nodes: Vec<Engine> = (0..2)
        .map(|i| {
            Engine::new(
                db.open(clock.clone()).links,
                fixed(&["zoo.json"]),
                Arc::new(SeededIds::new(SEED + i)),
            )
        })
        .collect();
    let p = nodes[0].add_perspective("Zoo").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let mut name = serde_json::Map::new();
    name.insert("name".into(), json!("bello"));
    let dog = nodes[0].instance_create(&p, "Dog", &name, None, None).unwrap()["base_uri"]
        .as_str()
        .unwrap()
        .to_string();
    nodes[0].flow_start(&p, "Feeding", &dog).unwrap();
    let barrier = std::sync::Barrier::new(2);
    let results: Vec<_> = std::thread::scope(|scope| {
        let runs: Vec<_> = nodes
            .iter()
            .map(|node| {
                let (barrier, p, dog) = (&barrier, &p, &dog);
                scope.spawn(move || {
                    barrier.wait();
                    node.flow_run_action(p, "Feeding", dog, "feed")
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let moved = results
        .iter()
        .filter(|r| r.as_ref().is_ok_and(|v| v["transitioned"] == true))
        .count();
    assert_eq!(moved, 1, "exactly one step: {results:?}");
    let refused = results.into_iter().find_map(|r| r.err()).expect("one refusal");
    let message = refused
        .to_json()
        .map(|j| j["error"].to_string())
        .unwrap_or_else(|| refused.to_string());
    assert!(message.contains("is in state 'fed'"), "{message}");
    let state = nodes[1].flow_state(&p, "Feeding", &dog).unwrap();
    assert_eq!(state["history"].as_array().unwrap().len(), 1);
}

#[test]
fn a_refused_start_writes_nothing() {
    let s = setup(&["tasks-flow.json"]);
    let e = &s.engine;
    let p = s.perspective("Team");
    let triage = json!({ "name": "Triage", "namespace": "todo://", "input_types": ["Task"],
        "start_actions": [ { "action": "setSingleTarget", "source": "this", "predicate": "todo://priority", "target": "literal:number:0" } ],
        "states": [ { "name": "new", "value": 0,
            "requires": [ { "class_name": "Comment", "linked_to": "subject" } ] } ],
        "transitions": [] });
    e.add_flow(&p, &triage).unwrap();
    let task = s.created(&p, "Task", json!({ "title": "Triage me" }));
    let before = all_links(&s, &p);
    assert_eq!(
        problems(e.flow_start(&p, "Triage", &task)),
        pairs(&[
            (
                "new.requires[0]",
                "state 'new' requires at least 1 Comment linked to the subject; found 0"
            ),
            ("priority", &format!("out of range: must be >= 1 (on {task})")),
        ])
    );
    assert_eq!(all_links(&s, &p), before, "a refused start writes nothing");
    assert_eq!(e.flow_state(&p, "Triage", &task).unwrap(), json!({ "state": null }));
    let envelope = error_json(e.flow_start(&p, "Triage", &task));
    assert_eq!(envelope["action_name"], "flow_start");
}

/// A step's writes are checked where they can break something: on the subject, and on the nodes
/// that point at it (a keeper's favourite dog must stay a dog).
#[test]
fn a_step_may_not_break_a_reference_to_its_subject() {
    let s = setup(&["zoo.json"]);
    let e = &s.engine;
    let p = s.perspective("Zoo");
    let dog = s.created(&p, "Dog", json!({ "name": "rex" }));
    let keeper = s.created(&p, "Keeper", json!({ "name": "Kim", "favouriteDog": dog }));
    let release = json!({ "name": "Release", "namespace": "zoo://",
        "states": [ { "name": "kept", "value": 0 }, { "name": "free", "value": 1 } ],
        "transitions": [ { "action_name": "release", "from_state": "kept", "to_state": "free",
            "actions": [ { "action": "removeLink", "source": "this", "predicate": "zoo://kind", "target": "zoo://dog" } ] } ] });
    e.add_flow(&p, &release).unwrap();
    e.flow_start(&p, "Release", &dog).unwrap();
    let before = all_links(&s, &p);
    let refused = problems(e.flow_run_action(&p, "Release", &dog, "release"));
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].0, "favouriteDog");
    assert!(refused[0].1.ends_with(&format!("(on {keeper})")), "{refused:?}");
    assert_eq!(all_links(&s, &p), before);
}

/// Under a rule with a role, only members' proposals count, and membership is read at the step:
/// an agent who left the role no longer counts.
#[test]
fn a_proposal_counts_while_its_author_is_in_the_role() {
    let s = setup(&["tasks-flow.json"]);
    let admin = &s.engine;
    let (ada, p) = ada_and_her_perspective(admin);
    // Reviewers: the DIDs written in comments about the task.
    let review = json!({ "name": "Review", "namespace": "todo://", "input_types": ["Task"],
        "states": [ { "name": "open", "value": 0 },
            { "name": "accepted", "value": 1, "consensus": { "n": 2, "from_role": {
                "class_name": "Comment", "linked_to": { "via": "todo://about", "to": "subject" }, "did_property": "text" } } } ],
        "transitions": [ { "action_name": "accept", "from_state": "open", "to_state": "accepted", "actions": [] } ] });
    ada.add_flow(&p, &review).unwrap();
    let create = |class: &str, properties: Value| -> String {
        let properties = obj(properties).unwrap();
        ada.instance_create(&p, class, &properties, None, None).unwrap()["base_uri"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let task = create("Task", json!({ "title": "Review me" }));
    let ada_seat = create("Comment", json!({ "text": ada.did(), "about": task }));
    create("Comment", json!({ "text": admin.did(), "about": task }));
    ada.flow_start(&p, "Review", &task).unwrap();

    let waiting = json!({ "transitioned": false, "proposals": 1, "needed": 2 });
    assert_eq!(ada.flow_run_action(&p, "Review", &task, "accept").unwrap(), waiting);
    ada.instance_remove(&p, "Comment", &ada_seat).unwrap();
    assert_eq!(
        admin.flow_run_action(&p, "Review", &task, "accept").unwrap(),
        waiting,
        "Ada left the role: her proposal no longer counts"
    );
    assert_eq!(ada.flow_state(&p, "Review", &task).unwrap()["state"], "open");
}
