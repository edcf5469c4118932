//! Turtle text to a small in-memory graph: the triples in document order, each with the line
//! it was read on, blank nodes numbered in order of first appearance (oxttl names anonymous
//! blank nodes at random; the numbering keeps diagnostics deterministic).

use std::collections::HashMap;

use oxrdf::{NamedOrBlankNode, Term};
use oxttl::TurtleParser;

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
    /// Anything else oxrdf may give (RDF 1.2 triple terms), as text.
    Other(String),
}

#[derive(Clone, Debug)]
pub(super) struct Triple {
    pub(super) subject: Node,
    pub(super) predicate: String,
    pub(super) object: Obj,
    /// 1-based line on which the parser produced the triple (where its object ends, or close).
    pub(super) line: u32,
}

/// A syntax error with its 1-based position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SyntaxError {
    pub(super) message: String,
    pub(super) line: u32,
    pub(super) column: u32,
}

pub(super) struct Graph<'a> {
    pub(super) triples: Vec<Triple>,
    /// Subjects in order of first appearance as a subject.
    pub(super) subjects: Vec<Node>,
    by_subject: HashMap<Node, Vec<usize>>,
    /// `(prefix, namespace)` as declared, for finding an IRI in the text.
    prefixes: Vec<(String, String)>,
    lines: Vec<&'a str>,
}

impl<'a> Graph<'a> {
    /// Parses the whole text; every syntax error when there is one. Relative IRIs resolve
    /// against `base` (the file's URL, as `shacl-mcp validate` and rdflib read it).
    pub(super) fn read(text: &'a str, base: Option<&str>) -> Result<Self, Vec<SyntaxError>> {
        let mut parser = TurtleParser::new();
        if let Some(base) = base
            && let Ok(with_base) = parser.clone().with_base_iri(base)
        {
            parser = with_base;
        }
        let mut parser = parser.low_level();
        let mut blanks: HashMap<oxrdf::BlankNode, usize> = HashMap::new();
        let mut triples = Vec::new();
        let mut errors = Vec::new();
        let mut chunks = text.split_inclusive('\n');
        let mut line: u32 = 0;
        let mut ended = false;
        // Fed one line at a time, so that each triple comes out with the line it was read on.
        loop {
            while let Some(result) = parser.parse_next() {
                match result {
                    Ok(t) => {
                        let subject = match t.subject {
                            NamedOrBlankNode::NamedNode(n) => Node::Iri(n.into_string()),
                            NamedOrBlankNode::BlankNode(b) => blank(&mut blanks, b),
                        };
                        let object = object(&mut blanks, t.object);
                        triples.push(Triple {
                            subject,
                            predicate: t.predicate.into_string(),
                            object,
                            line: line.max(1),
                        });
                    }
                    Err(e) => {
                        let at = e.location().start;
                        errors.push(SyntaxError {
                            message: e.message().to_string(),
                            line: u32::try_from(at.line.saturating_add(1)).unwrap_or(u32::MAX),
                            column: u32::try_from(at.column.saturating_add(1)).unwrap_or(u32::MAX),
                        });
                    }
                }
            }
            if ended || parser.is_end() {
                break;
            }
            match chunks.next() {
                Some(chunk) => {
                    line = line.saturating_add(1);
                    parser.extend_from_slice(chunk.as_bytes());
                }
                None => {
                    parser.end();
                    ended = true;
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        // A graph is a set: a triple written twice (two files concatenated, a repeated
        // statement) is one triple, kept where it was first read.
        let mut seen = std::collections::HashSet::new();
        triples.retain(|t| seen.insert((t.subject.clone(), t.predicate.clone(), format!("{:?}", t.object))));
        let prefixes = parser
            .prefixes()
            .map(|(p, ns)| (p.to_string(), ns.to_string()))
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
        Ok(Graph {
            triples,
            subjects,
            by_subject,
            prefixes,
            lines: text.lines().collect(),
        })
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
        self.prefixes
            .iter()
            .filter_map(|(prefix, ns)| Some((prefix, ns.len(), iri.strip_prefix(ns.as_str())?)))
            .filter(|(_, _, local)| simple(local))
            .max_by_key(|(_, len, _)| *len)
            .map(|(prefix, _, local)| format!("{prefix}:{local}"))
            .unwrap_or_else(|| format!("<{iri}>"))
    }

    /// The declared prefix of the namespace `iri` is in, if any.
    pub(super) fn prefix_of(&self, iri: &str) -> Option<&str> {
        self.prefixes
            .iter()
            .filter(|(_, ns)| iri.starts_with(ns.as_str()))
            .max_by_key(|(_, ns)| ns.len())
            .map(|(p, _)| p.as_str())
    }

    /// `<iri>` and every `prefix:local` spelling of it.
    fn written_forms(&self, iri: &str) -> Vec<String> {
        let mut forms = vec![format!("<{iri}>")];
        for (prefix, ns) in &self.prefixes {
            if let Some(local) = iri.strip_prefix(ns.as_str()) {
                forms.push(format!("{prefix}:{local}"));
            }
        }
        forms
    }
}

fn blank(blanks: &mut HashMap<oxrdf::BlankNode, usize>, b: oxrdf::BlankNode) -> Node {
    let next = blanks.len();
    Node::Blank(*blanks.entry(b).or_insert(next))
}

fn object(blanks: &mut HashMap<oxrdf::BlankNode, usize>, term: Term) -> Obj {
    if let Term::NamedNode(n) = term {
        Obj::Node(Node::Iri(n.into_string()))
    } else if let Term::BlankNode(b) = term {
        Obj::Node(blank(blanks, b))
    } else if let Term::Literal(l) = term {
        Obj::Literal(Lit {
            value: l.value().to_string(),
            datatype: l.datatype().as_str().to_string(),
            language: l.language().map(str::to_string),
        })
    } else {
        Obj::Other(term.to_string())
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
