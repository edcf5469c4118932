//! The change log both stores keep (docs/data-model.md, "The change feed"): one row per source
//! a committed transaction touched in a perspective, written by the transaction's commit.
//!
//! The store knows links, not classes: what a source *is* after the transaction comes from a
//! [`ChangeLabeller`] the engine installs (it answers the source's class names), stored as
//! opaque labels. Each row also keeps the labels of the row before it for the same source, so
//! that the engine can tell a created instance from an updated or a removed one without
//! reading history.
//!
//! **Order.** A row's position is drawn when its transaction commits, while the transaction
//! holds its perspectives: SQLite's single writer, PostgreSQL's per-perspective advisory lock
//! (see `postgres::tx`). The next writer of a perspective draws after this one committed, so
//! within a perspective positions increase in commit order, on every node, and a reader that
//! sees a position sees every smaller one of that perspective: a cursor (the last position an
//! agent read) never skips a transaction that was still in flight when it was taken. Across
//! perspectives positions interleave freely, which is why every read is per perspective.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use super::{LinkPattern, ReadTx, StoreError};

/// One row of a perspective's change log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// Where the row stands: within a perspective, increasing in commit order.
    pub position: i64,
    /// The source (node) the transaction touched: a link out of it written, removed or erased.
    pub source: String,
    /// DID of the transaction's author.
    pub author: String,
    /// The transaction's time, microseconds since the Unix epoch.
    pub at: i64,
    /// The source's labels (class names) once the transaction committed; empty when it is no
    /// instance of any class (or has no links left).
    pub labels: Vec<String>,
    /// The labels of the source's previous row; `Some(vec![])` when this transaction wrote the
    /// source's first link; `None` when unknown (the source was last written before the store
    /// kept a change log).
    pub labels_before: Option<Vec<String>>,
}

/// What a source is, in words the store keeps without understanding: the engine's class
/// names. Called inside the committing transaction, after its writes.
pub trait ChangeLabeller: Send + Sync {
    fn labels(&self, tx: &dyn ReadTx, perspective: &str, source: &str) -> Result<Vec<String>, StoreError>;
}

/// What a store keeps for its change log: the labeller, and (SQLite) the receivers of this
/// process's commits.
#[derive(Default)]
pub(super) struct Feed {
    labeller: RwLock<Option<Arc<dyn ChangeLabeller>>>,
    receivers: Mutex<Vec<Sender<String>>>,
}

impl Feed {
    pub fn set_labeller(&self, labeller: Arc<dyn ChangeLabeller>) {
        *self.labeller.write().unwrap_or_else(PoisonError::into_inner) = Some(labeller);
    }

    pub fn labeller(&self) -> Option<Arc<dyn ChangeLabeller>> {
        self.labeller.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// A receiver of the perspectives this process's commits changed.
    pub fn subscribe(&self) -> Receiver<String> {
        let (sender, receiver) = channel();
        self.receivers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(sender);
        receiver
    }

    /// Hands each perspective to every receiver, forgetting those dropped.
    pub fn announce<'a>(&self, perspectives: impl IntoIterator<Item = &'a String>) {
        let mut receivers = self.receivers.lock().unwrap_or_else(PoisonError::into_inner);
        for perspective in perspectives {
            receivers.retain(|sender| sender.send(perspective.clone()).is_ok());
        }
    }
}

/// The sources a write transaction touched, by perspective uuid, and the perspectives it erased.
#[derive(Debug, Default)]
pub(super) struct Touched {
    sources: BTreeMap<String, BTreeSet<String>>,
    erased: BTreeSet<String>,
}

impl Touched {
    pub fn add(&mut self, perspective: &str, source: &str) {
        match self.sources.get_mut(perspective) {
            Some(sources) => {
                if !sources.contains(source) {
                    sources.insert(source.to_string());
                }
            }
            None => {
                self.sources
                    .insert(perspective.to_string(), BTreeSet::from([source.to_string()]));
            }
        }
    }

