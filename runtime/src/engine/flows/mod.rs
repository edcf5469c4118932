//! Flows: state machines over instances that agents read and drive (docs/flows.md). The tools
//! about one subject's flow are here; [`catalog`] has get_flows and add_flow and says which
//! flows a perspective has, [`instance`] where a subject stands, [`guards`] what a state
//! requires, [`step`] what a step does.
//!
//! Every tool is one store transaction. A step that a consensus rule holds back is tried in
//! one (and undone), then proposed in a second that re-reads the state; see `flow_run_action`.

mod catalog;
mod guards;
mod instance;
mod step;

use serde_json::{Map, Value, json};
use shacl_mcp_compiler::model::Flow;

use self::guards::Context;
use self::instance::Running;
use super::Engine;
use super::error::{Envelope, Subject, ToolError};
use super::object::is_instance;
use crate::clock::format_rfc3339_micros;
use crate::store::ReadTx;

impl Engine {
    /// `flow_start`: `{ started, instance, state }`. A subject already in the flow answers
    /// `started: false` with where it stands.
    pub fn flow_start(&self, perspective: &str, flow_name: &str, subject: &str) -> Result<Value, ToolError> {
        let mut tx = self.write()?;
        self.require_perspective(&*tx, perspective)?;
        let flow = self.flow(&*tx, perspective, flow_name)?;
        if let Some(running) = instance::find(&*tx, perspective, &flow, subject)? {
            return Ok(json!({ "started": false, "instance": running.node, "state": running.state }));
        }
        if !self.may_enter(&*tx, perspective, &flow, subject)? {
            return Err(ToolError::refused(
                format!(
                    "'{subject}' may not enter flow '{}': it is not an instance of {}",
                    flow.name,
                    flow.input_types.join(" or ")
                ),
                "Start the flow on an instance of one of its input types (get_flows with subject lists the flows a node may enter).",
            ));
        }
        let Some(start) = flow.start_state() else {
            return Err(ToolError::Internal(format!("flow '{}' has no state", flow.name)));
        };
        let classes = self.classes(&*tx, perspective)?;
        let shapes = self.shapes(&*tx, perspective)?;
        let node = self.ids.mint();
        let ctx = Context {
            subject,
            instance: &node,
            did: self.did(),
            shapes: &shapes,
        };
        let trial = step::trial(
            &mut *tx,
            perspective,
            &classes,
            &flow,
            &start.name,
            &flow.start_actions,
            &ctx,
        )?;
        if !trial.problems.is_empty() {
            // Not an action of the flow: the envelope names the tool, so no action is mistaken for it.
            return Err(refusal(&flow, "flow_start", trial.problems));
        }
        if !catalog::has_definition(&*tx, perspective, &flow)? {
            catalog::write_definition(&mut *tx, perspective, &flow)?;
        }
        instance::create(&mut *tx, perspective, &flow, &node, subject, &start.name)?;
        tx.commit()?;
        Ok(json!({ "started": true, "instance": node, "state": start.name }))
    }

    /// `flow_state`: `{ instance, state, value, since, history }`, or `{ state: null }`.
    pub fn flow_state(&self, perspective: &str, flow_name: &str, subject: &str) -> Result<Value, ToolError> {
        let tx = self.store.read()?;
        self.require_perspective(&*tx, perspective)?;
        let flow = self.flow(&*tx, perspective, flow_name)?;
        let Some(running) = instance::find(&*tx, perspective, &flow, subject)? else {
            return Ok(json!({ "state": null }));
        };
        let value = running
            .state
            .as_deref()
            .and_then(|s| flow.state(s))
            .map(|s| Value::Number(s.value.clone()));
        Ok(json!({
            "instance": running.node,
            "state": running.state,
            "value": value,
            "since": running.entered.as_ref().map(|l| format_rfc3339_micros(l.timestamp)),
            "history": instance::history(&*tx, perspective, &flow, &running.node)?,
        }))
    }

    /// `flow_actions`: `{ state, available, blocked }`. Each action out of the current state is
    /// tried as flow_run_action would run it, and undone.
    pub fn flow_actions(&self, perspective: &str, flow_name: &str, subject: &str) -> Result<Value, ToolError> {
        let (flow, running) = {
            let tx = self.store.read()?;
            self.require_perspective(&*tx, perspective)?;
            let flow = self.flow(&*tx, perspective, flow_name)?;
            let running = instance::find(&*tx, perspective, &flow, subject)?;
            (flow, running)
        };
        let Some(state) = running.as_ref().and_then(|r| r.state.clone()) else {
            return Ok(json!({ "state": null, "available": [], "blocked": [] }));
        };
        let node = running.map(|r| r.node).unwrap_or_default();
        let (mut available, mut blocked) = (Vec::new(), Vec::new());
        for t in flow.transitions.iter().filter(|t| t.from_state == state) {
            // A transaction per trial, dropped: nothing a trial writes is kept.
            let mut tx = self.write()?;
            let classes = self.classes(&*tx, perspective)?;
            let shapes = self.shapes(&*tx, perspective)?;
            let ctx = Context {
                subject,
                instance: &node,
                did: self.did(),
                shapes: &shapes,
            };
            let trial = step::trial(&mut *tx, perspective, &classes, &flow, &t.to_state, &t.actions, &ctx)?;
            let mut entry = Map::new();
            entry.insert("action_name".into(), t.action_name.clone().into());
            entry.insert("to_state".into(), t.to_state.clone().into());
            if trial.problems.is_empty() {
                if let Some(d) = &t.description {
                    entry.insert("description".into(), d.clone().into());
                }
                available.push(Value::Object(entry));
            } else {
                let reasons: Vec<Value> = trial.problems.iter().map(|p| p.headline().into()).collect();
                entry.insert("reasons".into(), reasons.into());
                blocked.push(Value::Object(entry));
            }
        }
        Ok(json!({ "state": state, "available": available, "blocked": blocked }))
    }

