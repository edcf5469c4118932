//! The graph a write would make, as the SHACL validator reads it: the links of the write's own
//! transaction, read lazily node by node (a write's check looks at a few nodes, never the whole
//! perspective), typed as [`PerspectiveGraph`](crate::engine::graph::PerspectiveGraph) types
//! them. With [`TxGraph::before`] the same transaction shows the graph as it was before the
//! write: the links the write added hidden, the ones it removed back.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use shacl_mcp_compiler::literal::is_node;
use shacl_mcp_compiler::shacl::graph::show;
use shacl_mcp_compiler::shacl::{Graph, Term};

use super::recorder::{Changes, Triple};
use crate::engine::graph::LinkTyper;
use crate::store::{LinkPattern, ReadTx, StoreError};

/// `(source, predicate, target)` lists, shared out of the caches.
type Links = Rc<Vec<Triple>>;

pub(crate) struct TxGraph<'t> {
    tx: &'t dyn ReadTx,
    perspective: &'t str,
    typer: &'t LinkTyper<'t>,
    /// `Some`: show the graph before these changes.
    undo: Option<&'t Changes>,
    out: RefCell<HashMap<String, Links>>,
    into: RefCell<HashMap<String, Links>>,
    by_predicate: RefCell<HashMap<String, Links>>,
    /// The link target each literal term was read from (for results).
    written: RefCell<HashMap<Term, String>>,
    /// The first store failure: the trait cannot return it; [`TxGraph::failure`] does.
    failed: RefCell<Option<StoreError>>,
}

impl<'t> TxGraph<'t> {
    /// The graph as the transaction holds it now.
    pub fn after(tx: &'t dyn ReadTx, perspective: &'t str, typer: &'t LinkTyper<'t>) -> Self {
        TxGraph {
            tx,
            perspective,
            typer,
            undo: None,
            out: RefCell::default(),
            into: RefCell::default(),
            by_predicate: RefCell::default(),
            written: RefCell::default(),
            failed: RefCell::default(),
        }
    }

    /// The graph as it was before `changes`.
    pub fn before(tx: &'t dyn ReadTx, perspective: &'t str, typer: &'t LinkTyper<'t>, changes: &'t Changes) -> Self {
        TxGraph {
            undo: Some(changes),
            ..Self::after(tx, perspective, typer)
        }
    }

    /// A store failure met while reading, if any.
    pub fn failure(&self) -> Option<StoreError> {
        self.failed.borrow_mut().take()
    }

    /// The links matching `pattern` in this graph (after, or before the changes).
    fn fetch(&self, pattern: LinkPattern<'_>) -> Links {
        let stored = match self.tx.links(self.perspective, pattern, None, 0) {
            Ok(links) => links,
            Err(e) => {
                self.failed.borrow_mut().get_or_insert(e);
                Vec::new()
            }
        };
        let mut seen = HashSet::new();
        let mut out: Vec<Triple> = stored
            .into_iter()
            .map(|l| (l.source, l.predicate, l.target))
            .filter(|t| seen.insert(t.clone()))
            .collect();
        if let Some(changes) = self.undo {
            out.retain(|t| !changes.added.contains(t));
            let matches = |t: &&Triple| {
                pattern.source.is_none_or(|s| s == t.0)
                    && pattern.predicate.is_none_or(|p| p == t.1)
                    && pattern.target.is_none_or(|o| o == t.2)
            };
            out.extend(
                changes
                    .removed
                    .iter()
                    .filter(matches)
                    .filter(|t| seen.insert((*t).clone()))
                    .cloned(),
            );
        }
        Rc::new(out)
    }

    fn cached(&self, cache: &RefCell<HashMap<String, Links>>, key: &str, pattern: LinkPattern<'_>) -> Links {
        if let Some(found) = cache.borrow().get(key) {
            return found.clone();
        }
        let links = self.fetch(pattern);
        cache.borrow_mut().insert(key.to_string(), links.clone());
        links
    }

