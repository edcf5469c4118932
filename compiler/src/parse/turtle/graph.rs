//! The DNA front end's view of a shapes graph read by the validator's loader
//! ([`MemoryGraph::read_turtle_every_error`]): the triples in document order, each with the
//! line it was read on, blank nodes numbered in order of first appearance (oxttl names
//! anonymous blank nodes at random; the numbering keeps diagnostics deterministic), and the
//! text for finding where a subject is written.

use std::collections::HashMap;
use std::sync::Arc;

use crate::shacl::list::{ListError, list_members};
use crate::shacl::{Literal, MemoryGraph, Term};

/// A subject, or an object that is not a literal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Node {
    Iri(String),
    /// A blank node, numbered from 0 in order of first appearance.
    Blank(usize),
}

impl Node {
    /// The IRI, or `_:bN` for a blank node.
    pub(super) fn label(&self) -> String {
        match self {
            Node::Iri(iri) => iri.clone(),
            Node::Blank(n) => format!("_:b{n}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Lit {
    pub(super) value: String,
    /// Full datatype IRI (`xsd:string` for simple literals, `rdf:langString` with a language).
    pub(super) datatype: String,
    pub(super) language: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Obj {
    Node(Node),
    Literal(Lit),
}

#[derive(Clone, Debug)]
pub(super) struct Triple {
    pub(super) subject: Node,
    pub(super) predicate: String,
    pub(super) object: Obj,
    /// 1-based line on which the parser produced the triple (where its object ends, or close).
    pub(super) line: u32,
}

pub(super) struct Graph<'a> {
    pub(super) triples: Vec<Triple>,
    /// Subjects in order of first appearance as a subject.
    pub(super) subjects: Vec<Node>,
    by_subject: HashMap<Node, Vec<usize>>,
    lines: Vec<&'a str>,
    /// The graph this is a view of: its lists, and its prefixes for finding an IRI in the text.
    graph: &'a MemoryGraph,
    blanks: Blanks,
}

impl<'a> Graph<'a> {
    /// The view of `graph`, read from `text`.
    pub(super) fn new(graph: &'a MemoryGraph, text: &'a str) -> Self {
        let mut blanks = Blanks::default();
        let triples: Vec<Triple> = graph
            .triples_as_read()
            .map(|((s, p, o), line)| Triple {
                subject: blanks.node(s),
                predicate: p.as_iri().unwrap_or_default().to_string(),
                object: blanks.object(o),
                line,
            })
            .collect();
        let mut subjects = Vec::new();
        let mut by_subject: HashMap<Node, Vec<usize>> = HashMap::new();
        for (i, t) in triples.iter().enumerate() {
            let entry = by_subject.entry(t.subject.clone()).or_default();
            if entry.is_empty() {
                subjects.push(t.subject.clone());
            }
            entry.push(i);
        }
        Graph {
            triples,
            subjects,
            by_subject,
            lines: text.lines().collect(),
            graph,
            blanks,
        }
    }

    /// The members of an RDF list, or what is wrong with it.
    pub(super) fn list(&self, head: &Obj) -> Result<Vec<Obj>, String> {
        let head = match head {
            Obj::Node(node) => self.blanks.term(node),
            Obj::Literal(l) => Term::Literal(Arc::new(Literal {
                lexical: l.value.clone(),
                datatype: l.datatype.clone(),
                language: l.language.clone(),
            })),
        };
        match list_members(self.graph, &head) {
            Ok(members) => Ok(members.iter().map(|m| self.blanks.known_object(m)).collect()),
            Err(ListError::NotANode(term)) => Err(format!(
                "{} stands where a list node was expected",
                super::values::show(&self.blanks.known_object(&term))
            )),
            Err(ListError::Circular) => Err("the list is circular".to_string()),
            Err(ListError::Malformed { node, firsts, rests }) => Err(format!(
                "list node {} has {firsts} rdf:first and {rests} rdf:rest (one of each is needed)",
                self.blanks.known_node(&node).label()
            )),
        }
    }

    /// The triples whose subject is `node`, in document order.
    pub(super) fn about(&self, node: &Node) -> impl Iterator<Item = &Triple> + '_ {
        self.by_subject
            .get(node)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|&i| self.triples.get(i))
    }

    pub(super) fn is_subject(&self, node: &Node) -> bool {
        self.by_subject.contains_key(node)
    }

    /// The objects of `node`'s `predicate` triples, in document order.
    pub(super) fn objects(&self, node: &Node, predicate: &str) -> Vec<&Obj> {
        self.about(node)
            .filter(|t| t.predicate == predicate)
            .map(|t| &t.object)
            .collect()
    }

    pub(super) fn has(&self, node: &Node, predicate: &str) -> bool {
        self.about(node).any(|t| t.predicate == predicate)
    }

    pub(super) fn has_object(&self, node: &Node, predicate: &str, iri: &str) -> bool {
        self.about(node)
            .any(|t| t.predicate == predicate && matches!(&t.object, Obj::Node(Node::Iri(o)) if o == iri))
    }

    /// A line where `node` is written as a subject: the line of its first triple, moved back
    /// to the nearest line above that names it (the subject usually opens the block).
    pub(super) fn line_of(&self, node: &Node) -> Option<u32> {
        let first = self.about(node).next()?.line;
        let Node::Iri(iri) = node else {
            return Some(first);
        };
        let forms = self.written_forms(iri);
        let lowest = first.saturating_sub(50).max(1);
        (lowest..=first)
            .rev()
            .find(|&l| {
                let text = self.text_line(l);
                forms.iter().any(|f| contains_name(text, f))
            })
            .or(Some(first))
    }

    fn text_line(&self, line: u32) -> &str {
        let index = usize::try_from(line.saturating_sub(1)).unwrap_or(usize::MAX);
        let text = self.lines.get(index).copied().unwrap_or("");
        // Not inside a comment (a `#` in an IRI is rare enough before the name itself).
        match text.trim_start().strip_prefix('#') {
            Some(_) => "",
            None => text,
        }
    }

    /// `prefix:local` for an IRI in a namespace the document declared (the longest one), else
    /// `<iri>`: how messages write IRIs.
    pub(super) fn compact(&self, iri: &str) -> String {
        let simple = |local: &str| local.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-'));
        self.graph
            .prefixes()
            .iter()
            .filter_map(|(prefix, ns)| Some((prefix, ns.len(), iri.strip_prefix(ns.as_str())?)))
            .filter(|(_, _, local)| simple(local))
            .max_by_key(|(_, len, _)| *len)
            .map(|(prefix, _, local)| format!("{prefix}:{local}"))
            .unwrap_or_else(|| format!("<{iri}>"))
    }

    /// The declared prefix of the namespace `iri` is in, if any.
    pub(super) fn prefix_of(&self, iri: &str) -> Option<&str> {
        self.graph
            .prefixes()
            .iter()
            .filter(|(_, ns)| iri.starts_with(ns.as_str()))
            .max_by_key(|(_, ns)| ns.len())
            .map(|(p, _)| p.as_str())
    }

    /// `<iri>` and every `prefix:local` spelling of it.
    fn written_forms(&self, iri: &str) -> Vec<String> {
        let mut forms = vec![format!("<{iri}>")];
        for (prefix, ns) in self.graph.prefixes() {
            if let Some(local) = iri.strip_prefix(ns.as_str()) {
                forms.push(format!("{prefix}:{local}"));
            }
        }
        forms
    }
}

/// The graph's blank nodes numbered in order of first appearance, both ways.
#[derive(Default)]
struct Blanks {
    numbers: HashMap<Term, usize>,
    terms: Vec<Term>,
}

impl Blanks {
    /// `term` as a node, numbering it when it is a blank node not seen before.
    fn node(&mut self, term: &Term) -> Node {
        if term.is_blank() && !self.numbers.contains_key(term) {
            self.numbers.insert(term.clone(), self.terms.len());
            self.terms.push(term.clone());
        }
        self.known_node(term)
    }

