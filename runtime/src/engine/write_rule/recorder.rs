//! A write transaction that remembers which links it added and removed: what the SHACL check
//! of a write starts from, and how it sees the graph as it was before the write.

use std::collections::HashSet;

use crate::store::Order;
use crate::store::{
    Change, Erased, Link, LinkPattern, NewLink, Perspective, ReadTx, SourceQuery, StoreError, StoredModel, WalState,
    WriteTx,
};

/// A link as a triple `(source, predicate, target)`.
pub(crate) type Triple = (String, String, String);

/// The links a write changed, each once: added (not there before) and removed (there before,
/// gone now). A link removed and written again is in neither.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    pub added: Vec<Triple>,
    pub removed: Vec<Triple>,
}

impl Changes {
    fn add(&mut self, t: Triple) {
        if let Some(i) = self.removed.iter().position(|r| *r == t) {
            self.removed.remove(i);
        } else if !self.added.contains(&t) {
            self.added.push(t);
        }
    }

    fn remove(&mut self, t: Triple) {
        if let Some(i) = self.added.iter().position(|a| *a == t) {
            self.added.remove(i);
        } else if !self.removed.contains(&t) {
            self.removed.push(t);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }

    /// Every changed link.
    pub fn all(&self) -> impl Iterator<Item = &Triple> {
        self.added.iter().chain(&self.removed)
    }
}

/// Wraps a write transaction and records [`Changes`]. A removal reads the links it removes
/// first (one indexed read); an add of a link already present is not a change.
pub(crate) struct Recorder<'a> {
    inner: Box<dyn WriteTx + 'a>,
    pub changes: Changes,
    /// Off: a plain transaction (a write that no shape can see records nothing).
    recording: bool,
    /// Links seen present when added, so that a duplicate add is not a change.
    present: HashSet<Triple>,
    /// A node that had no links when the write began: a link out of it is new.
    fresh: Option<String>,
}

impl<'a> Recorder<'a> {
    pub fn new(inner: Box<dyn WriteTx + 'a>) -> Self {
        Recorder {
            inner,
            changes: Changes::default(),
            recording: true,
            present: HashSet::new(),
            fresh: None,
        }
    }

    /// Stops recording: nothing this write does can change a SHACL result the check reads.
    pub fn without_recording(mut self) -> Self {
        self.recording = false;
        self
    }

    pub fn is_recording(&self) -> bool {
        self.recording
    }

    /// `node` had no links when the write began.
    pub fn fresh(&mut self, node: &str) {
        self.fresh = Some(node.to_string());
    }

    pub fn commit(self) -> Result<(), StoreError> {
        self.inner.commit()
    }
}

fn triple(l: &Link) -> Triple {
    (l.source.clone(), l.predicate.clone(), l.target.clone())
}

impl ReadTx for Recorder<'_> {
    fn perspectives(&self) -> Result<Vec<Perspective>, StoreError> {
        self.inner.perspectives()
    }
    fn perspective(&self, uuid: &str) -> Result<Option<Perspective>, StoreError> {
        self.inner.perspective(uuid)
    }
    fn links(
        &self,
        perspective: &str,
        pattern: LinkPattern<'_>,
        limit: Option<u64>,
        offset: u64,
    ) -> Result<Vec<Link>, StoreError> {
        self.inner.links(perspective, pattern, limit, offset)
    }
    fn count_links(&self, perspective: &str, pattern: LinkPattern<'_>) -> Result<u64, StoreError> {
        self.inner.count_links(perspective, pattern)
    }
    fn sources(&self, perspective: &str, query: &SourceQuery, order: Order) -> Result<Vec<String>, StoreError> {
        self.inner.sources(perspective, query, order)
    }
    fn source_page(
        &self,
        perspective: &str,
        query: &SourceQuery,
        order: Order,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<String>, u64), StoreError> {
        self.inner.source_page(perspective, query, order, offset, limit)
    }
    fn links_from(
        &self,
        perspective: &str,
        sources: &[String],
        predicates: &[String],
    ) -> Result<Vec<Link>, StoreError> {
        self.inner.links_from(perspective, sources, predicates)
    }
    fn first_link(&self, perspective: &str, source: &str) -> Result<Option<(i64, i64)>, StoreError> {
        self.inner.first_link(perspective, source)
    }
    fn models(&self, perspective: &str) -> Result<Vec<StoredModel>, StoreError> {
        self.inner.models(perspective)
    }
    fn count_links_elsewhere(
        &self,
        except: &str,
        pattern: LinkPattern<'_>,
    ) -> Result<Vec<(Perspective, u64)>, StoreError> {
        self.inner.count_links_elsewhere(except, pattern)
    }
    fn changes(&self, perspective: &str, after: i64, limit: u64) -> Result<Vec<Change>, StoreError> {
        self.inner.changes(perspective, after, limit)
    }
    fn change_head(&self, perspective: &str) -> Result<i64, StoreError> {
        self.inner.change_head(perspective)
    }
    fn change_heads(&self) -> Result<Vec<(String, i64)>, StoreError> {
        self.inner.change_heads()
    }
}

impl WriteTx for Recorder<'_> {
    fn add_perspective(&mut self, perspective: &Perspective) -> Result<(), StoreError> {
        self.inner.add_perspective(perspective)
    }

    fn add_link(&mut self, perspective: &str, link: NewLink) -> Result<Link, StoreError> {
        if !self.recording {
            return self.inner.add_link(perspective, link);
        }
        let t = (link.source.clone(), link.predicate.clone(), link.target.clone());
        let new_node = self.fresh.as_deref() == Some(t.0.as_str());
        let already = self.present.contains(&t)
            || !new_node && {
                let exact = LinkPattern {
                    source: Some(&t.0),
                    predicate: Some(&t.1),
                    target: Some(&t.2),
                };
                !self.changes.removed.contains(&t) && self.inner.count_links(perspective, exact)? > 0
            };
        let written = self.inner.add_link(perspective, link)?;
        if !already {
            self.changes.add(t.clone());
        }
        self.present.insert(t);
        Ok(written)
    }

    fn remove_links(&mut self, perspective: &str, pattern: LinkPattern<'_>) -> Result<u64, StoreError> {
        if !self.recording {
            return self.inner.remove_links(perspective, pattern);
        }
        let gone = self.inner.links(perspective, pattern, None, 0)?;
        let n = self.inner.remove_links(perspective, pattern)?;
        for l in &gone {
            let t = triple(l);
            self.present.remove(&t);
            self.changes.remove(t);
        }
        Ok(n)
    }

    fn put_model(&mut self, perspective: &str, model: &StoredModel) -> Result<bool, StoreError> {
        self.inner.put_model(perspective, model)
    }

    fn commit(self: Box<Self>) -> Result<(), StoreError> {
        self.inner.commit()
    }

    fn erase_links(&mut self, perspective: &str, patterns: &[LinkPattern<'_>]) -> Result<Erased, StoreError> {
        self.inner.erase_links(perspective, patterns)
    }

    fn erase_perspective(&mut self, perspective: &str) -> Result<Erased, StoreError> {
        self.inner.erase_perspective(perspective)
    }

    fn commit_erasure(self: Box<Self>) -> Result<WalState, StoreError> {
        self.inner.commit_erasure()
    }
}
