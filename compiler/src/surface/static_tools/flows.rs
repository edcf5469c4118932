//! Flows: get_flows, add_flow, flow_start, flow_state, flow_actions, flow_run_action. Flows
//! never add per-class tools: the flow and the action are arguments.

use serde_json::{Value, json};

use super::fragments::{array_of, closed_object, count, described, perspective_id, string, string_list, tool, typed};
use crate::surface::{ToolAnnotations, ToolSpec};

fn flow_name() -> Value {
    string("Name of the flow, as get_flows lists it (e.g. \"TaskLifecycle\").")
}

fn subject() -> Value {
    string("The node the flow is about: an instance id (e.g. ad4m://obj/…).")
}

/// `{ name, value }` of a state, or a transition's `{ action_name, from_state, to_state }`.
fn flow_summary() -> Value {
    closed_object(
        json!({
            "name": typed("string"),
            "interpretation_hint": typed("string"),
            "input_types": described(
                "Classes whose instances may enter the flow; [\"any\"] for every node.",
                string_list(),
            ),
            "states": array_of(closed_object(
                json!({
                    "name": typed("string"),
                    "value": described("Orders the states; the flow starts in the lowest.", typed("number")),
                }),
                &["name", "value"],
            )),
            "transitions": array_of(closed_object(
                json!({
                    "action_name": typed("string"),
                    "from_state": typed("string"),
                    "to_state": typed("string"),
                }),
                &["action_name", "from_state", "to_state"],
            )),
        }),
        &["name", "input_types", "states", "transitions"],
    )
}

pub(super) fn get_flows() -> ToolSpec {
    tool(
        "get_flows",
        "List flows",
        ToolAnnotations::READ,
        concat!(
            "List the flows of a perspective: state machines an instance (its subject) moves through, each ",
            "with its states (the lowest value is where it starts) and its transitions (the action that ",
            "leaves one state for another). With subject, only the flows that node may enter. Next: ",
            "flow_start, then flow_actions and flow_run_action.\n",
            r#"Example: get_flows({"perspective_id": "<P>"}) → {"flows": [{"name": "TaskLifecycle", "#,
            r#""input_types": ["Task"], "states": [{"name": "open", "value": 0}, {"name": "done", "value": 2}, …], "#,
            r#""transitions": [{"action_name": "finish", "from_state": "in_progress", "to_state": "done"}, …]}]}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "subject": string("Only the flows this node may enter (an instance of one of their input_types)."),
            }),
            &["perspective_id"],
        ),
        closed_object(json!({ "flows": array_of(flow_summary()) }), &["flows"]),
    )
}

pub(super) fn add_flow() -> ToolSpec {
    tool(
        "add_flow",
        "Register flow",
        ToolAnnotations::OVERWRITE,
        concat!(
            "Register a flow in one perspective: { name, namespace, input_types, states: [{name, value, ",
            "requires?, consensus?}], transitions: [{action_name, from_state, to_state, actions, description?}], ",
            "start_actions?, consensus? }, written as a DNA's flows are. Registering the same name again ",
            "replaces it (replaced: true); a flow of the server's fixed DNA cannot be replaced. The flow is ",
            "checked against the perspective's classes first: a refusal (isError) names every problem.\n",
            r#"Example: add_flow({"perspective_id": "<P>", "flow": {"name": "Review", "namespace": "app://", "#,
            r#""input_types": ["Task"], "states": [{"name": "waiting", "value": 0}, {"name": "reviewed", "value": 1}], "#,
            r#""transitions": [{"action_name": "approve", "from_state": "waiting", "to_state": "reviewed", "actions": []}]}}) → "#,
            r#"{"success": true, "perspective_id": "<P>", "flow_name": "Review", "replaced": false}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "flow": {
                    "type": ["string", "object"],
                    "description": "The flow as an object, or as a JSON string.",
                },
            }),
            &["perspective_id", "flow"],
        ),
        closed_object(
            json!({
                "success": typed("boolean"),
                "perspective_id": typed("string"),
                "flow_name": typed("string"),
                "replaced": described("true when a flow of that name was replaced.", typed("boolean")),
            }),
            &["success", "perspective_id", "flow_name", "replaced"],
        ),
    )
}

/// perspective_id, flow_name, subject: what every tool about one subject's flow takes.
fn subject_parameters() -> Value {
    closed_object(
        json!({ "perspective_id": perspective_id(), "flow_name": flow_name(), "subject": subject() }),
        &["perspective_id", "flow_name", "subject"],
    )
}

pub(super) fn flow_start() -> ToolSpec {
    tool(
        "flow_start",
        "Start flow",
        ToolAnnotations::WRITE,
        concat!(
            "Start a flow for a subject: checks that the subject is an instance of one of the flow's ",
            "input_types, runs the flow's start actions, and puts the subject in the flow's first state. A ",
            "subject already in the flow answers started: false with where it stands.\n",
            r#"Example: flow_start({"perspective_id": "<P>", "flow_name": "TaskLifecycle", "subject": "<T>"}) → "#,
            r#"{"started": true, "instance": "ad4m://obj/…", "state": "open"}"#,
        ),
        subject_parameters(),
        closed_object(
            json!({
                "started": described("false when the subject was in the flow already.", typed("boolean")),
                "instance": described("The flow instance node.", typed("string")),
                "state": { "type": ["string", "null"] },
            }),
            &["started", "instance", "state"],
        ),
    )
}