    fn object(&mut self, term: &Term) -> Obj {
        match term {
            Term::Literal(_) => self.known_object(term),
            node => Obj::Node(self.node(node)),
        }
    }

    /// A node of the graph (every blank node of it is numbered).
    fn known_node(&self, term: &Term) -> Node {
        match term {
            // Not in the graph: past every number the graph has.
            Term::Blank(_) => Node::Blank(self.numbers.get(term).copied().unwrap_or(self.terms.len())),
            // A literal is never a subject; an RDF 1.2 triple term comes as its text.
            other => Node::Iri(other.text().unwrap_or_default().to_string()),
        }
    }

    fn known_object(&self, term: &Term) -> Obj {
        match term {
            Term::Literal(l) => Obj::Literal(Lit {
                value: l.lexical.clone(),
                datatype: l.datatype.clone(),
                language: l.language.clone(),
            }),
            node => Obj::Node(self.known_node(node)),
        }
    }

    /// The term a node of the view stands for.
    fn term(&self, node: &Node) -> Term {
        match node {
            Node::Iri(iri) => Term::iri(iri),
            Node::Blank(n) => self
                .terms
                .get(*n)
                .cloned()
                .unwrap_or_else(|| Term::blank(&format!("unknown{n}"))),
        }
    }
}

/// Whether `text` holds `name` as a whole token (not part of a longer name).
fn contains_name(text: &str, name: &str) -> bool {
    let is_name_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | ':' | '%');
    text.match_indices(name).any(|(at, _)| {
        let before = text.get(..at).and_then(|s| s.chars().next_back());
        let after = text.get(at + name.len()..).and_then(|s| s.chars().next());
        let open = name.starts_with('<') || !before.is_some_and(|c| is_name_char(c) || c == '.');
        let close = name.ends_with('>') || !after.is_some_and(is_name_char);
        open && close
    })
}
