//! Which flows a perspective has, and their definitions on the graph.
//!
//! The fixed DNA's flows are in every perspective; add_flow adds more to one perspective. Both
//! are written in AD4M's link layout (a fixed flow the first time it starts in a perspective),
//! and beside it the whole flow as JSON (`ad4m://flowDefinition`), which is what this server
//! reads back: AD4M's layout has no place for input types, start actions or consensus rules.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use shacl_mcp_compiler::check::check_flow;
use shacl_mcp_compiler::literal;
use shacl_mcp_compiler::model::{AD4M_RDF_TYPE, Class, Flow, flow_vocab as v};
use shacl_mcp_compiler::parse::json::parse_flow;

use crate::engine::values::{Decoded, decode};
use crate::engine::{Engine, ToolError};
use crate::store::{LinkPattern, NewLink, ReadTx, StoreError, WriteTx};

impl Engine {
    /// `get_flows`: every flow of the perspective, or with `subject` those it may enter.
    pub fn get_flows(&self, perspective: &str, subject: Option<&str>) -> Result<Value, ToolError> {
        let tx = self.store.read()?;
        self.require_perspective(&*tx, perspective)?;
        let mut listed = Vec::new();
        for flow in self.flows(&*tx, perspective)? {
            if let Some(subject) = subject
                && !self.may_enter(&*tx, perspective, &flow, subject)?
            {
                continue;
            }
            listed.push(summary(&flow));
        }
        Ok(json!({ "flows": listed }))
    }

    /// `add_flow`: `{ success, perspective_id, flow_name, replaced }`.
    pub fn add_flow(&self, perspective: &str, flow: &Value) -> Result<Value, ToolError> {
        let (shape, diags) = parse_flow(flow);
        let refused = |problems: Vec<String>| {
            ToolError::refused(
                format!("Flow refused ({}): {}", count(problems.len()), problems.join("; ")),
                "Fix the flow and call add_flow again: { name, namespace, input_types, states: [{name, value}], transitions: [{action_name, from_state, to_state, actions}] }.",
            )
        };
        let errors = |d: &shacl_mcp_compiler::Diagnostics| -> Vec<String> {
            d.iter().filter(|d| d.is_error()).map(describe).collect()
        };
        let Some(shape) = shape else {
            return Err(refused(errors(&diags)));
        };
        if let Some(name) = shape.name.as_deref().filter(|n| self.fixed.has_flow(n)) {
            return Err(ToolError::refused(
                format!("Flow '{name}' is part of this server's fixed DNA and cannot be replaced at run time"),
                "Choose another flow name; the fixed DNA's flows are in every perspective already (get_flows lists them).",
            ));
        }
        let mut tx = self.write()?;
        self.require_perspective(&*tx, perspective)?;
        let classes = plain(&self.classes(&*tx, perspective)?);
        // What the reader found and what the checks find, every problem in one refusal.
        let (checked, more) = check_flow(&shape, &classes);
        let mut diags = diags;
        diags.extend(more);
        let Some(flow) = checked.filter(|_| !diags.has_errors()) else {
            return Err(refused(errors(&diags)));
        };
        let old = self.flows(&*tx, perspective)?.into_iter().find(|f| f.name == flow.name);
        if let Some(old) = &old {
            remove_definition(&mut *tx, perspective, old)?;
        }
        write_definition(&mut *tx, perspective, &flow)?;
        tx.commit()?;
        Ok(json!({ "success": true, "perspective_id": perspective, "flow_name": flow.name, "replaced": old.is_some() }))
    }

    /// Every flow of a perspective: the fixed DNA's, then those added there, in the order
    /// their definitions were written.
    pub(in crate::engine) fn flows(&self, tx: &dyn ReadTx, perspective: &str) -> Result<Vec<Arc<Flow>>, ToolError> {
        let mut all: Vec<Arc<Flow>> = self.fixed.flows().to_vec();
        let definitions = LinkPattern {
            predicate: Some(v::FLOW_DEFINITION),
            ..LinkPattern::default()
        };
        let links = tx.links(perspective, definitions, None, 0)?;
        if links.is_empty() {
            return Ok(all);
        }
        let classes = plain(&self.classes(tx, perspective)?);
        let fixed: Vec<String> = self.fixed.flows().iter().map(|f| f.iri()).collect();
        for link in links {
            // A fixed flow's definition is written when it first starts; the DNA has it already.
            if fixed.contains(&link.source) {
                continue;
            }
            let Decoded::String(text) = decode(&link.target) else {
                continue;
            };
            // A definition that no longer checks (a class it names is gone) is left out.
            let Some(flow) = parse_flow(&Value::String(text))
                .0
                .and_then(|shape| check_flow(&shape, &classes).0)
            else {
                continue;
            };
            if !all.iter().any(|f| f.name == flow.name) {
                all.push(Arc::new(flow));
            }
        }
        Ok(all)
    }

