//! Random sequences of raw link writes, tool writes and flow steps on the tasks lifecycle of
//! dna/tasks-flow.json; after each, flow_state and flow_actions agree with the flow's rules
//! evaluated directly over query_links (not through the engine's flow code).

mod common;

use std::collections::BTreeSet;

use common::*;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use shacl_mcp::store::LinkPattern;

const DID: &str = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const ACTIONS: [&str; 4] = ["start", "finish", "reopen", "scrap"];

#[derive(Clone, Debug)]
enum Op {
    /// instance_update of the assignee, or unset it.
    Assign(bool),
    /// add_link of an assignee that is not a DID.
    RawAssignee,
    /// instance_create of a Comment about the task.
    Comment,
    /// execute_commands removing every `about` link to the task.
    Uncomment,
    /// flow_run_action.
    Run(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        any::<bool>().prop_map(Op::Assign),
        Just(Op::RawAssignee),
        Just(Op::Comment),
        Just(Op::Uncomment),
        (0..ACTIONS.len()).prop_map(Op::Run),
    ]
}

struct World {
    s: Setup,
    p: String,
    task: String,
    instance: String,
}

impl World {
    fn new() -> World {
        let s = setup(&["tasks-flow.json"]);
        let p = s.perspective("Team");
        let task = s.created(&p, "Task", json!({ "title": "t" }));
        let instance = s.engine.flow_start(&p, "TaskLifecycle", &task).unwrap()["instance"]
            .as_str()
            .unwrap()
            .to_string();
        World { s, p, task, instance }
    }

    fn links(&self, source: Option<&str>, predicate: &str, target: Option<&str>) -> Vec<Value> {
        let pattern = LinkPattern {
            source,
            predicate: Some(predicate),
            target,
        };
        let page = self.s.engine.query_links(&self.p, pattern, Some(1000), None).unwrap();
        page["links"].as_array().unwrap().clone()
    }

    /// The state: the target of the instance's last `ad4m://currentState` link.
    fn state(&self) -> String {
        let current = self.links(Some(&self.instance), "ad4m://currentState", None);
        let iri = current.last().unwrap()["target"].as_str().unwrap();
        iri.strip_prefix("todo://TaskLifecycle.").unwrap().to_string()
    }

    /// in_progress requires the task's assignee (its last link) to contain "did:".
    fn assigned(&self) -> bool {
        let assignee = self.links(Some(&self.task), "todo://assignee", None);
        assignee
            .last()
            .is_some_and(|l| l["target"].as_str().unwrap().contains("did:"))
    }

    /// done requires a Comment linked to the task by todo://about.
    fn commented(&self) -> bool {
        self.links(None, "todo://about", Some(&self.task)).iter().any(|l| {
            let node = l["source"].as_str().unwrap();
            !self.links(Some(node), "rdf://type", Some("todo://Comment")).is_empty()
        })
    }

    /// The actions out of the state that the rules allow (scrap breaks the Task shape).
    fn allowed(&self) -> BTreeSet<String> {
        let state = self.state();
        let allowed: &[(&str, &str, bool)] = &[
            ("open", "start", self.assigned()),
            ("in_progress", "finish", self.commented()),
            ("done", "reopen", true),
            ("open", "scrap", false),
        ];
        allowed
            .iter()
            .filter(|(from, _, ok)| *from == state && *ok)
            .map(|(_, action, _)| action.to_string())
            .collect()
    }

    fn apply(&self, op: &Op) {
        let e = &self.s.engine;
        match op {
            Op::Assign(true) => {
                let mut set = Map::new();
                set.insert("assignee".into(), json!(DID));
                e.instance_update(&self.p, "Task", &self.task, Some(&set), &[]).unwrap();
            }
            Op::Assign(false) => {
                e.instance_update(&self.p, "Task", &self.task, None, &["assignee".to_string()])
                    .unwrap();
            }
            Op::RawAssignee => {
                e.add_link(&self.p, &self.task, "todo://assignee", "app://nobody", false)
                    .unwrap();
            }
            Op::Comment => {
                let mut properties = Map::new();
                properties.insert("text".into(), json!("c"));
                properties.insert("about".into(), json!(self.task));
                e.instance_create(&self.p, "Comment", &properties, None, None).unwrap();
            }
            Op::Uncomment => {
                for link in self.links(None, "todo://about", Some(&self.task)) {
                    let command = json!({ "action": "removeLink", "source": "this", "predicate": "todo://about", "target": self.task });
                    e.execute_commands(&self.p, link["source"].as_str().unwrap(), &[command], None)
                        .unwrap();
                }
            }
            Op::Run(i) => {
                let allowed = self.allowed();
                let result = e.flow_run_action(&self.p, "TaskLifecycle", &self.task, ACTIONS[*i]);
                assert_eq!(
                    result.is_ok(),
                    allowed.contains(ACTIONS[*i]),
                    "{op:?} in {}: {result:?}",
                    self.state()
                );
            }
        }
    }

    fn check(&self) {
        let e = &self.s.engine;
        let state = e.flow_state(&self.p, "TaskLifecycle", &self.task).unwrap();
        assert_eq!(state["state"], self.state().as_str());
        let actions = e.flow_actions(&self.p, "TaskLifecycle", &self.task).unwrap();
        let names = |key: &str| -> BTreeSet<String> {
            actions[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a["action_name"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(names("available"), self.allowed(), "{actions}");
        let out_of_state: usize = [("open", 2), ("in_progress", 1), ("done", 1)]
            .iter()
            .find(|(s, _)| *s == self.state())
            .map_or(0, |(_, n)| *n);
        assert_eq!(names("available").len() + names("blocked").len(), out_of_state);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn flow_tools_agree_with_the_links(ops in proptest::collection::vec(op(), 1..14)) {
        let world = World::new();
        world.check();
        for op in &ops {
            world.apply(op);
            world.check();
        }
    }
}
