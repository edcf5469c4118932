//! instance_query: filters (data-model.md, Filters), paging and order.
//!
//! Candidates come from the store (the class marker, `parent`, and equality on references
//! pushed down exactly); every filter is then evaluated on decoded, typed values, so the
//! push-down can narrow the candidates but never change the answer.

use std::cmp::Ordering;

use serde_json::{Map, Value, json};
use shacl_mcp_compiler::model::{Class, Property, ValueType};

use super::Engine;
use super::error::{Problem, ToolError};
use super::object::{instance_object, links_of, readable, values_of};
use super::validate::same_value;
use crate::store::{Order, SourceQuery};

/// Largest page of instance_query and the per-class query and list tools.
pub const MAX_LIMIT: u64 = 500;
pub const DEFAULT_LIMIT: u64 = 100;

/// The optional arguments of instance_query.
#[derive(Clone, Debug, Default)]
pub struct QueryArgs {
    pub filter: Option<Map<String, Value>>,
    pub parent: Option<String>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
    pub order: Order,
}

#[derive(Debug)]
enum Filter {
    All(Vec<Filter>),
    Any(Vec<Filter>),
    Not(Box<Filter>),
    /// `None` is the instance IRI (`id`).
    Cond(Option<Box<Property>>, Op),
}

#[derive(Debug)]
enum Op {
    Eq(Value),
    AnyOf(Vec<Value>),
    Cmp(Ordering, bool, Value),
    Contains(String),
    Ne(Value),
}

impl Engine {
    /// `instance_query`: `{ class_name, count, total_count, instances }`.
    pub fn instance_query(&self, perspective: &str, class_name: &str, args: &QueryArgs) -> Result<Value, ToolError> {
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            let problem = Problem::new("limit", format!("out of range: must be between 1 and {MAX_LIMIT}"))
                .received(&json!(limit));
            return Err(ToolError::invalid_arguments("instance_query", vec![problem]));
        }
        let offset = args.offset.unwrap_or(0);
        let tx = self.store.read()?;
        self.require_perspective(&*tx, perspective)?;
        let class = self.class(&*tx, perspective, class_name)?;
        let filter = match &args.filter {
            Some(f) => Some(parse(&class, f)?),
            None => None,
        };
        let mut query = SourceQuery {
            all_of: class
                .marker
                .iter()
                .map(|m| (m.predicate.clone(), m.target.clone()))
                .collect(),
            any_of: Vec::new(),
            child_of: args.parent.clone(),
        };
        if let Some(f) = &filter {
            push_down(f, &mut query.any_of);
        }
        let candidates = tx.sources(perspective, &query, args.order)?;
        let mut total = 0u64;
        let mut instances = Vec::new();
        for node in &candidates {
            let links = links_of(&*tx, perspective, node)?;
            if let Some(f) = &filter {
                let values = values_of(&class, &links);
                if !matches(f, node, &|name| values.get(name)) {
                    continue;
                }
            }
            if total >= offset && (instances.len() as u64) < limit {
                instances.push(instance_object(&class, node, &links));
            }
            total += 1;
        }
        Ok(json!({
            "class_name": class.name,
            "count": instances.len(),
            "total_count": total,
            "instances": instances,
        }))
    }
}

