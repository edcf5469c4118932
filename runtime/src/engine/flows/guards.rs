//! What a step needs besides leaving the current state: the target state's `requires` (queries
//! over the graph after the step's actions), the shapes its writes must not break, and who may
//! propose it under a consensus rule. Each unmet need is one problem of the envelope.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Value};
use shacl_mcp_compiler::model::{Anchor, Class, Query, Role};
use shacl_mcp_compiler::shacl::{Shapes, Term, validate_focus};

use crate::engine::error::{Problem, ToolError};
use crate::engine::graph::LinkTyper;
use crate::engine::object::{links_of, values_of};
use crate::engine::query::matching_instances;
use crate::engine::write_rule::TxGraph;
use crate::store::{LinkPattern, ReadTx};

/// The values `$flow.subject`, `$flow.instance` and `$did` stand for in a query.
pub(super) struct Context<'a> {
    pub subject: &'a str,
    /// The flow instance node (the flow's IRI before the flow has started).
    pub instance: &'a str,
    pub did: &'a str,
    /// The perspective's complete shapes ([`crate::engine::Engine::shapes`]).
    pub shapes: &'a Shapes,
}

impl Context<'_> {
    fn substitute(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(
                s.replace("$flow.subject", self.subject)
                    .replace("$flow.instance", self.instance)
                    .replace("$did", self.did),
            ),
            Value::Array(items) => items.iter().map(|v| self.substitute(v)).collect(),
            Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), self.substitute(v))).collect()),
            other => other.clone(),
        }
    }

    fn anchor(&self, anchor: Anchor) -> &str {
        match anchor {
            Anchor::Subject => self.subject,
            Anchor::Flow => self.instance,
        }
    }
}

/// The instances a query finds: its class's instances that match `where` and are linked as
/// `linked_to` says (a link either way between the instance and the anchor).
pub(super) fn find(
    tx: &dyn ReadTx,
    perspective: &str,
    classes: &[Arc<Class>],
    query: &Query,
    ctx: &Context<'_>,
) -> Result<Vec<String>, ToolError> {
    let Some(class) = classes.iter().find(|c| c.name == query.class_name) else {
        return Ok(Vec::new());
    };
    let filter = match ctx.substitute(&Value::Object(query.filter.clone())) {
        Value::Object(o) => o,
        _ => Map::new(),
    };
    let mut found = matching_instances(tx, perspective, class, &filter)?;
    if let Some(linked) = &query.linked_to {
        let anchor = ctx.anchor(linked.to);
        let mut kept = Vec::new();
        for node in found {
            let out = LinkPattern {
                source: Some(&node),
                predicate: linked.via.as_deref(),
                target: Some(anchor),
            };
            let back = LinkPattern {
                source: Some(anchor),
                predicate: linked.via.as_deref(),
                target: Some(&node),
            };
            if tx.count_links(perspective, out)? + tx.count_links(perspective, back)? > 0 {
                kept.push(node);
            }
        }
        found = kept;
    }
    Ok(found)
}

/// One problem per query of `requires` that does not hold.
pub(super) fn unmet(
    tx: &dyn ReadTx,
    perspective: &str,
    classes: &[Arc<Class>],
    state: &str,
    requires: &[Query],
    ctx: &Context<'_>,
) -> Result<Vec<Problem>, ToolError> {
    let mut problems = Vec::new();
    for (i, query) in requires.iter().enumerate() {
        let n = find(tx, perspective, classes, query, ctx)?.len() as u64;
        if n < query.min || query.max.is_some_and(|max| n > max) {
            problems.push(Problem::new(
                format!("{state}.requires[{i}]"),
                format!("state '{state}' requires {}; found {n}", query.describe()),
            ));
        }
    }
    Ok(problems)
}

/// The DIDs a role names: the `did_property` values of the role query's instances.
pub(super) fn members(
    tx: &dyn ReadTx,
    perspective: &str,
    classes: &[Arc<Class>],
    role: &Role,
    ctx: &Context<'_>,
) -> Result<Vec<String>, ToolError> {
    let Some(class) = classes.iter().find(|c| c.name == role.query.class_name) else {
        return Ok(Vec::new());
    };
    let mut dids = Vec::new();
    for node in find(tx, perspective, classes, &role.query, ctx)? {
        let values = values_of(class, &links_of(tx, perspective, &node)?);
        let items = match values.get(&role.did_property) {
            Some(Value::Array(items)) => items.clone(),
            Some(v) => vec![v.clone()],
            None => Vec::new(),
        };
        dids.extend(items.iter().filter_map(Value::as_str).map(str::to_string));
    }
    Ok(dids)
}

/// The Violation results that validating `touched` and every node pointing at them gives, as
/// validate_perspective reports them: what a write to `touched` can have changed, read without
/// validating the rest of the perspective.
pub(super) fn violations(
    tx: &dyn ReadTx,
    perspective: &str,
    classes: &[Arc<Class>],
    shapes: &Shapes,
    touched: &[String],
) -> Result<Vec<Value>, ToolError> {
    let mut focus: Vec<String> = touched.to_vec();
    for node in touched {
        let into = LinkPattern {
            target: Some(node),
            ..LinkPattern::default()
        };
        focus.extend(tx.links(perspective, into, None, 0)?.into_iter().map(|l| l.source));
    }
    // Read lazily from the transaction: the shapes may look any number of steps away.
    let typer = LinkTyper::new(classes);
    let graph = TxGraph::after(tx, perspective, &typer);
    let mut seen: HashSet<&str> = HashSet::new();
    let only: Vec<(Term, Vec<usize>)> = focus
        .iter()
        .filter(|n| seen.insert(n.as_str()))
        .map(|n| (Term::node(n), shapes.roots.clone()))
        .collect();
    let report = validate_focus(&graph, shapes, &only);
    if let Some(e) = graph.failure() {
        return Err(e.into());
    }
    let report = report.to_json(&graph);
    let results = report["results"].as_array().cloned().unwrap_or_default();
    Ok(results
        .into_iter()
        .filter(|r| r["severity"] == "sh:Violation")
        .collect())
}

/// The violations in `after` that were not in `before`, as problems: the property (by its
/// name when a class of the perspective has that path), the message and the node.
pub(super) fn new_violations(before: &[Value], after: Vec<Value>, classes: &[Arc<Class>]) -> Vec<Problem> {
    after
        .into_iter()
        .filter(|r| !before.contains(r))
        .map(|r| {
            let path = r["path"].as_str().unwrap_or_default();
            let name = classes
                .iter()
                .flat_map(|c| c.visible_properties())
                .find(|p| p.path == path)
                .map_or_else(|| path.to_string(), |p| p.name.clone());
            let focus = r["focus_node"].as_str().unwrap_or_default();
            let mut problem = Problem::new(
                name,
                format!("{} (on {focus})", r["message"].as_str().unwrap_or_default()),
            );
            problem.received = r["value"].as_str().map(str::to_string);
            problem
        })
        .collect()
}