pub(super) fn flow_state() -> ToolSpec {
    tool(
        "flow_state",
        "Flow state",
        ToolAnnotations::READ,
        concat!(
            "Where a subject stands in a flow: its state, the state's value, since when, and the last 20 ",
            "steps (action, from, to, author, time). state is null when the flow was not started for it.\n",
            r#"Example: flow_state({"perspective_id": "<P>", "flow_name": "TaskLifecycle", "subject": "<T>"}) → "#,
            r#"{"instance": "ad4m://obj/…", "state": "in_progress", "value": 1, "since": "2026-01-05T10:00:00.000000Z", "#,
            r#""history": [{"action_name": "start", "from": "open", "to": "in_progress", "author": "did:key:z6Mk…", "#,
            r#""timestamp": "2026-01-05T10:00:00.000000Z"}]}"#,
        ),
        subject_parameters(),
        closed_object(
            json!({
                "instance": typed("string"),
                "state": { "type": ["string", "null"] },
                "value": { "type": ["number", "null"] },
                "since": { "type": ["string", "null"] },
                "history": array_of(closed_object(
                    json!({
                        "action_name": { "type": ["string", "null"] },
                        "from": { "type": ["string", "null"] },
                        "to": { "type": ["string", "null"] },
                        "author": { "type": ["string", "null"] },
                        "timestamp": typed("string"),
                    }),
                    &["action_name", "from", "to", "author", "timestamp"],
                )),
            }),
            &["state"],
        ),
    )
}

pub(super) fn flow_actions() -> ToolSpec {
    let action = |extra: Value, required: &[&str]| {
        let mut properties = json!({ "action_name": typed("string"), "to_state": typed("string") });
        if let (Some(o), Value::Object(more)) = (properties.as_object_mut(), extra) {
            o.extend(more);
        }
        closed_object(properties, required)
    };
    tool(
        "flow_actions",
        "Flow actions",
        ToolAnnotations::READ,
        concat!(
            "What may be done next in a flow: the actions out of the subject's current state, each tried as ",
            "flow_run_action would run it and undone. available lists those that would succeed now; blocked ",
            "lists the others with every reason (a state's requirement not met, a shape the action's writes ",
            "would break, a consensus role the caller is not in). Call it before flow_run_action.\n",
            r#"Example: flow_actions({"perspective_id": "<P>", "flow_name": "TaskLifecycle", "subject": "<T>"}) → "#,
            r#"{"state": "open", "available": [], "blocked": [{"action_name": "start", "to_state": "in_progress", "#,
            r#""reasons": ["in_progress.requires[0]: state 'in_progress' requires at least 1 Task where …; found 0"]}]}"#,
        ),
        subject_parameters(),
        closed_object(
            json!({
                "state": { "type": ["string", "null"] },
                "available": array_of(action(json!({ "description": typed("string") }), &["action_name", "to_state"])),
                "blocked": array_of(action(
                    json!({ "reasons": string_list() }),
                    &["action_name", "to_state", "reasons"],
                )),
            }),
            &["state", "available", "blocked"],
        ),
    )
}

pub(super) fn flow_run_action() -> ToolSpec {
    tool(
        "flow_run_action",
        "Run flow action",
        ToolAnnotations::WRITE,
        concat!(
            "Take one step of a flow in one validated transaction: the action must leave the subject's current ",
            "state; its link actions run on the subject; the target state's requirements and the classes' shapes ",
            "must hold afterwards. Then the state moves and the step is recorded. Under a consensus rule needing ",
            "n agents, each call records the caller's proposal (once per agent) and the step happens with the ",
            "n-th: until then the result is transitioned: false. A refusal writes nothing and lists every reason.\n",
            r#"Example: flow_run_action({"perspective_id": "<P>", "flow_name": "TaskLifecycle", "subject": "<T>", "#,
            r#""action_name": "finish"}) → {"transitioned": true, "from": "in_progress", "to": "done", "#,
            r#""links_added": 1, "links_removed": 1}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "flow_name": flow_name(),
                "subject": subject(),
                "action_name": string("The action to take, as flow_actions lists it."),
            }),
            &["perspective_id", "flow_name", "subject", "action_name"],
        ),
        closed_object(
            json!({
                "transitioned": typed("boolean"),
                "from": typed("string"),
                "to": typed("string"),
                "links_added": described("Links the action's link actions wrote.", count()),
                "links_removed": described("Links the action's link actions removed.", count()),
                "proposals": described("Agents who proposed this step so far (consensus).", count()),
                "needed": described("Agents the consensus rule needs.", count()),
            }),
            &["transitioned"],
        ),
    )
}
