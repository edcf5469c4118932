//! `forget`: erasure for good, and the attestation of it (docs/tools.md, "Erasure attestation").
//!
//! A record (a node) in one perspective is every link out of it and into it there: its values,
//! collection memberships of other instances that hold it, `ad4m://has_child` edges to and from
//! it. Forgetting erases those links, their rows of the sources index and their hashes in the
//! signed transaction lists (see the store's `erase` module for how signatures survive that), all
//! in one transaction; the store deletes securely (freed content is overwritten with zeros) and
//! after the commit the write-ahead log is checkpointed and truncated. The engine keeps no cache
//! of records; the parsed models of a perspective erased whole are dropped.
//!
//! The answer is `{ erased: { links, instances, index_entries, hashes, stale_hashes, transactions,
//! transactions_redacted, models, perspectives }, remaining: [ { what, why } ], complete }`:
//! `remaining` lists what the server knows it left, namely links in other perspectives that point
//! at the record or come from it (or copies of the forgotten link there), and the write-ahead log
//! when readers kept it from being truncated. `complete` is false whenever `remaining` is not empty.
//!
//! Not claimed, because the server cannot know of it or reach it, and so never listed:
//! - copies outside this database file and its log: backups and replicas, files an operator
//!   copied, tool results that clients and agents already read (and whatever they did with them);
//! - what the file system and the disk keep of overwritten or truncated storage (journals,
//!   blocks freed by the truncation, flash remapping, swap);
//! - hashes of the record's links that were removed before the forget (earlier values replaced by
//!   an update) when their transaction holds none of the links erased now: a hash in a signed list
//!   does not say whose it is. Those in the transactions touched now are taken out (`stale_hashes`);
//! - the record's IRI or values quoted inside literals of other links;
//! - for a user of multi-user mode, links in perspectives of other users: they are neither counted
//!   nor named, or forget would tell one user what another user's perspectives hold;
//! - content a release that did not delete securely left in free pages before this one opened
//!   the database.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::Engine;
use super::error::{Problem, ToolError};
use super::object::is_instance;
use crate::store::{Erased, LinkPattern, Perspective, ReadTx, SourceQuery, StoreError, WalState};

/// What to forget in a perspective.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ForgetTarget {
    /// A node or instance: every link out of it and into it.
    Record(String),
    /// Every copy of one link.
    Link {
        source: String,
        predicate: String,
        target: String,
    },
    /// Every link, model and index row of the perspective, and the perspective itself.
    WholePerspective,
}

const ONE_OF: &str = "base_uri, link or whole_perspective: true";
const OUTSIDE: &str = "forget never reaches outside the perspective it is given";