    pub fn add_all<'a>(&mut self, perspective: &str, sources: impl IntoIterator<Item = &'a str>) {
        for source in sources {
            self.add(perspective, source);
        }
    }

    /// A perspective erased whole: no row is written for it (its log goes with it), but it is
    /// announced.
    pub fn erase(&mut self, perspective: &str) {
        self.sources.remove(perspective);
        self.erased.insert(perspective.to_string());
    }

    /// Every perspective to announce after the commit.
    pub fn perspectives(&self) -> Vec<String> {
        let mut all: BTreeSet<&String> = self.sources.keys().collect();
        all.extend(&self.erased);
        all.into_iter().cloned().collect()
    }
}

/// A row to insert: the perspective, the source and its labels as stored ([`encode_labels`]).
pub(super) struct PendingRow {
    pub perspective: String,
    pub source: String,
    pub labels: String,
}

/// What a commit does to the log: rows to insert, and (an erasure) the sources whose every row
/// goes, perspective and source.
#[derive(Default)]
pub(super) struct Pending {
    pub rows: Vec<PendingRow>,
    pub forgotten: Vec<(String, String)>,
}

/// The source of the row an erasure writes for the sources it forgot: no IRI, so that the
/// record's IRI leaves the database (docs/tools.md, "Erasure attestation"), yet every node's
/// follower sees the perspective's log move. `changes_since` skips it.
pub const FORGOTTEN: &str = "";

/// The rows a commit writes, labelled inside the transaction `tx` (after its writes). With
/// `erasure`, a source left with no link is forgotten: its rows go, and one row of
/// [`FORGOTTEN`] per perspective stands for them all.
pub(super) fn pending_rows(
    tx: &dyn ReadTx,
    touched: &Touched,
    labeller: Option<&dyn ChangeLabeller>,
    erasure: bool,
) -> Result<Pending, StoreError> {
    let mut pending = Pending::default();
    for (perspective, sources) in &touched.sources {
        let mut forgot = false;
        for source in sources {
            let out = LinkPattern {
                source: Some(source),
                ..LinkPattern::default()
            };
            if erasure && tx.count_links(perspective, out)? == 0 {
                pending.forgotten.push((perspective.clone(), source.clone()));
                forgot = true;
                continue;
            }
            let labels = match labeller {
                Some(labeller) => labeller.labels(tx, perspective, source)?,
                None => Vec::new(),
            };
            pending.rows.push(PendingRow {
                perspective: perspective.clone(),
                source: source.clone(),
                labels: encode_labels(&labels),
            });
        }
        if forgot {
            pending.rows.push(PendingRow {
                perspective: perspective.clone(),
                source: FORGOTTEN.to_string(),
                labels: encode_labels(&[]),
            });
        }
    }
    Ok(pending)
}

/// The sources of the links matching any of `patterns`: what an erasure touches.
pub(super) fn sources_matching(
    tx: &dyn ReadTx,
    perspective: &str,
    patterns: &[LinkPattern<'_>],
) -> Result<BTreeSet<String>, StoreError> {
    let mut sources = BTreeSet::new();
    for pattern in patterns {
        sources.extend(tx.links(perspective, *pattern, None, 0)?.into_iter().map(|l| l.source));
    }
    Ok(sources)
}

/// Labels as stored: a JSON array of strings.
pub(super) fn encode_labels(labels: &[String]) -> String {
    serde_json::to_string(labels).unwrap_or_else(|_| "[]".into())
}

/// Stored labels back; a value that is no array of strings reads as none.
pub(super) fn decode_labels(text: &str) -> Vec<String> {
    serde_json::from_str(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip_whatever_they_hold() {
        let labels = vec!["Book".to_string(), "a \"quoted\", name".to_string(), String::new()];
        assert_eq!(decode_labels(&encode_labels(&labels)), labels);
        assert_eq!(decode_labels("not json"), Vec::<String>::new());
    }

    #[test]
    fn touched_sources_are_kept_once_and_erased_perspectives_announced() {
        let mut touched = Touched::default();
        touched.add("p", "a");
        touched.add("p", "a");
        touched.add_all("q", ["b", "c"]);
        touched.erase("q");
        touched.erase("r");
        assert_eq!(touched.perspectives(), ["p", "q", "r"]);
        assert_eq!(touched.sources.len(), 1);
        assert_eq!(touched.sources["p"].len(), 1);
    }
}
