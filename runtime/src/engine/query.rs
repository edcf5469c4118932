//! instance_query: filters (docs/data-model.md, Filters), paging and order.
//!
//! Candidates come from the store: the class marker, `parent`, and what [`pushdown`] derives
//! from the filter (value keys of equality, any-of and ranges, and ids), driven from the most
//! selective. When the pushdown is exact (or there is no filter) the candidates are the matches,
//! and the store pages them itself ([`ReadTx::source_page`]). Otherwise every filter is evaluated
//! on decoded, typed values (a value has many spellings, and the last link of a scalar wins), so
//! the narrowing can never change the answer. The values a filter needs are read for the
//! candidates alone, a property at a time (or over the whole perspective when nothing narrowed
//! many candidates: [`bulk_values`]); only the instances of the page are read whole, and
//! `total_count` counts every match.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde_json::{Map, Value, json};
use shacl_mcp_compiler::model::{Class, Property};

use super::Engine;
use super::error::{Problem, ToolError};
use super::object::{instance_object, links_of, readable, values_of};
use super::validate::same_value;
use super::{pushdown, values};
use crate::store::{Link, LinkPattern, Order, ReadTx, SourceQuery, StoreError};
use shacl_mcp_compiler::literal::lang_value;

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
pub(super) enum Filter {
    All(Vec<Filter>),
    Any(Vec<Filter>),
    Not(Box<Filter>),
    /// `None` is the instance IRI (`id`).
    Cond(Option<Box<Property>>, Op),
}

#[derive(Clone, Debug)]
pub(super) enum Op {
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
            child_of: args.parent.clone(),
            ..SourceQuery::default()
        };
        // Without pushdown (the differential tests' naive side) every candidate is evaluated.
        let exact = match (&filter, self.pushdown) {
            (None, pushdown) => pushdown,
            (Some(f), true) => pushdown::narrow(f, &mut query),
            (Some(_), false) => false,
        };
        let (items, total) = if exact {
            // The store's sources are the matches: it pages them through its indexes.
            tx.source_page(perspective, &query, args.order, offset, limit)?
        } else {
            evaluated_page(
                &*tx,
                perspective,
                &class,
                filter.as_ref(),
                &query,
                args.order,
                (offset, limit),
            )?
        };
        // Only the instances of the page are read whole.
        let mut links = links_by_source(tx.links_from(perspective, &items, &[])?);
        let instances: Vec<Value> = items
            .iter()
            .map(|node| instance_object(&class, node, &links.remove(node).unwrap_or_default()))
            .collect();
        // The page moves into the answer: `json!` would serialize a copy of it.
        let mut answer = json!({
            "class_name": class.name,
            "count": instances.len(),
            "total_count": total,
        });
        answer["instances"] = Value::Array(instances);
        Ok(answer)
    }
}

/// A page of the matches of `filter` and how many there are in all, from the candidates of
/// `query` evaluated one by one: for filters the store cannot answer exactly.
fn evaluated_page(
    tx: &dyn ReadTx,
    perspective: &str,
    class: &Class,
    filter: Option<&Filter>,
    query: &SourceQuery,
    order: Order,
    (offset, limit): (u64, u64),
) -> Result<(Vec<String>, u64), StoreError> {
    let candidates = tx.sources(perspective, query, order)?;
    let narrowed = !query.keyed.is_empty() || query.among.is_some();
    let mut page = Page::new(offset, limit);
    match filter {
        // Every candidate carries the marker (and the parent edge): each one is an answer.
        None => candidates.iter().for_each(|node| page.push(node)),
        Some(f) => {
            // Narrowed candidates are usually few; many are cheaper read over the perspective.
            let few = query.child_of.is_some() || (narrowed && candidates.len() < NARROWED_MANY);
            evaluate(tx, perspective, class, f, &candidates, few, &mut page)?
        }
    }
    let items = page.items.iter().map(|node| node.to_string()).collect();
    Ok((items, page.total))
}

/// The instances of `class` that `filter` matches, oldest first: instance_query's semantics
/// without paging, for the flows' guards (which count what a query would list).
pub(crate) fn matching_instances(
    tx: &dyn ReadTx,
    perspective: &str,
    class: &Class,
    filter_map: &Map<String, Value>,
) -> Result<Vec<String>, ToolError> {
    let filter = parse(class, filter_map)?;
    // A guard on one instance (`"id": "$flow.subject"`) reads that instance, not the class.
    let among: Option<Vec<String>> = match filter_map.get("id") {
        Some(Value::String(id)) => Some(vec![id.clone()]),
        Some(Value::Array(ids)) => ids.iter().map(|id| id.as_str().map(str::to_string)).collect(),
        _ => None,
    };
    let query = SourceQuery {
        all_of: class
            .marker
            .iter()
            .map(|m| (m.predicate.clone(), m.target.clone()))
            .collect(),
        among,
        ..SourceQuery::default()
    };
    let mut found = Vec::new();
    for node in tx.sources(perspective, &query, Order::OldestFirst)? {
        let values = if referenced(&filter).is_empty() {
            HashMap::new()
        } else {
            values_of(class, &links_of(tx, perspective, &node)?)
        };
        if matches(&filter, &node, &|name| values.get(name)) {
            found.push(node);
        }
    }
    Ok(found)
}

