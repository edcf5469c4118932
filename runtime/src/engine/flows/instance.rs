//! Flow instances on the graph: the node that says where a subject stands in a flow, the
//! record of every step, and the proposals of a step under a consensus rule.
//!
//! ```text
//! I rdf://type ad4m://FlowInstance      I ad4m://flow F      I ad4m://subject S
//! I ad4m://currentState F.state          (one link: replaced by each step)
//! I ad4m://hasTransitionRecord R         R rdf://type ad4m://FlowTransitionRecord,
//!                                        R ad4m://fromState / toState / actionName / author
//! I ad4m://proposal F.{from}To{to}       (signed by the agent who proposes the step)
//! ```
//! A record's time is its links' timestamp.

use serde_json::{Value, json};
use shacl_mcp_compiler::literal;
use shacl_mcp_compiler::model::{AD4M_RDF_TYPE, Flow, Transition, flow_vocab as v};

use crate::clock::format_rfc3339_micros;
use crate::engine::values::{Decoded, decode};
use crate::store::{Link, LinkPattern, NewLink, ReadTx, StoreError, WriteTx};

/// How many steps flow_state shows.
pub(super) const HISTORY: usize = 20;

/// A subject's instance of a flow.
pub(super) struct Running {
    pub node: String,
    /// The current state's name; `None` when the current state link is missing or names no
    /// state of the flow (written by hand).
    pub state: Option<String>,
    /// The link that set the current state: when the state was entered.
    pub entered: Option<Link>,
}

/// The subject's instance of `flow`, if it was started.
pub(super) fn find(
    tx: &dyn ReadTx,
    perspective: &str,
    flow: &Flow,
    subject: &str,
) -> Result<Option<Running>, StoreError> {
    let iri = flow.iri();
    let of_subject = LinkPattern {
        predicate: Some(v::SUBJECT),
        target: Some(subject),
        ..LinkPattern::default()
    };
    for link in tx.links(perspective, of_subject, None, 0)? {
        let node = link.source;
        let of_flow = LinkPattern {
            source: Some(&node),
            predicate: Some(v::INSTANCE_FLOW),
            target: Some(&iri),
        };
        if tx.count_links(perspective, of_flow)? == 0 {
            continue;
        }
        let current = LinkPattern {
            source: Some(&node),
            predicate: Some(v::CURRENT_STATE),
            target: None,
        };
        let entered = tx.links(perspective, current, None, 0)?.pop();
        let state = entered
            .as_ref()
            .and_then(|l| flow.state_by_iri(&l.target))
            .map(|s| s.name.clone());
        return Ok(Some(Running { node, state, entered }));
    }
    Ok(None)
}

fn add(tx: &mut dyn WriteTx, perspective: &str, source: &str, predicate: &str, target: &str) -> Result<(), StoreError> {
    tx.add_link(
        perspective,
        NewLink {
            source: source.to_string(),
            predicate: predicate.to_string(),
            target: target.to_string(),
            local: false,
        },
    )?;
    Ok(())
}

/// Writes a new instance node of `flow` for `subject`, in `state`.
pub(super) fn create(
    tx: &mut dyn WriteTx,
    perspective: &str,
    flow: &Flow,
    node: &str,
    subject: &str,
    state: &str,
) -> Result<(), StoreError> {
    add(tx, perspective, node, AD4M_RDF_TYPE, v::FLOW_INSTANCE)?;
    add(tx, perspective, node, v::INSTANCE_FLOW, &flow.iri())?;
    add(tx, perspective, node, v::SUBJECT, subject)?;
    add(tx, perspective, node, v::CURRENT_STATE, &flow.state_iri(state))
}

/// Moves the instance to the transition's target state and records the step.
pub(super) fn step(
    tx: &mut dyn WriteTx,
    perspective: &str,
    flow: &Flow,
    node: &str,
    record: &str,
    t: &Transition,
    author: &str,
) -> Result<(), StoreError> {
    let current = LinkPattern {
        source: Some(node),
        predicate: Some(v::CURRENT_STATE),
        target: None,
    };
    tx.remove_links(perspective, current)?;
    add(tx, perspective, node, v::CURRENT_STATE, &flow.state_iri(&t.to_state))?;
    add(tx, perspective, node, v::HAS_RECORD, record)?;
    add(tx, perspective, record, AD4M_RDF_TYPE, v::TRANSITION_RECORD)?;
    add(tx, perspective, record, v::FROM_STATE, &flow.state_iri(&t.from_state))?;
    add(tx, perspective, record, v::TO_STATE, &flow.state_iri(&t.to_state))?;
    add(
        tx,
        perspective,
        record,
        v::ACTION_NAME,
        &literal::string(&t.action_name),
    )?;
    add(tx, perspective, record, v::RECORD_AUTHOR, author)
}

/// The last [`HISTORY`] steps, oldest first: `{ action_name, from, to, author, timestamp }`.
pub(super) fn history(tx: &dyn ReadTx, perspective: &str, flow: &Flow, node: &str) -> Result<Vec<Value>, StoreError> {
    let records = LinkPattern {
        source: Some(node),
        predicate: Some(v::HAS_RECORD),
        target: None,
    };
    let total = tx.count_links(perspective, records)?;
    let skip = total.saturating_sub(HISTORY as u64);
    let mut steps = Vec::new();
    for link in tx.links(perspective, records, Some(HISTORY as u64), skip)? {
        let out = LinkPattern {
            source: Some(&link.target),
            ..LinkPattern::default()
        };
        let facts = tx.links(perspective, out, None, 0)?;
        let fact = |predicate: &str| {
            facts
                .iter()
                .rev()
                .find(|l| l.predicate == predicate)
                .map(|l| l.target.as_str())
        };
        let state = |predicate: &str| {
            fact(predicate)
                .and_then(|iri| flow.state_by_iri(iri))
                .map(|s| s.name.clone())
        };
        let action = match fact(v::ACTION_NAME).map(decode) {
            Some(Decoded::String(s)) => Some(s),
            _ => None,
        };
        steps.push(json!({
            "action_name": action,
            "from": state(v::FROM_STATE),
            "to": state(v::TO_STATE),
            "author": fact(v::RECORD_AUTHOR),
            "timestamp": format_rfc3339_micros(link.timestamp),
        }));
    }
    Ok(steps)
}

/// The distinct agents who proposed `t` since the instance entered its current state, in the
/// order of their first proposal: proposals from an earlier visit no longer count.
pub(super) fn proposers(
    tx: &dyn ReadTx,
    perspective: &str,
    flow: &Flow,
    running: &Running,
    t: &Transition,
) -> Result<Vec<String>, StoreError> {
    let target = flow.transition_iri(t);
    let proposals = LinkPattern {
        source: Some(&running.node),
        predicate: Some(v::PROPOSAL),
        target: Some(&target),
    };
    let since = running.entered.as_ref().map(|l| (l.timestamp, l.seq));
    let mut authors: Vec<String> = Vec::new();
    for link in tx.links(perspective, proposals, None, 0)? {
        let current = since.is_none_or(|since| (link.timestamp, link.seq) > since);
        if current && !authors.contains(&link.author) {
            authors.push(link.author);
        }
    }
    Ok(authors)
}

/// Records the transaction's author's proposal of `t`.
pub(super) fn propose(
    tx: &mut dyn WriteTx,
    perspective: &str,
    flow: &Flow,
    node: &str,
    t: &Transition,
) -> Result<(), StoreError> {
    add(tx, perspective, node, v::PROPOSAL, &flow.transition_iri(t))
}
