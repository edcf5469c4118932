//! Reading instances: what makes a node an instance, and the instance object of
//! docs/tools.md (`{ id, baseExpression, <property>: value, …, createdAt, updatedAt, author,
//! timestamp }`).

use std::collections::HashMap;

use serde_json::{Map, Value};
use shacl_mcp_compiler::model::{Class, Property};

use super::values;
use crate::clock::format_rfc3339_micros;
use crate::store::{Link, LinkPattern, ReadTx, StoreError};

/// A node carries its class's whole marker.
pub(crate) fn is_instance(tx: &dyn ReadTx, perspective: &str, class: &Class, node: &str) -> Result<bool, StoreError> {
    for m in &class.marker {
        let pattern = LinkPattern {
            source: Some(node),
            predicate: Some(&m.predicate),
            target: Some(&m.target),
        };
        if tx.count_links(perspective, pattern)? == 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// [`is_instance`], or for a class marked `rdf:type <C>` alone, a SHACL instance of `C`
/// (`rdf:type/rdfs:subClassOf*`, the `rdfs:subClassOf` links read from the perspective), as
/// `sh:class` reads instances. At most [`SUBCLASS_VISITS`] classes are looked at.
pub(crate) fn is_shacl_instance(
    tx: &dyn ReadTx,
    perspective: &str,
    class: &Class,
    node: &str,
) -> Result<bool, StoreError> {
    use shacl_mcp_compiler::shacl::vocab::{RDF_TYPE, RDFS_SUB_CLASS_OF};
    if is_instance(tx, perspective, class, node)? {
        return Ok(true);
    }
    let [marker] = class.marker.as_slice() else {
        return Ok(false);
    };
    if marker.predicate != RDF_TYPE {
        return Ok(false);
    }
    let objects = |source: &str, predicate: &str| -> Result<Vec<String>, StoreError> {
        let pattern = LinkPattern {
            source: Some(source),
            predicate: Some(predicate),
            target: None,
        };
        Ok(tx
            .links(perspective, pattern, None, 0)?
            .into_iter()
            .map(|l| l.target)
            .collect())
    };
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut next = objects(node, RDF_TYPE)?;
    while let Some(c) = next.pop() {
        if c == marker.target {
            return Ok(true);
        }
        if seen.len() >= SUBCLASS_VISITS || !seen.insert(c.clone()) {
            continue;
        }
        next.extend(objects(&c, RDFS_SUB_CLASS_OF)?);
    }
    Ok(false)
}

/// How many classes [`is_shacl_instance`] climbs through at most.
const SUBCLASS_VISITS: usize = 256;

/// [`is_instance`] from the links out of the node (all of them, as [`links_of`] reads them).
pub(crate) fn carries_marker(class: &Class, links: &[Link]) -> bool {
    class
        .marker
        .iter()
        .all(|m| links.iter().any(|l| l.predicate == m.predicate && l.target == m.target))
}

/// Every link out of a node, ordered by (timestamp, seq).
pub(crate) fn links_of(tx: &dyn ReadTx, perspective: &str, node: &str) -> Result<Vec<Link>, StoreError> {
    let pattern = LinkPattern {
        source: Some(node),
        ..LinkPattern::default()
    };
    tx.links(perspective, pattern, None, 0)
}

/// A node's values by property name, decoded and typed: scalars by last write wins,
/// collections in link order. Absent optional scalars are missing; empty collections `[]`.
pub(crate) fn values_of(class: &Class, links: &[Link]) -> HashMap<String, Value> {
    let mut by_predicate: HashMap<&str, Vec<&Link>> = HashMap::new();
    for link in links {
        by_predicate.entry(link.predicate.as_str()).or_default().push(link);
    }
    let mut values = HashMap::new();
    for p in readable(class) {
        let links = by_predicate.get(p.path.as_str()).map(Vec::as_slice).unwrap_or_default();
        if p.collection {
            let items: Vec<Value> = links.iter().filter_map(|l| values::read(p, &l.target)).collect();
            values.insert(p.name.clone(), Value::Array(items));
        } else if let Some(v) = links.iter().rev().find_map(|l| values::read(p, &l.target)) {
            // Links come ordered by (timestamp, seq): the last readable one wins.
            values.insert(p.name.clone(), v);
        }
    }
    values
}

/// The properties an instance object shows: every visible one but computed ones (getters are
/// not evaluated in this release).
pub(crate) fn readable(class: &Class) -> impl Iterator<Item = &Property> {
    class.visible_properties().filter(|p| p.getter.is_none())
}

/// The instance object, keys in the order docs/data-model.md fixes (Determinism).
pub(crate) fn instance_object(class: &Class, node: &str, links: &[Link]) -> Value {
    let mut values = values_of(class, links);
    let mut o = Map::new();
    o.insert("id".into(), node.into());
    o.insert("baseExpression".into(), node.into());
    for p in readable(class) {
        if let Some(v) = values.remove(&p.name) {
            o.insert(p.name.clone(), v);
        }
    }
    let first = links.iter().min_by_key(|l| (l.timestamp, l.seq));
    let last = links.iter().max_by_key(|l| (l.timestamp, l.seq));
    let time = |l: Option<&Link>| l.map(|l| format_rfc3339_micros(l.timestamp)).unwrap_or_default();
    let created = time(first);
    let updated = match (first, last) {
        (Some(f), Some(l)) if f.timestamp == l.timestamp => created.clone(),
        _ => time(last),
    };
    o.insert("createdAt".into(), created.clone().into());
    o.insert("updatedAt".into(), updated.into());
    o.insert(
        "author".into(),
        first.map(|l| l.author.clone()).unwrap_or_default().into(),
    );
    o.insert("timestamp".into(), created.into());
    Value::Object(o)
}
