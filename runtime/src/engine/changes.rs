//! `changes_since`: what changed in a perspective after a cursor, one entry per instance
//! (docs/data-model.md, "The change feed"), read from the store's change log; and the labeller
//! that tells the store which classes a source it touched belongs to.
//!
//! The store writes one row per (transaction, source) at commit, with the source's class names
//! then and those of its previous row. Here the rows after the cursor are folded per source: the
//! kind compares the labels before the first row with those after the last one (none before:
//! `created`; none after: `removed`; else `updated`), so an instance created and changed again
//! within the range is one `created` entry. Entries come oldest first by their last row.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

use super::error::{Problem, ToolError};
use super::object::carries_marker;
use super::{Engine, Registered, fixed::FixedDna, registered_model};
use crate::clock::format_rfc3339_micros;
use crate::store::{Change, ChangeLabeller, FORGOTTEN, ReadTx, StoreError};

/// Entries in one answer unless `limit` says otherwise, and at most.
pub const DEFAULT_LIMIT: u64 = 100;
pub const MAX_LIMIT: u64 = 1_000;
/// Rows read per query, and at most per call: a call that reads this many rows of instances the
/// class filter leaves out answers with fewer entries and `has_more`.
const BATCH: u64 = 500;
const SCAN_BUDGET: usize = 20_000;
/// What every cursor of this server starts with; the rest is a position in the change log.
const CURSOR_PREFIX: &str = "c1.";

/// Labels the change log's rows with the class names of the source (classes whose whole marker
/// it carries): the fixed DNA's and the perspective's models.
pub(super) struct ClassLabeller {
    pub fixed: Arc<FixedDna>,
    pub registered: Arc<Registered>,
}

impl ChangeLabeller for ClassLabeller {
    /// Reads only the source's links of marker predicates (one query): a source with a large
    /// collection costs no more to label than any other.
    fn labels(&self, tx: &dyn ReadTx, perspective: &str, source: &str) -> Result<Vec<String>, StoreError> {
        let mut classes = self.fixed.classes().to_vec();
        let registered = registered_model(&self.fixed, &self.registered, tx, perspective)?;
        classes.extend(registered.added.iter().cloned());
        let mut predicates: Vec<String> = classes
            .iter()
            .flat_map(|c| c.marker.iter().map(|m| m.predicate.clone()))
            .collect();
        predicates.sort();
        predicates.dedup();
        if predicates.is_empty() {
            return Ok(Vec::new());
        }
        let links = tx.links_from(perspective, &[source.to_string()], &predicates)?;
        let mut names: Vec<String> = Vec::new();
        for class in classes {
            if !class.marker.is_empty() && carries_marker(&class, &links) && !names.contains(&class.name) {
                names.push(class.name.clone());
            }
        }
        Ok(names)
    }
}

impl Engine {
    /// `changes_since`: `{ cursor, changes: [{ base_uri, class_names, kind, at, author }],
    /// has_more }`. Without `cursor`: the current end and no changes.
    pub fn changes_since(
        &self,
        perspective: &str,
        cursor: Option<&str>,
        class_name: Option<&str>,
        limit: Option<u64>,
    ) -> Result<Value, ToolError> {
        let tx = self.store.read()?;
        self.require_perspective(&*tx, perspective)?;
        let class = match class_name {
            Some(name) => Some(self.class(&*tx, perspective, name)?.name.clone()),
            None => None,
        };
        let Some(cursor) = cursor else {
            let head = tx.change_head(perspective)?;
            return Ok(json!({ "cursor": encode_cursor(head), "changes": [], "has_more": false }));
        };
        let after = decode_cursor(cursor)?;
        let mut fold = Fold::new(class, limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT));
        let (at, has_more) = fold.read(&*tx, perspective, after)?;
        Ok(json!({ "cursor": encode_cursor(at), "changes": fold.entries(), "has_more": has_more }))
    }

    /// Whether the perspective exists and this engine's principal may read it.
    pub fn can_read(&self, perspective: &str) -> Result<bool, ToolError> {
        let tx = self.store.read()?;
        Ok(tx.perspective(perspective)?.is_some_and(|p| self.may_see(&p)))
    }

    /// Every perspective with the last position of its change log (for the MCP layer's
    /// subscriptions; access rules are theirs to apply).
    pub fn change_heads(&self) -> Result<Vec<(String, i64)>, ToolError> {
        Ok(self.store.read()?.change_heads()?)
    }

    /// Rows of a perspective's change log after `after`, at most `limit`.
    pub fn change_rows(&self, perspective: &str, after: i64, limit: u64) -> Result<Vec<Change>, ToolError> {
        Ok(self.store.read()?.changes(perspective, after, limit)?)
    }
}