    /// A flow by name: exact, then case-insensitive; else a refusal that lists the flows.
    pub(super) fn flow(&self, tx: &dyn ReadTx, perspective: &str, name: &str) -> Result<Arc<Flow>, ToolError> {
        let flows = self.flows(tx, perspective)?;
        let found = flows
            .iter()
            .find(|f| f.name == name)
            .or_else(|| flows.iter().find(|f| f.name.eq_ignore_ascii_case(name)));
        found.cloned().ok_or_else(|| {
            let names: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
            let known = if names.is_empty() { "none yet".to_string() } else { names.join(", ") };
            ToolError::refused(
                format!("Unknown flow '{name}' in perspective '{perspective}'"),
                format!("Flows in this perspective: {known}. Call get_flows for their states and actions, or add_flow to add one."),
            )
        })
    }
}

/// The classes as the compiler's checks take them.
pub(super) fn plain(classes: &[Arc<Class>]) -> Vec<Class> {
    classes.iter().map(|c| (**c).clone()).collect()
}

pub(super) fn has_definition(tx: &dyn ReadTx, perspective: &str, flow: &Flow) -> Result<bool, StoreError> {
    let iri = flow.iri();
    let typed = LinkPattern {
        source: Some(&iri),
        predicate: Some(AD4M_RDF_TYPE),
        target: Some(v::FLOW),
    };
    Ok(tx.count_links(perspective, typed)? > 0)
}

/// Writes the definition links of `flow`.
pub(super) fn write_definition(tx: &mut dyn WriteTx, perspective: &str, flow: &Flow) -> Result<(), StoreError> {
    let iri = flow.iri();
    let mut links = vec![
        (iri.clone(), AD4M_RDF_TYPE, v::FLOW.to_string()),
        (iri.clone(), v::FLOW_NAME, literal::string(&flow.name)),
        (
            iri.clone(),
            v::FLOW_DEFINITION,
            literal::string(&flow.to_json().to_string()),
        ),
    ];
    for state in &flow.states {
        let s = flow.state_iri(&state.name);
        links.push((iri.clone(), v::HAS_STATE, s.clone()));
        links.push((s.clone(), v::STATE_NAME, literal::string(&state.name)));
        links.push((s.clone(), v::STATE_VALUE, literal::number(&state.value)));
        if !state.requires.is_empty() {
            links.push((s, v::REQUIRES, literal::string(&state.requires_json().to_string())));
        }
    }
    for t in &flow.transitions {
        let ti = flow.transition_iri(t);
        links.push((iri.clone(), v::HAS_TRANSITION, ti.clone()));
        links.push((ti.clone(), v::ACTION_NAME, literal::string(&t.action_name)));
        links.push((ti.clone(), v::FROM_STATE, flow.state_iri(&t.from_state)));
        links.push((ti.clone(), v::TO_STATE, flow.state_iri(&t.to_state)));
        let actions = shacl_mcp_compiler::model::flow_actions_json(&t.actions);
        links.push((ti, v::TRANSITION_ACTIONS, literal::string(&actions.to_string())));
    }
    for (source, predicate, target) in links {
        tx.add_link(
            perspective,
            NewLink {
                source,
                predicate: predicate.to_string(),
                target,
                local: false,
            },
        )?;
    }
    Ok(())
}

/// Removes the definition links of `flow` (before add_flow writes its replacement).
pub(super) fn remove_definition(tx: &mut dyn WriteTx, perspective: &str, flow: &Flow) -> Result<(), StoreError> {
    let mut nodes = vec![flow.iri()];
    nodes.extend(flow.states.iter().map(|s| flow.state_iri(&s.name)));
    nodes.extend(flow.transitions.iter().map(|t| flow.transition_iri(t)));
    for node in &nodes {
        let out = LinkPattern {
            source: Some(node),
            ..LinkPattern::default()
        };
        tx.remove_links(perspective, out)?;
    }
    Ok(())
}

/// A flow as get_flows lists it.
fn summary(flow: &Flow) -> Value {
    let mut o = Map::new();
    o.insert("name".into(), flow.name.clone().into());
    if let Some(hint) = &flow.interpretation_hint {
        o.insert("interpretation_hint".into(), hint.clone().into());
    }
    o.insert("input_types".into(), flow.input_types_json());
    let states: Vec<Value> = flow
        .states
        .iter()
        .map(|s| json!({ "name": s.name, "value": s.value }))
        .collect();
    o.insert("states".into(), states.into());
    let transitions: Vec<Value> = flow
        .transitions
        .iter()
        .map(|t| json!({ "action_name": t.action_name, "from_state": t.from_state, "to_state": t.to_state }))
        .collect();
    o.insert("transitions".into(), transitions.into());
    Value::Object(o)
}

fn describe(d: &shacl_mcp_compiler::Diagnostic) -> String {
    let mut text = format!("{}: {}", d.origin.pointer.as_deref().unwrap_or(""), d.message);
    if let Some(help) = &d.help {
        text.push_str(&format!(" ({help})"));
    }
    text
}

fn count(n: usize) -> String {
    if n == 1 {
        "1 problem".to_string()
    } else {
        format!("{n} problems")
    }
}