fn parse(class: &Class, filter: &Map<String, Value>) -> Result<Filter, ToolError> {
    let mut all = Vec::new();
    for (key, value) in filter {
        match key.as_str() {
            "AND" | "OR" => {
                let Value::Array(items) = value else {
                    return Err(bad(format!("{key} takes an array of filters")));
                };
                let parts = items
                    .iter()
                    .map(|item| match item {
                        Value::Object(o) => parse(class, o),
                        _ => Err(bad(format!("every item of {key} is a filter object"))),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                all.push(if key == "AND" {
                    Filter::All(parts)
                } else {
                    Filter::Any(parts)
                });
            }
            "NOT" => {
                let Value::Object(o) = value else {
                    return Err(bad("NOT takes a filter object".to_string()));
                };
                all.push(Filter::Not(Box::new(parse(class, o)?)));
            }
            "id" => all.push(condition(None, value)?),
            name => {
                let Some(p) = readable(class).find(|p| p.name == name) else {
                    let names: Vec<&str> = readable(class).map(|p| p.name.as_str()).collect();
                    return Err(ToolError::refused(
                        format!("Unknown property '{name}' in filter for class '{}'", class.name),
                        format!(
                            "Filter on id or on one of: {}. Call describe_perspective for their types.",
                            names.join(", ")
                        ),
                    ));
                };
                all.push(condition(Some(Box::new(p.clone())), value)?);
            }
        }
    }
    Ok(Filter::All(all))
}

fn condition(p: Option<Box<Property>>, value: &Value) -> Result<Filter, ToolError> {
    let ops: Vec<Op> = match value {
        Value::Array(items) => vec![Op::AnyOf(items.clone())],
        Value::Object(o) => o
            .iter()
            .map(|(op, v)| {
                Ok(match op.as_str() {
                    "gt" => Op::Cmp(Ordering::Greater, false, v.clone()),
                    "gte" => Op::Cmp(Ordering::Greater, true, v.clone()),
                    "lt" => Op::Cmp(Ordering::Less, false, v.clone()),
                    "lte" => Op::Cmp(Ordering::Less, true, v.clone()),
                    "contains" => Op::Contains(text(v)),
                    "not" => Op::Ne(v.clone()),
                    other => {
                        return Err(bad(format!(
                            "unknown operator '{other}': use gt, gte, lt, lte, contains or not"
                        )));
                    }
                })
            })
            .collect::<Result<_, _>>()?,
        v => vec![Op::Eq(v.clone())],
    };
    Ok(Filter::All(
        ops.into_iter().map(|op| Filter::Cond(p.clone(), op)).collect(),
    ))
}

fn bad(text: String) -> ToolError {
    ToolError::invalid_arguments("instance_query", vec![Problem::new("filter", text)])
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Equality on references at the top level narrows the candidates in the store: a reference
/// is stored as its IRI, so the match is exact.
fn push_down(f: &Filter, any_of: &mut Vec<Vec<(String, String)>>) {
    match f {
        Filter::All(parts) => parts.iter().for_each(|p| push_down(p, any_of)),
        Filter::Cond(Some(p), op) if p.value_type == ValueType::Reference => {
            let wanted: Vec<&Value> = match op {
                Op::Eq(v) => vec![v],
                Op::AnyOf(vs) => vs.iter().collect(),
                _ => return,
            };
            let group = wanted
                .iter()
                .filter_map(|v| v.as_str())
                .map(|iri| (p.path.clone(), iri.to_string()))
                .collect::<Vec<_>>();
            if group.len() == wanted.len() {
                any_of.push(group);
            }
        }
        _ => {}
    }
}

fn matches<'v>(f: &Filter, node: &str, value_of: &dyn Fn(&str) -> Option<&'v Value>) -> bool {
    match f {
        Filter::All(parts) => parts.iter().all(|p| matches(p, node, value_of)),
        Filter::Any(parts) => parts.iter().any(|p| matches(p, node, value_of)),
        Filter::Not(inner) => !matches(inner, node, value_of),
        Filter::Cond(p, op) => {
            let id = Value::from(node);
            let items: Vec<&Value> = match p {
                None => vec![&id],
                Some(p) => match value_of(&p.name) {
                    Some(Value::Array(items)) if p.collection => items.iter().collect(),
                    Some(v) => vec![v],
                    None => vec![],
                },
            };
            match op {
                // `not` holds when no item equals the value (an absent value included).
                Op::Ne(v) => !items.iter().any(|item| same_value(item, v)),
                _ => items.iter().any(|item| holds(op, item)),
            }
        }
    }
}

fn holds(op: &Op, item: &Value) -> bool {
    match op {
        Op::Eq(v) => same_value(item, v),
        Op::AnyOf(vs) => vs.iter().any(|v| same_value(item, v)),
        Op::Cmp(want, or_equal, v) => {
            compare(item, v).is_some_and(|o| o == *want || (*or_equal && o == Ordering::Equal))
        }
        Op::Contains(needle) => text(item).contains(needle.as_str()),
        Op::Ne(v) => !same_value(item, v),
    }
}

/// Numbers numerically; strings (and the datetime family) lexically.
fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64()?.partial_cmp(&y.as_f64()?),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        _ => None,
    }
}