impl ForgetTarget {
    /// The target of forget's arguments: exactly one of `base_uri`, `link` or
    /// `whole_perspective: true`; every problem at once in the tool's envelope.
    pub fn from_arguments(args: &Map<String, Value>) -> Result<ForgetTarget, ToolError> {
        let mut given: Vec<&str> = Vec::new();
        let mut problems = Vec::new();
        let mut found = None;
        match args.get("base_uri") {
            None | Some(Value::Null) => {}
            Some(Value::String(node)) => {
                given.push("base_uri");
                if node.is_empty() {
                    problems.push(Problem::new("base_uri", "must not be empty"));
                } else {
                    found = Some(ForgetTarget::Record(node.clone()));
                }
            }
            Some(other) => {
                given.push("base_uri");
                problems.push(Problem::new("base_uri", "expects a string").received(other));
            }
        }
        match args.get("link") {
            None | Some(Value::Null) => {}
            Some(Value::Object(link)) => {
                given.push("link");
                let mut part = |name: &str| match link.get(name) {
                    Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
                    Some(Value::String(_)) => {
                        problems.push(Problem::new(format!("link.{name}"), "must not be empty"));
                        None
                    }
                    None => {
                        problems.push(Problem::new(format!("link.{name}"), "missing required argument"));
                        None
                    }
                    Some(other) => {
                        problems.push(Problem::new(format!("link.{name}"), "expects a string").received(other));
                        None
                    }
                };
                if let (Some(source), Some(predicate), Some(target)) =
                    (part("source"), part("predicate"), part("target"))
                {
                    found = Some(ForgetTarget::Link {
                        source,
                        predicate,
                        target,
                    });
                }
            }
            Some(other) => {
                given.push("link");
                problems.push(Problem::new("link", "expects an object { source, predicate, target }").received(other));
            }
        }
        match args.get("whole_perspective") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => {
                given.push("whole_perspective");
                found = Some(ForgetTarget::WholePerspective);
            }
            Some(other) => {
                given.push("whole_perspective");
                problems.push(Problem::new("whole_perspective", "expects true or false").received(other));
            }
        }
        // The rule of the three comes first in the envelope.
        let mut rule = Vec::new();
        match given.as_slice() {
            [] => rule.push(Problem::new(
                "base_uri",
                format!("missing required argument: give exactly one of {ONE_OF}"),
            )),
            [first, rest @ ..] => {
                for name in rest {
                    rule.push(Problem::new(
                        *name,
                        format!("give exactly one of {ONE_OF}: {first} is given too"),
                    ));
                }
            }
        }
        rule.append(&mut problems);
        match found {
            Some(target) if rule.is_empty() => Ok(target),
            _ => Err(ToolError::invalid_arguments("forget", rule)),
        }
    }
}

impl Engine {
    /// `forget`: erases the target in the perspective in one transaction, overwrites what it
    /// freed, and answers the attestation (module docs).
    pub fn forget(&self, perspective: &str, target: ForgetTarget) -> Result<Value, ToolError> {
        // The node's own transaction whoever asks: it writes no link, and the redactions of
        // signed lists are the node's to sign (the store accepts no other redactor).
        let mut tx = self.store.write()?;
        self.require_perspective(&*tx, perspective)?;
        let mut remaining = Vec::new();
        let (erased, instances) = match &target {
            ForgetTarget::Record(node) => {
                let instances = u64::from(self.is_instance_of_any(&*tx, perspective, node)?);
                let out = LinkPattern {
                    source: Some(node),
                    ..LinkPattern::default()
                };
                let into = LinkPattern {
                    target: Some(node),
                    ..LinkPattern::default()
                };
                let from = self.visible_elsewhere(&*tx, perspective, out)?;
                let to = self.visible_elsewhere(&*tx, perspective, into)?;
                remaining.extend(record_elsewhere(&from, &to));
                (tx.erase_links(perspective, &[out, into])?, instances)
            }
            ForgetTarget::Link {
                source,
                predicate,
                target,
            } => {
                let link = LinkPattern {
                    source: Some(source),
                    predicate: Some(predicate),
                    target: Some(target),
                };
                for (p, n) in self.visible_elsewhere(&*tx, perspective, link)? {
                    let copies = if n == 1 { "copy" } else { "copies" };
                    remaining.push(entry(
                        format!("{n} {copies} of this link in perspective {}", p.uuid),
                        OUTSIDE.to_string(),
                    ));
                }
                (tx.erase_links(perspective, &[link])?, 0)
            }
            ForgetTarget::WholePerspective => {
                let instances = self.instance_count(&*tx, perspective)?;
                (tx.erase_perspective(perspective)?, instances)
            }
        };
        let wal = tx.commit_erasure()?;
        if target == ForgetTarget::WholePerspective {
            self.invalidate_models(perspective);
        }
        match wal {
            WalState::NotTruncated { reason } => remaining.push(entry(
                "pages written before the erasure in the database's write-ahead log (its -wal file)".to_string(),
                format!(
                    "the log could not be truncated ({reason}); those pages are overwritten as the log is reused, \
                     and the next forget tries again"
                ),
            )),
            WalState::ServerManaged => remaining.push(entry(
                "the database server's write-ahead log, its replicas and backups, and the deleted rows' old versions"
                    .to_string(),
                "kept by the PostgreSQL server as its operator configured it: old row versions until VACUUM reuses \
                 their space, the log and backups for as long as they are retained"
                    .to_string(),
            )),
            WalState::Truncated | WalState::NoWal => {}
        }
        Ok(attestation(&erased, instances, remaining))
    }

