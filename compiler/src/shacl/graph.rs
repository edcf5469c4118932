//! The small graph interface the validator reads through, and [`MemoryGraph`], the in-memory
//! implementation (data read from Turtle, or any triples a caller adds).

use std::collections::HashMap;
use std::sync::Arc;

use super::term::{Literal, Term};

/// What the validator asks of a data or shapes graph. Results are sets (each term once).
pub trait Graph {
    /// `o` of every triple `(subject, predicate, o)`.
    fn objects(&self, subject: &Term, predicate: &str) -> Vec<Term>;
    /// `s` of every triple `(s, predicate, object)`.
    fn subjects(&self, predicate: &str, object: &Term) -> Vec<Term>;
    /// `(p, o)` of every triple with this subject (`p` an IRI term).
    fn outgoing(&self, subject: &Term) -> Vec<(Term, Term)>;
    /// Every subject of a triple with this predicate.
    fn subjects_with(&self, predicate: &str) -> Vec<Term>;
    /// Every object of a triple with this predicate.
    fn objects_with(&self, predicate: &str) -> Vec<Term>;

    fn contains(&self, subject: &Term, predicate: &str, object: &Term) -> bool {
        self.objects(subject, predicate).contains(object)
    }

    /// Where the term first appears (for reporting in document order), if the graph knows.
    fn position(&self, _term: &Term) -> Option<usize> {
        None
    }

    /// How a term is written in results: IRIs bare, blank nodes `_:label`, literals in Turtle.
    fn show(&self, term: &Term) -> String {
        show(term)
    }
}

/// The default [`Graph::show`].
pub fn show(term: &Term) -> String {
    match term {
        Term::Iri(iri) => iri.to_string(),
        other => other.to_string(),
    }
}

type Triple = [u32; 3];

/// Triples over interned terms, in two sorted orders (subject-predicate-object and
/// predicate-object-subject), looked up by binary search. Terms are numbered in order of
/// first appearance, which is what [`Graph::position`] answers.
#[derive(Default)]
pub struct MemoryGraph {
    terms: Terms,
    spo: Vec<Triple>,
    /// `[p, o, s]`.
    pos: Vec<Triple>,
    /// `(prefix, namespace)` as the document declared them.
    pub(super) prefixes: Vec<(String, String)>,
    /// The triples in the order the document wrote them, each with the 1-based line it was
    /// read on (empty for a graph not read from Turtle): the DNA front end's diagnostics name
    /// lines, and it reads shapes in the order they are written.
    read: Vec<(Triple, u32)>,
}

#[derive(Default)]
struct Terms {
    list: Vec<Term>,
    iris: HashMap<Arc<str>, u32>,
    blanks: HashMap<Arc<str>, u32>,
    literals: HashMap<Arc<Literal>, u32>,
}

impl Terms {
    fn id(&self, term: &Term) -> Option<u32> {
        match term {
            Term::Iri(iri) => self.iris.get(&**iri).copied(),
            Term::Blank(label) => self.blanks.get(&**label).copied(),
            Term::Literal(l) => self.literals.get(&**l).copied(),
        }
    }

    fn iri_id(&self, iri: &str) -> Option<u32> {
        self.iris.get(iri).copied()
    }

    fn intern(&mut self, term: Term) -> u32 {
        if let Some(id) = self.id(&term) {
            return id;
        }
        let id = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        match &term {
            Term::Iri(iri) => self.iris.insert(iri.clone(), id),
            Term::Blank(label) => self.blanks.insert(label.clone(), id),
            Term::Literal(l) => self.literals.insert(l.clone(), id),
        };
        self.list.push(term);
        id
    }

    fn get(&self, id: u32) -> &Term {
        &self.list[id as usize]
    }
}

/// Collects triples, then sorts them into a [`MemoryGraph`] (duplicates dropped: a graph is a set).
#[derive(Default)]
pub struct GraphBuilder {
    terms: Terms,
    triples: Vec<Triple>,
    /// The line of each triple, when every one was added with [`GraphBuilder::add_read`].
    lines: Vec<u32>,
}

impl GraphBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, subject: Term, predicate: Term, object: Term) {
        let s = self.terms.intern(subject);
        let p = self.terms.intern(predicate);
        let o = self.terms.intern(object);
        self.triples.push([s, p, o]);
    }

    /// [`GraphBuilder::add`] for a triple read from a document on `line`.
    pub(super) fn add_read(&mut self, subject: Term, predicate: Term, object: Term, line: u32) {
        self.add(subject, predicate, object);
        self.lines.push(line);
    }

    pub fn build(self) -> MemoryGraph {
        let read = if self.lines.len() == self.triples.len() {
            as_read(&self.triples, &self.lines)
        } else {
            Vec::new()
        };
        let mut spo = self.triples;
        spo.sort_unstable();
        spo.dedup();
        let mut pos: Vec<Triple> = spo.iter().map(|&[s, p, o]| [p, o, s]).collect();
        pos.sort_unstable();
        MemoryGraph {
            terms: self.terms,
            spo,
            pos,
            prefixes: Vec::new(),
            read,
        }
    }
}

/// The triples with their lines, a triple written twice kept where it was first read.
fn as_read(triples: &[Triple], lines: &[u32]) -> Vec<(Triple, u32)> {
    let mut seen = std::collections::HashSet::new();
    triples
        .iter()
        .zip(lines)
        .filter(|(t, _)| seen.insert(**t))
        .map(|(t, line)| (*t, *line))
        .collect()
}

