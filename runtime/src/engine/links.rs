//! Perspectives and raw links: list_perspectives, add_perspective, add_link, query_links,
//! add_child, get_children, execute_commands (the one tool that runs actions unvalidated).

use serde_json::{Map, Value, json};
use shacl_mcp_compiler::literal;
use shacl_mcp_compiler::model::{Action, ActionKind, HAS_CHILD};

use super::Engine;
use super::actions::Runner;
use super::error::{Problem, ToolError};
use crate::clock::format_rfc3339_micros;
use crate::store::{Link, LinkPattern, NewLink, Perspective};

/// query_links and get_children pages hold at most this many links.
pub const MAX_LINKS_LIMIT: u64 = 1000;
const DEFAULT_LIMIT: u64 = 100;

/// A link as results show it: `{ source, predicate, target, author, timestamp }`.
pub fn link_json(link: &Link) -> Value {
    json!({
        "source": link.source,
        "predicate": link.predicate,
        "target": link.target,
        "author": link.author,
        "timestamp": format_rfc3339_micros(link.timestamp),
    })
}

impl Engine {
    /// `list_perspectives`: `{ perspectives: [{ uuid, name, neighbourhood, owner }] }`.
    pub fn list_perspectives(&self) -> Result<Value, ToolError> {
        let tx = self.store.read()?;
        let list: Vec<Value> = tx
            .perspectives()?
            .into_iter()
            .filter(|p| self.may_see(p))
            .map(|p| json!({ "uuid": p.uuid, "name": p.name, "neighbourhood": p.neighbourhood, "owner": p.owner }))
            .collect();
        Ok(json!({ "perspectives": list }))
    }

    /// `add_perspective`: `{ success, uuid, name }`.
    pub fn add_perspective(&self, name: &str) -> Result<Value, ToolError> {
        if name.trim().is_empty() {
            return Err(ToolError::invalid_arguments(
                "add_perspective",
                vec![Problem::new("name", "must not be empty")],
            ));
        }
        let perspective = Perspective {
            uuid: self.ids.mint_uuid(),
            name: name.to_string(),
            owner: self.did().to_string(),
            neighbourhood: None,
        };
        let mut tx = self.write()?;
        tx.add_perspective(&perspective)?;
        tx.commit()?;
        Ok(json!({ "success": true, "uuid": perspective.uuid, "name": perspective.name }))
    }

    /// `add_link`: `{ success, link }`.
    pub fn add_link(
        &self,
        perspective: &str,
        source: &str,
        predicate: &str,
        target: &str,
        local: bool,
    ) -> Result<Value, ToolError> {
        let mut problems = Vec::new();
        for (name, value) in [("source", source), ("predicate", predicate), ("target", target)] {
            if value.is_empty() {
                problems.push(Problem::new(name, "must not be empty"));
            }
        }
        if !problems.is_empty() {
            return Err(ToolError::invalid_arguments("add_link", problems));
        }
        let mut tx = self.write()?;
        self.require_perspective(&*tx, perspective)?;
        let link = tx.add_link(
            perspective,
            NewLink {
                source: source.into(),
                predicate: predicate.into(),
                target: target.into(),
                local,
            },
        )?;
        tx.commit()?;
        Ok(json!({ "success": true, "link": link_json(&link) }))
    }

    /// `query_links`: `{ count, total_count, links }`, ordered by (timestamp, seq).
    pub fn query_links(
        &self,
        perspective: &str,
        pattern: LinkPattern<'_>,
        limit: Option<u64>,
        offset: Option<u64>,
    ) -> Result<Value, ToolError> {
        let limit = page_limit("query_links", limit)?;
        let tx = self.store.read()?;
        self.require_perspective(&*tx, perspective)?;
        let total = tx.count_links(perspective, pattern)?;
        let links: Vec<Value> = tx
            .links(perspective, pattern, Some(limit), offset.unwrap_or(0))?
            .iter()
            .map(link_json)
            .collect();
        let mut answer = json!({ "count": links.len(), "total_count": total });
        answer["links"] = Value::Array(links); // moved: `json!` would serialize a copy
        Ok(answer)
    }

