//! One step of a flow (flow_run_action), and the trial of a step that flow_actions makes to
//! say why it is blocked: both run the same code, so what flow_actions calls available is
//! exactly what flow_run_action does.
//!
//! A trial runs the transition's actions on the subject inside the write transaction, then
//! checks the target state's `requires` on the graph as the actions left it, the shapes (no
//! Violation that was not there before, on the nodes the actions wrote from and those pointing
//! at them) and, under a rule with a role, the caller. The caller
//! commits only a step that passed; dropping the transaction undoes the trial.

use std::sync::Arc;

use shacl_mcp_compiler::model::{Class, Flow, Transition};

use super::guards::{self, Context};
use super::instance::{self, Running};
use crate::engine::actions::Runner;
use crate::engine::error::{Problem, ToolError};
use crate::store::{ReadTx, WriteTx};

/// What the trial of a step found.
pub(super) struct Trial {
    /// Every reason the step cannot happen (empty: it can).
    pub problems: Vec<Problem>,
    pub links_added: u64,
    pub links_removed: u64,
}

/// Runs `actions` on the subject and checks what the target state needs.
pub(super) fn trial(
    tx: &mut (dyn WriteTx + '_),
    perspective: &str,
    classes: &[Arc<Class>],
    flow: &Flow,
    target: &str,
    actions: &[shacl_mcp_compiler::model::Action],
    ctx: &Context<'_>,
) -> Result<Trial, ToolError> {
    // The nodes the actions write links out of: only their shapes (and those of nodes pointing
    // at them) can change.
    let mut touched = vec![ctx.subject.to_string()];
    for action in actions.iter().filter(|a| a.source != "this") {
        if !touched.contains(&action.source) {
            touched.push(action.source.clone());
        }
    }
    let before = guards::violations(&*tx, perspective, classes, ctx.shapes, &touched)?;
    let mut run = Runner::new(&mut *tx, perspective, ctx.subject);
    for action in actions {
        // Flow actions have no `value` to substitute: a target that is not a constant is skipped.
        run.run(action, &|_| None)?;
    }
    let (links_added, links_removed) = (run.links_added, run.links_removed);
    let mut problems = Vec::new();
    if let Some(state) = flow.state(target) {
        problems.extend(guards::unmet(&*tx, perspective, classes, target, &state.requires, ctx)?);
        if let Some(role) = flow.rule_for(state).and_then(|r| r.from_role.as_ref()) {
            let members = guards::members(&*tx, perspective, classes, role, ctx)?;
            if !members.iter().any(|m| m == ctx.did) {
                problems.push(Problem::new(
                    "consensus",
                    format!(
                        "only the agents of {} (their {}) may propose entering '{target}'; {} is not one of them",
                        role.query.describe(),
                        role.did_property,
                        ctx.did
                    ),
                ));
            }
        }
    }
    let after = guards::violations(&*tx, perspective, classes, ctx.shapes, &touched)?;
    problems.extend(guards::new_violations(&before, after, classes));
    Ok(Trial {
        problems,
        links_added,
        links_removed,
    })
}

/// The distinct agents whose proposals of `t` count: those made since the instance entered its
/// state, by members of the rule's role when it has one, and the caller's (whose call is one).
pub(super) fn agreed(
    tx: &dyn ReadTx,
    perspective: &str,
    classes: &[Arc<Class>],
    flow: &Flow,
    running: &Running,
    t: &Transition,
    ctx: &Context<'_>,
) -> Result<Vec<String>, ToolError> {
    let mut agreed = instance::proposers(tx, perspective, flow, running, t)?;
    let role = flow
        .state(&t.to_state)
        .and_then(|s| flow.rule_for(s))
        .and_then(|r| r.from_role.as_ref());
    if let Some(role) = role {
        // Membership is read now: an agent who left the role no longer counts.
        let members = guards::members(tx, perspective, classes, role, ctx)?;
        agreed.retain(|a| members.contains(a));
    }
    if !agreed.iter().any(|a| a == ctx.did) {
        agreed.push(ctx.did.to_string());
    }
    Ok(agreed)
}

/// The transition `action` out of `state`: by its name, then by its snake_case form.
pub(super) fn transition<'f>(flow: &'f Flow, state: &str, action: &str) -> Option<&'f Transition> {
    let out = || flow.transitions.iter().filter(move |t| t.from_state == state);
    out().find(|t| t.action_name == action).or_else(|| {
        let wanted = shacl_mcp_compiler::naming::snake(action);
        out().find(|t| shacl_mcp_compiler::naming::snake(&t.action_name) == wanted)
    })
}

/// The refusal of an action the current state does not offer: the state and what it offers.
pub(super) fn not_available(flow: &Flow, subject: &str, state: &str, action: &str) -> ToolError {
    let offered: Vec<&str> = flow
        .transitions
        .iter()
        .filter(|t| t.from_state == state)
        .map(|t| t.action_name.as_str())
        .collect();
    let offered = if offered.is_empty() {
        "none (a final state)".to_string()
    } else {
        offered.join(", ")
    };
    ToolError::refused(
        format!(
            "Action '{action}' is not available: '{subject}' is in state '{state}' of flow '{}'",
            flow.name
        ),
        format!(
            "Actions available from '{state}': {offered}. Call flow_actions to see which of them are blocked and why."
        ),
    )
}