impl MemoryGraph {
    /// The prefixes the document declared, as `(prefix, namespace)`.
    pub fn prefixes(&self) -> &[(String, String)] {
        &self.prefixes
    }

    /// Number of triples.
    pub fn len(&self) -> usize {
        self.spo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spo.is_empty()
    }

    /// Every triple, in subject-predicate-object order of first appearance.
    pub fn triples(&self) -> impl Iterator<Item = (&Term, &Term, &Term)> + '_ {
        self.spo
            .iter()
            .map(|&[s, p, o]| (self.terms.get(s), self.terms.get(p), self.terms.get(o)))
    }

    /// Every triple in the order the document wrote it, with the 1-based line it was read on;
    /// nothing for a graph not read from Turtle.
    pub fn triples_as_read(&self) -> impl Iterator<Item = ((&Term, &Term, &Term), u32)> + '_ {
        self.read
            .iter()
            .map(|&([s, p, o], line)| ((self.terms.get(s), self.terms.get(p), self.terms.get(o)), line))
    }

    fn terms_of(&self, ids: impl Iterator<Item = u32>) -> Vec<Term> {
        ids.map(|id| self.terms.get(id).clone()).collect()
    }
}

/// The triples of `sorted` whose first element is `a`.
fn range1(sorted: &[Triple], a: u32) -> &[Triple] {
    let lo = sorted.partition_point(|t| t[0] < a);
    let hi = sorted.partition_point(|t| t[0] <= a);
    &sorted[lo..hi]
}

/// The triples of `sorted` whose first two elements are `a`, `b`.
fn range2(sorted: &[Triple], a: u32, b: u32) -> &[Triple] {
    let lo = sorted.partition_point(|t| (t[0], t[1]) < (a, b));
    let hi = sorted.partition_point(|t| (t[0], t[1]) <= (a, b));
    &sorted[lo..hi]
}

impl Graph for MemoryGraph {
    fn objects(&self, subject: &Term, predicate: &str) -> Vec<Term> {
        match (self.terms.id(subject), self.terms.iri_id(predicate)) {
            (Some(s), Some(p)) => self.terms_of(range2(&self.spo, s, p).iter().map(|t| t[2])),
            _ => Vec::new(),
        }
    }

    fn subjects(&self, predicate: &str, object: &Term) -> Vec<Term> {
        match (self.terms.iri_id(predicate), self.terms.id(object)) {
            (Some(p), Some(o)) => self.terms_of(range2(&self.pos, p, o).iter().map(|t| t[2])),
            _ => Vec::new(),
        }
    }

    fn outgoing(&self, subject: &Term) -> Vec<(Term, Term)> {
        let Some(s) = self.terms.id(subject) else {
            return Vec::new();
        };
        range1(&self.spo, s)
            .iter()
            .map(|t| (self.terms.get(t[1]).clone(), self.terms.get(t[2]).clone()))
            .collect()
    }

    fn subjects_with(&self, predicate: &str) -> Vec<Term> {
        let Some(p) = self.terms.iri_id(predicate) else {
            return Vec::new();
        };
        let mut ids: Vec<u32> = range1(&self.pos, p).iter().map(|t| t[2]).collect();
        ids.sort_unstable();
        ids.dedup();
        self.terms_of(ids.into_iter())
    }

    fn objects_with(&self, predicate: &str) -> Vec<Term> {
        let Some(p) = self.terms.iri_id(predicate) else {
            return Vec::new();
        };
        let mut ids: Vec<u32> = range1(&self.pos, p).iter().map(|t| t[1]).collect();
        ids.dedup();
        self.terms_of(ids.into_iter())
    }

    fn contains(&self, subject: &Term, predicate: &str, object: &Term) -> bool {
        match (
            self.terms.id(subject),
            self.terms.iri_id(predicate),
            self.terms.id(object),
        ) {
            (Some(s), Some(p), Some(o)) => self.spo.binary_search(&[s, p, o]).is_ok(),
            _ => false,
        }
    }

    fn position(&self, term: &Term) -> Option<usize> {
        self.terms.id(term).map(|id| id as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EX: &str = "@prefix ex: <http://ex/> .\n";

    fn graph(text: &str) -> MemoryGraph {
        MemoryGraph::read_turtle(format!("{EX}{text}").as_bytes(), None).unwrap()
    }

    #[test]
    fn lookups_in_both_directions() {
        let g = graph("ex:a ex:p ex:b, ex:c ; ex:q 1 . ex:d ex:p ex:b . ex:a ex:p ex:b .");
        let (a, b) = (Term::iri("http://ex/a"), Term::iri("http://ex/b"));
        assert_eq!(g.len(), 4);
        assert_eq!(g.objects(&a, "http://ex/p"), [b.clone(), Term::iri("http://ex/c")]);
        assert_eq!(g.subjects("http://ex/p", &b), [a.clone(), Term::iri("http://ex/d")]);
        assert_eq!(g.subjects_with("http://ex/p"), [a.clone(), Term::iri("http://ex/d")]);
        assert_eq!(g.objects_with("http://ex/p").len(), 2);
        assert_eq!(g.outgoing(&a).len(), 3);
        assert!(g.contains(&a, "http://ex/p", &b));
        assert!(!g.contains(&b, "http://ex/p", &a));
        assert!(g.objects(&a, "http://ex/none").is_empty());
        assert!(g.objects(&Term::iri("http://ex/none"), "http://ex/p").is_empty());
    }
}