    /// `add_child`: `parent —ad4m://has_child→ child`.
    pub fn add_child(&self, perspective: &str, parent: &str, child: &str) -> Result<Value, ToolError> {
        let mut result = self.add_link(perspective, parent, HAS_CHILD, child, false)?;
        if let Some(o) = result.as_object_mut() {
            o.insert("success".into(), true.into());
        }
        Ok(result)
    }

    /// `get_children`: the most recent `limit` children, listed oldest first.
    pub fn get_children(&self, perspective: &str, parent: &str, limit: Option<u64>) -> Result<Value, ToolError> {
        let limit = page_limit("get_children", limit)?;
        let tx = self.store.read()?;
        self.require_perspective(&*tx, perspective)?;
        let pattern = LinkPattern {
            source: Some(parent),
            predicate: Some(HAS_CHILD),
            target: None,
        };
        let total = tx.count_links(perspective, pattern)?;
        let skip = total.saturating_sub(limit);
        let children: Vec<Value> = tx
            .links(perspective, pattern, Some(limit), skip)?
            .iter()
            .map(|l| json!({ "id": l.target, "timestamp": format_rfc3339_micros(l.timestamp), "author": l.author }))
            .collect();
        Ok(json!({ "parent": parent, "count": children.len(), "total_count": total, "children": children }))
    }

    /// `execute_commands`: actions run as written, unvalidated, in one transaction. `this` is
    /// `expression_address`; a target equal to a key of `parameters` is that value (a string as
    /// written, any other JSON scalar as its literal).
    pub fn execute_commands(
        &self,
        perspective: &str,
        expression_address: &str,
        commands: &[Value],
        parameters: Option<&Map<String, Value>>,
    ) -> Result<Value, ToolError> {
        let mut actions = Vec::new();
        let mut problems = Vec::new();
        for (i, command) in commands.iter().enumerate() {
            let field = |key: &str| command.get(key).and_then(Value::as_str);
            let kind = field("action").and_then(ActionKind::parse);
            match (kind, field("source"), field("predicate"), field("target")) {
                (Some(kind), Some(source), Some(predicate), Some(target)) => actions.push(Action {
                    kind,
                    source: source.to_string(),
                    predicate: predicate.to_string(),
                    target: target.to_string(),
                    local: command.get("local").and_then(Value::as_bool).unwrap_or(false),
                }),
                _ => problems.push(Problem::new(
                    format!("commands[{i}]"),
                    "expects { action: addLink|removeLink|setSingleTarget, source, predicate, target, local? }",
                )),
            }
        }
        if commands.is_empty() {
            problems.push(Problem::new("commands", "give at least one command"));
        }
        if !problems.is_empty() {
            return Err(ToolError::invalid_arguments("execute_commands", problems));
        }
        let parameter = |name: &str| -> Option<String> {
            match parameters?.get(name)? {
                Value::String(s) => Some(s.clone()),
                other => literal::from_json(other),
            }
        };
        let mut tx = self.write()?;
        self.require_perspective(&*tx, perspective)?;
        let mut run = Runner::new(&mut *tx, perspective, expression_address);
        for action in &actions {
            let mut action = action.clone();
            if let Some(value) = parameter(&action.source) {
                action.source = value;
            }
            let target = action.target.clone();
            run.run(&action, &|t| {
                parameter(t).or_else(|| (t == target).then(|| t.to_string()))
            })?;
        }
        let (added, removed) = (run.links_added, run.links_removed);
        tx.commit()?;
        Ok(json!({
            "executed": true,
            "perspective_id": perspective,
            "expression_address": expression_address,
            "links_added": added,
            "links_removed": removed,
        }))
    }
}

fn page_limit(tool: &str, limit: Option<u64>) -> Result<u64, ToolError> {
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    if (1..=MAX_LINKS_LIMIT).contains(&limit) {
        Ok(limit)
    } else {
        let problem = Problem::new(
            "limit",
            format!("out of range: must be between 1 and {MAX_LINKS_LIMIT}"),
        )
        .received(&json!(limit));
        Err(ToolError::invalid_arguments(tool, vec![problem]))
    }
}