/// Evaluates `f` on every candidate, in order, and pages the matches. The values `f` needs are
/// read for the candidates alone (`few`: narrowed by the store or under a parent), a property at
/// a time over the whole perspective when the candidates are many ([`bulk_values`]), or not at
/// all for conditions on `id` alone.
fn evaluate<'c>(
    tx: &dyn ReadTx,
    perspective: &str,
    class: &Class,
    f: &Filter,
    candidates: &'c [String],
    few: bool,
    page: &mut Page<'c>,
) -> Result<(), StoreError> {
    let needed = referenced(f);
    if needed.is_empty() {
        for node in candidates {
            if matches(f, node, &|_| None) {
                page.push(node);
            }
        }
    } else if candidates.len() >= BULK_CANDIDATES && !few {
        let values = bulk_values(tx, perspective, &needed, candidates, BULK_CHUNK)?;
        for (i, node) in candidates.iter().enumerate() {
            let value_of = |name: &str| {
                let p = needed.iter().position(|p| p.name == name)?;
                values[p][i].as_ref()
            };
            if matches(f, node, &value_of) {
                page.push(node);
            }
        }
    } else {
        let paths: Vec<String> = needed.iter().map(|p| p.path.clone()).collect();
        for chunk in candidates.chunks(CANDIDATES_PER_READ) {
            let mut links = links_by_source(tx.links_from(perspective, chunk, &paths)?);
            for node in chunk {
                let values = values_of(class, &links.remove(node.as_str()).unwrap_or_default());
                if matches(f, node, &|name| values.get(name)) {
                    page.push(node);
                }
            }
        }
    }
    Ok(())
}

/// From this many narrowed candidates on (with no parent), their values are read over the whole
/// perspective like those of candidates nothing narrowed.
const NARROWED_MANY: usize = 20_000;

/// Candidates whose values one `links_from` reads: the links of a chunk are held at once.
const CANDIDATES_PER_READ: usize = 2_000;

/// Links grouped by their source, each group in the order given.
fn links_by_source(links: Vec<Link>) -> HashMap<String, Vec<Link>> {
    let mut by_source: HashMap<String, Vec<Link>> = HashMap::new();
    for link in links {
        by_source.entry(link.source.clone()).or_default().push(link);
    }
    by_source
}

/// The answers of one page, and how many there are in all.
struct Page<'c> {
    offset: u64,
    limit: u64,
    total: u64,
    /// Each answer of the page.
    items: Vec<&'c str>,
}

impl<'c> Page<'c> {
    fn new(offset: u64, limit: u64) -> Self {
        Page {
            offset,
            limit,
            total: 0,
            items: Vec::new(),
        }
    }

    fn push(&mut self, node: &'c str) {
        if self.total >= self.offset && (self.items.len() as u64) < self.limit {
            self.items.push(node);
        }
        self.total += 1;
    }
}

/// From this many candidates on (with nothing to narrow them), the values a filter needs are
/// read a property at a time over the whole perspective, one query per [`BULK_CHUNK`] links,
/// rather than with one query per candidate.
const BULK_CANDIDATES: usize = 256;
const BULK_CHUNK: u64 = 200_000;

/// The properties a filter reads, once each, in order of first mention.
fn referenced(f: &Filter) -> Vec<&Property> {
    fn walk<'f>(f: &'f Filter, out: &mut Vec<&'f Property>) {
        match f {
            Filter::All(parts) | Filter::Any(parts) => parts.iter().for_each(|p| walk(p, out)),
            Filter::Not(inner) => walk(inner, out),
            Filter::Cond(Some(p), _) => {
                if !out.iter().any(|seen| seen.name == p.name) {
                    out.push(p);
                }
            }
            Filter::Cond(None, _) => {}
        }
    }
    let mut out = Vec::new();
    walk(f, &mut out);
    out
}