fn encode_cursor(position: i64) -> String {
    format!("{CURSOR_PREFIX}{position}")
}

fn decode_cursor(cursor: &str) -> Result<i64, ToolError> {
    cursor
        .strip_prefix(CURSOR_PREFIX)
        .and_then(|rest| rest.parse::<i64>().ok())
        .filter(|position| *position >= 0 && !cursor.contains('+'))
        .ok_or_else(|| {
            let problem = Problem::new(
                "cursor",
                "is not a cursor of this server: pass the cursor an earlier changes_since answered, or none for the current end",
            )
            .received(&Value::String(cursor.to_string()));
            ToolError::invalid_arguments("changes_since", vec![problem])
        })
}

/// One source's rows within the range read so far.
#[derive(Clone, Debug)]
struct Entry {
    source: String,
    /// The labels before the first row (`None`: unknown).
    before: Option<Vec<String>>,
    /// The labels after the last row.
    after: Vec<String>,
    /// The last non-empty labels seen (before the first row or after any).
    seen: Vec<String>,
    position: i64,
    at: i64,
    author: String,
}

impl Entry {
    fn new(row: &Change) -> Entry {
        let mut entry = Entry {
            source: row.source.clone(),
            before: row.labels_before.clone(),
            after: Vec::new(),
            seen: row.labels_before.clone().unwrap_or_default(),
            position: 0,
            at: 0,
            author: String::new(),
        };
        entry.apply(row);
        entry
    }

    fn apply(&mut self, row: &Change) {
        self.after = row.labels.clone();
        if !row.labels.is_empty() {
            self.seen = row.labels.clone();
        }
        self.position = row.position;
        self.at = row.at;
        self.author = row.author.clone();
    }

    /// `None` for a source that was no instance at either end nor in between (a plain node).
    fn kind(&self) -> Option<&'static str> {
        let before_empty = self.before.as_ref().is_some_and(Vec::is_empty);
        match (self.after.is_empty(), before_empty) {
            (false, true) => Some("created"),
            (false, false) => Some("updated"),
            (true, true) if self.seen.is_empty() => None,
            (true, _) => Some("removed"),
        }
    }

    fn class_names(&self) -> &[String] {
        if self.after.is_empty() { &self.seen } else { &self.after }
    }

    fn reported(&self, class: Option<&str>) -> bool {
        self.kind().is_some() && class.is_none_or(|c| self.class_names().iter().any(|n| n == c))
    }
}

/// The rows after a cursor folded into entries, up to `limit` reported ones.
struct Fold {
    class: Option<String>,
    limit: u64,
    entries: Vec<Entry>,
    by_source: HashMap<String, usize>,
    reported: u64,
}

impl Fold {
    fn new(class: Option<String>, limit: u64) -> Fold {
        Fold {
            class,
            limit,
            entries: Vec::new(),
            by_source: HashMap::new(),
            reported: 0,
        }
    }

    /// Reads rows after `after` until the end, the limit or the scan budget: the position of
    /// the last row taken, and whether rows are left.
    fn read(&mut self, tx: &dyn ReadTx, perspective: &str, after: i64) -> Result<(i64, bool), ToolError> {
        let (mut at, mut scanned) = (after, 0);
        loop {
            let rows = tx.changes(perspective, at, BATCH)?;
            let full = rows.len() as u64 == BATCH;
            for row in &rows {
                if !self.take(row) {
                    return Ok((at, true));
                }
                at = row.position;
                scanned += 1;
            }
            if !full {
                return Ok((at, false));
            }
            if scanned >= SCAN_BUDGET {
                return Ok((at, true));
            }
        }
    }