    /// `flow_run_action`: `{ transitioned: true, from, to, links_added, links_removed }`, or under
    /// a consensus rule not yet met `{ transitioned: false, proposals, needed }`.
    pub fn flow_run_action(
        &self,
        perspective: &str,
        flow_name: &str,
        subject: &str,
        action: &str,
    ) -> Result<Value, ToolError> {
        let mut tx = self.write()?;
        self.require_perspective(&*tx, perspective)?;
        let flow = self.flow(&*tx, perspective, flow_name)?;
        let (running, state) = started(&*tx, perspective, &flow, subject)?;
        let Some(t) = step::transition(&flow, &state, action).cloned() else {
            return Err(step::not_available(&flow, subject, &state, action));
        };
        let classes = self.classes(&*tx, perspective)?;
        let shapes = self.shapes(&*tx, perspective)?;
        let ctx = Context {
            subject,
            instance: &running.node,
            did: self.did(),
            shapes: &shapes,
        };
        let trial = step::trial(&mut *tx, perspective, &classes, &flow, &t.to_state, &t.actions, &ctx)?;
        if !trial.problems.is_empty() {
            return Err(refusal(&flow, &t.action_name, trial.problems));
        }
        let needed = flow
            .state(&t.to_state)
            .and_then(|s| flow.rule_for(s))
            .map_or(1, |r| r.n);
        if needed > 1 {
            let agreed = step::agreed(&*tx, perspective, &classes, &flow, &running, &t, &ctx)?;
            if (agreed.len() as u64) < needed {
                // The trial passed but moves nothing yet: undo it and record the proposal.
                drop(tx);
                return self.propose(perspective, &flow, subject, &state, &t, needed);
            }
        }
        let record = self.ids.mint();
        instance::step(&mut *tx, perspective, &flow, &running.node, &record, &t, self.did())?;
        tx.commit()?;
        Ok(json!({
            "transitioned": true,
            "from": t.from_state,
            "to": t.to_state,
            "links_added": trial.links_added,
            "links_removed": trial.links_removed,
        }))
    }

    /// Records the caller's proposal of `t`, in a transaction of its own that re-reads the
    /// state: a step taken meanwhile makes the proposal moot, and it is refused like a late step.
    fn propose(
        &self,
        perspective: &str,
        flow: &Flow,
        subject: &str,
        state: &str,
        t: &shacl_mcp_compiler::model::Transition,
        needed: u64,
    ) -> Result<Value, ToolError> {
        let mut tx = self.write()?;
        let (running, now) = started(&*tx, perspective, flow, subject)?;
        if now != state {
            return Err(step::not_available(flow, subject, &now, &t.action_name));
        }
        // One proposal per agent: a second call from the same agent writes nothing.
        let proposers = instance::proposers(&*tx, perspective, flow, &running, t)?;
        if !proposers.iter().any(|a| a == self.did()) {
            instance::propose(&mut *tx, perspective, flow, &running.node, t)?;
        }
        let classes = self.classes(&*tx, perspective)?;
        let shapes = self.shapes(&*tx, perspective)?;
        let ctx = Context {
            subject,
            instance: &running.node,
            did: self.did(),
            shapes: &shapes,
        };
        let agreed = step::agreed(&*tx, perspective, &classes, flow, &running, t, &ctx)?;
        tx.commit()?;
        Ok(json!({ "transitioned": false, "proposals": agreed.len(), "needed": needed }))
    }

    /// Whether `subject` may enter `flow`: any node when the flow takes any, else an instance
    /// of one of its input types.
    pub(super) fn may_enter(
        &self,
        tx: &dyn ReadTx,
        perspective: &str,
        flow: &Flow,
        subject: &str,
    ) -> Result<bool, ToolError> {
        if flow.accepts_any() {
            return Ok(true);
        }
        for name in &flow.input_types {
            let class = self.class(tx, perspective, name)?;
            if is_instance(tx, perspective, &class, subject)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The subject's running instance and its state, or the refusal that says to start it.
fn started(tx: &dyn ReadTx, perspective: &str, flow: &Flow, subject: &str) -> Result<(Running, String), ToolError> {
    match instance::find(tx, perspective, flow, subject)? {
        Some(running) => match running.state.clone() {
            Some(state) => Ok((running, state)),
            None => Err(ToolError::refused(
                format!(
                    "The instance of flow '{}' for '{subject}' is in no state of the flow",
                    flow.name
                ),
                "Its ad4m://currentState link is missing or names an unknown state; query_links on the instance shows it.",
            )),
        },
        None => Err(ToolError::refused(
            format!("Flow '{}' has not been started for '{subject}'", flow.name),
            "Call flow_start first.",
        )),
    }
}

/// A step (or a start) that cannot happen: the envelope with every reason.
fn refusal(flow: &Flow, action: &str, problems: Vec<super::error::Problem>) -> ToolError {
    ToolError::Invalid(Envelope {
        subject: Subject::Flow {
            flow: flow.name.clone(),
            action: action.to_string(),
        },
        problems,
    })
}