    /// Other perspectives the principal may see with links matching `pattern`, and how many.
    fn visible_elsewhere(
        &self,
        tx: &dyn ReadTx,
        perspective: &str,
        pattern: LinkPattern<'_>,
    ) -> Result<Vec<(Perspective, u64)>, StoreError> {
        let mut found = tx.count_links_elsewhere(perspective, pattern)?;
        found.retain(|(p, _)| self.may_see(p));
        Ok(found)
    }

    /// Whether `node` is an instance of any class of the perspective.
    fn is_instance_of_any(&self, tx: &dyn ReadTx, perspective: &str, node: &str) -> Result<bool, ToolError> {
        for class in self.classes(tx, perspective)? {
            // A class without a marker would make every node its instance.
            if !class.marker.is_empty() && is_instance(tx, perspective, &class, node)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// How many nodes of the perspective are instances of at least one of its classes.
    fn instance_count(&self, tx: &dyn ReadTx, perspective: &str) -> Result<u64, ToolError> {
        let mut nodes = HashSet::new();
        for class in self.classes(tx, perspective)? {
            if class.marker.is_empty() {
                continue;
            }
            let query = SourceQuery {
                all_of: class
                    .marker
                    .iter()
                    .map(|m| (m.predicate.clone(), m.target.clone()))
                    .collect(),
                ..SourceQuery::default()
            };
            nodes.extend(tx.sources(perspective, &query, Default::default())?);
        }
        Ok(nodes.len() as u64)
    }
}

/// One `remaining` entry per other perspective with links out of (`from`) or into (`to`) the
/// record.
fn record_elsewhere(from: &[(Perspective, u64)], to: &[(Perspective, u64)]) -> Vec<Value> {
    let mut uuids: Vec<&str> = to.iter().map(|(p, _)| p.uuid.as_str()).collect();
    for (p, _) in from {
        if !uuids.contains(&p.uuid.as_str()) {
            uuids.push(&p.uuid);
        }
    }
    let count =
        |list: &[(Perspective, u64)], uuid: &str| list.iter().find(|(p, _)| p.uuid == uuid).map_or(0, |(_, n)| *n);
    let links = |n: u64| {
        if n == 1 {
            "1 link".to_string()
        } else {
            format!("{n} links")
        }
    };
    uuids
        .into_iter()
        .map(|uuid| {
            let (points, comes) = (count(to, uuid), count(from, uuid));
            let what = match (points, comes) {
                (0, c) => format!(
                    "{} in perspective {uuid} {} from the record",
                    links(c),
                    if c == 1 { "comes" } else { "come" }
                ),
                (p, 0) => format!(
                    "{} in perspective {uuid} {} at the record",
                    links(p),
                    if p == 1 { "points" } else { "point" }
                ),
                (p, c) => format!(
                    "{} in perspective {uuid} {} at the record and {c} {} from it",
                    links(p),
                    if p == 1 { "points" } else { "point" },
                    if c == 1 { "comes" } else { "come" }
                ),
            };
            entry(what, OUTSIDE.to_string())
        })
        .collect()
}

fn entry(what: String, why: String) -> Value {
    json!({ "what": what, "why": why })
}

fn attestation(erased: &Erased, instances: u64, remaining: Vec<Value>) -> Value {
    let complete = remaining.is_empty();
    json!({
        "erased": {
            "links": erased.links,
            "instances": instances,
            "index_entries": erased.index_entries,
            "hashes": erased.hashes,
            "stale_hashes": erased.stale_hashes,
            "transactions": erased.transactions,
            "transactions_redacted": erased.transactions_redacted,
            "models": erased.models,
            "perspectives": erased.perspectives,
        },
        "remaining": remaining,
        "complete": complete,
    })
}