/// The values of `properties` of every candidate, as [`values_of`] reads them (a scalar's last
/// readable link, a collection's readable items in link order), from the links of each property's
/// path over the perspective, in (timestamp, seq) order. `values[p][c]` is property `p` of
/// candidate `c`. The links are read `chunk` at a time.
fn bulk_values(
    tx: &dyn ReadTx,
    perspective: &str,
    properties: &[&Property],
    candidates: &[String],
    chunk: u64,
) -> Result<Vec<Vec<Option<Value>>>, StoreError> {
    let index: HashMap<&str, usize> = candidates.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    let mut all = Vec::with_capacity(properties.len());
    for p in properties {
        let empty = p.collection.then(|| Value::Array(Vec::new()));
        let mut values = vec![empty; candidates.len()];
        let pattern = LinkPattern {
            source: None,
            predicate: Some(&p.path),
            target: None,
        };
        let mut offset = 0;
        loop {
            let links = tx.links(perspective, pattern, Some(chunk), offset)?;
            for link in &links {
                let Some(&i) = index.get(link.source.as_str()) else {
                    continue;
                };
                let Some(value) = values::read(p, &link.target) else {
                    continue;
                };
                match &mut values[i] {
                    Some(Value::Array(items)) if p.collection => items.push(value),
                    slot => *slot = Some(value),
                }
            }
            if (links.len() as u64) < chunk {
                break;
            }
            offset += chunk;
        }
        all.push(values);
    }
    Ok(all)
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
        // A language-tagged string's value object is a value, not operators.
        Value::Object(_) if lang_value(value).is_some() => vec![Op::Eq(value.clone())],
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

pub(super) fn matches<'v>(f: &Filter, node: &str, value_of: &dyn Fn(&str) -> Option<&'v Value>) -> bool {
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
                Op::Ne(v) => !items.iter().any(|item| equal(item, v)),
                _ => items.iter().any(|item| holds(op, item)),
            }
        }
    }
}

fn holds(op: &Op, item: &Value) -> bool {
    match op {
        Op::Eq(v) => equal(item, v),
        Op::AnyOf(vs) => vs.iter().any(|v| equal(item, v)),
        Op::Cmp(want, or_equal, v) => {
            compare(item, v).is_some_and(|o| o == *want || (*or_equal && o == Ordering::Equal))
        }
        Op::Contains(needle) => match lang_value(item) {
            Some((text, _)) => text.contains(needle.as_str()),
            None => text(item).contains(needle.as_str()),
        },
        Op::Ne(v) => !equal(item, v),
    }
}

/// Equality of a filter: by value ([`same_value`]); a language-tagged string equals a string of
/// its text (in any language), and a value object of its text with its tag compared without
/// regard to case, as RDF compares tags.
pub(super) fn equal(item: &Value, v: &Value) -> bool {
    match lang_value(item) {
        Some((text, language)) => match v {
            Value::String(s) => s == text,
            other => lang_value(other).is_some_and(|(t, l)| t == text && l.eq_ignore_ascii_case(language)),
        },
        None => same_value(item, v),
    }
}

/// Numbers numerically; strings (and the datetime family) lexically.
pub(super) fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64()?.partial_cmp(&y.as_f64()?),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::clock::FixedClock;
    use crate::engine::FixedDna;
    use crate::store::sqlite::SqliteStore;
    use crate::store::{LinkStore, NewLink, Perspective};

    /// Values read a property at a time, whatever the chunk, are those of [`values_of`].
    #[test]
    fn bulk_values_are_the_values_of_each_node() {
        let dna = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dna/tasks.json");
        let (fixed, _) = FixedDna::load(&[dna]).unwrap();
        let task = fixed.classes()[0].clone();
        let store = SqliteStore::open_in_memory(Arc::new(FixedClock::at("2026-12-24T10:00:00Z").unwrap())).unwrap();
        let mut tx = store.write().unwrap();
        let p = Perspective {
            uuid: "p".into(),
            name: "p".into(),
            owner: store.did().into(),
            neighbourhood: None,
        };
        tx.add_perspective(&p).unwrap();
        let targets = [
            ("todo://status", "literal:string:open"),
            ("todo://status", "literal:string:done"),
            ("todo://status", "literal://string:open"),
            ("todo://priority", "literal:number:2"),
            ("todo://priority", "literal:string:high"),
            ("todo://priority", "literal:3^^xsd:integer"),
            ("todo://tag", "a"),
            ("todo://tag", "literal:string:b"),
            ("todo://tag", "literal:number:1"),
        ];
        let nodes: Vec<String> = (0..7).map(|i| format!("ad4m://n{i}")).collect();
        for round in 0..3 {
            for (i, node) in nodes.iter().enumerate() {
                for (j, (predicate, target)) in targets.iter().enumerate() {
                    if (i + j + round) % 3 == 0 {
                        let link = NewLink {
                            source: node.clone(),
                            predicate: predicate.to_string(),
                            target: target.to_string(),
                            local: false,
                        };
                        tx.add_link("p", link).unwrap();
                    }
                }
            }
        }
        tx.commit().unwrap();
        let tx = store.read().unwrap();
        let properties: Vec<&Property> = ["status", "priority", "tags", "title"]
            .iter()
            .map(|name| task.properties.iter().find(|p| p.name == *name).unwrap())
            .collect();
        let expected: Vec<Vec<Option<Value>>> = properties
            .iter()
            .map(|p| {
                nodes
                    .iter()
                    .map(|node| values_of(&task, &links_of(&*tx, "p", node).unwrap()).remove(&p.name))
                    .collect()
            })
            .collect();
        for chunk in [1, 2, 3, 5, 1000] {
            let got = bulk_values(&*tx, "p", &properties, &nodes, chunk).unwrap();
            assert_eq!(got, expected, "chunk {chunk}");
        }
    }
}