    /// The links out of `node`.
    pub fn out_of(&self, node: &str) -> Links {
        let pattern = LinkPattern {
            source: Some(node),
            ..LinkPattern::default()
        };
        self.cached(&self.out, node, pattern)
    }

    /// The links into `node`.
    pub fn into(&self, node: &str) -> Links {
        let pattern = LinkPattern {
            target: Some(node),
            ..LinkPattern::default()
        };
        self.cached(&self.into, node, pattern)
    }

    fn with_predicate(&self, predicate: &str) -> Links {
        let pattern = LinkPattern {
            predicate: Some(predicate),
            ..LinkPattern::default()
        };
        self.cached(&self.by_predicate, predicate, pattern)
    }

    /// The term of a link's target, typed by the classes its source is an instance of.
    fn object(&self, source: &str, predicate: &str, target: &str) -> Term {
        let term = if self.typer.needs_subject(predicate) {
            let links = self.out_of(source);
            let markers: HashSet<(&str, &str)> = links
                .iter()
                .filter(|(_, p, t)| self.typer.is_marker(p, t))
                .map(|(_, p, t)| (p.as_str(), t.as_str()))
                .collect();
            self.typer.object(predicate, target, Some(&markers))
        } else {
            self.typer.object(predicate, target, None)
        };
        if term.is_literal() {
            self.written
                .borrow_mut()
                .entry(term.clone())
                .or_insert_with(|| target.to_string());
        }
        term
    }
}

/// The link spelling of a node term: its IRI, or `_:label`.
fn iri_of(term: &Term) -> Option<std::borrow::Cow<'_, str>> {
    term.node_spelling()
}

impl Graph for TxGraph<'_> {
    fn objects(&self, subject: &Term, predicate: &str) -> Vec<Term> {
        let Some(s) = iri_of(subject) else { return Vec::new() };
        let mut out: Vec<Term> = Vec::new();
        for (_, p, t) in self.out_of(&s).iter().filter(|(_, p, _)| p == predicate) {
            let term = self.object(&s, p, t);
            if !out.contains(&term) {
                out.push(term);
            }
        }
        out
    }

    fn subjects(&self, predicate: &str, object: &Term) -> Vec<Term> {
        let candidates = match iri_of(object) {
            Some(o) if is_node(&o) => self.into(&o),
            _ => self.with_predicate(predicate),
        };
        let mut out: Vec<Term> = Vec::new();
        for (s, p, t) in candidates.iter().filter(|(_, p, _)| p == predicate) {
            if self.object(s, p, t) == *object {
                let subject = Term::node(s);
                if !out.contains(&subject) {
                    out.push(subject);
                }
            }
        }
        out
    }

    fn outgoing(&self, subject: &Term) -> Vec<(Term, Term)> {
        let Some(s) = iri_of(subject) else { return Vec::new() };
        let mut out: Vec<(Term, Term)> = Vec::new();
        for (_, p, t) in self.out_of(&s).iter() {
            let pair = (Term::iri(p), self.object(&s, p, t));
            if !out.contains(&pair) {
                out.push(pair);
            }
        }
        out
    }

    fn subjects_with(&self, predicate: &str) -> Vec<Term> {
        let mut seen = HashSet::new();
        self.with_predicate(predicate)
            .iter()
            .filter(|(s, _, _)| seen.insert(s.clone()))
            .map(|(s, _, _)| Term::node(s))
            .collect()
    }

    fn objects_with(&self, predicate: &str) -> Vec<Term> {
        let mut out: Vec<Term> = Vec::new();
        for (s, p, t) in self.with_predicate(predicate).iter() {
            let term = self.object(s, p, t);
            if !out.contains(&term) {
                out.push(term);
            }
        }
        out
    }

    /// As the link holds it: `literal:string:open`, `literal:number:3`, an IRI.
    fn show(&self, term: &Term) -> String {
        self.written.borrow().get(term).cloned().unwrap_or_else(|| show(term))
    }
}