    /// Folds `row` in, unless that would report one entry more than the limit. The row an
    /// erasure leaves for what it forgot names no instance: passed over.
    fn take(&mut self, row: &Change) -> bool {
        if row.source == FORGOTTEN {
            return true;
        }
        let class = self.class.as_deref();
        let index = self.by_source.get(&row.source).copied();
        let (was, entry) = match index {
            Some(i) => {
                let mut entry = self.entries[i].clone();
                entry.apply(row);
                (self.entries[i].reported(class), entry)
            }
            None => (false, Entry::new(row)),
        };
        let now = entry.reported(class);
        if now && !was && self.reported >= self.limit {
            return false;
        }
        self.reported = self.reported + u64::from(now) - u64::from(was);
        match index {
            Some(i) => self.entries[i] = entry,
            None => {
                self.by_source.insert(row.source.clone(), self.entries.len());
                self.entries.push(entry);
            }
        }
        true
    }

    /// The reported entries, oldest first by their last row.
    fn entries(&self) -> Vec<Value> {
        let class = self.class.as_deref();
        let mut reported: Vec<&Entry> = self.entries.iter().filter(|e| e.reported(class)).collect();
        reported.sort_by_key(|e| e.position);
        reported
            .into_iter()
            .map(|e| {
                json!({
                    "base_uri": e.source,
                    "class_names": e.class_names(),
                    "kind": e.kind(),
                    "at": format_rfc3339_micros(e.at),
                    "author": e.author,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(position: i64, source: &str, before: Option<&[&str]>, labels: &[&str]) -> Change {
        let strings = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Change {
            position,
            source: source.into(),
            author: "did:key:z6Mkx".into(),
            at: position * 1_000_000,
            labels: strings(labels),
            labels_before: before.map(strings),
        }
    }

    fn kinds(rows: &[Change], class: Option<&str>, limit: u64) -> (Vec<(String, String)>, usize) {
        let mut fold = Fold::new(class.map(str::to_string), limit);
        let taken = rows.iter().take_while(|r| fold.take(r)).count();
        let entries = fold
            .entries()
            .iter()
            .map(|e| {
                (
                    e["base_uri"].as_str().unwrap().to_string(),
                    e["kind"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        (entries, taken)
    }

    #[test]
    fn kinds_compare_the_labels_at_both_ends_of_the_range() {
        let rows = [
            row(1, "a", Some(&[]), &["Book"]),
            row(2, "b", Some(&["Book"]), &["Book"]),
            row(3, "c", Some(&["Book"]), &[]),
            row(4, "a", Some(&["Book"]), &["Book"]),
            row(5, "d", Some(&[]), &[]),
            row(6, "e", None, &["Book"]),
            row(7, "f", Some(&[]), &["Book"]),
            row(8, "f", Some(&["Book"]), &[]),
        ];
        let (entries, taken) = kinds(&rows, None, 100);
        assert_eq!(taken, rows.len());
        let expected = [
            ("b", "updated"),
            ("c", "removed"),
            ("a", "created"),
            ("e", "updated"),
            ("f", "removed"),
        ];
        let expected: Vec<(String, String)> = expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert_eq!(entries, expected);
    }

    #[test]
    fn the_limit_counts_reported_entries_and_stops_before_the_next() {
        let rows = [
            row(1, "a", Some(&[]), &["Book"]),
            row(2, "x", Some(&[]), &["Member"]),
            row(3, "a", Some(&["Book"]), &["Book"]),
            row(4, "b", Some(&[]), &["Book"]),
        ];
        let (entries, taken) = kinds(&rows, Some("Book"), 1);
        assert_eq!(taken, 3, "row 4 would be a second Book entry");
        assert_eq!(entries, [("a".to_string(), "created".to_string())]);
    }

    #[test]
    fn cursors_round_trip_and_strangers_are_refused() {
        assert_eq!(decode_cursor(&encode_cursor(42)).unwrap(), 42);
        for bad in ["", "42", "c1.", "c1.-1", "c1.+4", "c2.4", "c1.4x"] {
            assert!(decode_cursor(bad).is_err(), "{bad}");
        }
    }
}
