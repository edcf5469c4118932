//! SHACL property paths (§2.3.1): read from the shapes graph, evaluated over the data graph,
//! written as SPARQL property paths (for people) or as RDF (for the report graph).

use std::collections::HashSet;
use std::fmt;

use super::graph::Graph;
use super::list::{ListError, list_members};
use super::term::Term;
use super::vocab::{RDF_FIRST, sh};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Path {
    /// An IRI: the values of that predicate.
    Predicate(Term),
    Inverse(Box<Path>),
    Sequence(Vec<Path>),
    Alternative(Vec<Path>),
    ZeroOrMore(Box<Path>),
    OneOrMore(Box<Path>),
    ZeroOrOne(Box<Path>),
}

/// Paths nested deeper than this are refused (a cycle in the shapes graph, not a path).
const MAX_DEPTH: usize = 64;

impl Path {
    pub fn predicate(iri: &str) -> Path {
        Path::Predicate(Term::iri(iri))
    }

    /// Reads the path rooted at `node`. A list is a sequence path even when the node says
    /// more (as in the suite's "strange" paths); otherwise the one path predicate it has.
    pub fn parse(graph: &dyn Graph, node: &Term) -> Result<Path, String> {
        parse(graph, node, 0)
    }

    /// The predicate IRI of a predicate path.
    pub fn as_predicate(&self) -> Option<&str> {
        match self {
            Path::Predicate(p) => p.as_iri(),
            _ => None,
        }
    }

    /// The value nodes of `focus` along this path, each once, in the order found.
    pub fn values(&self, graph: &dyn Graph, focus: &Term) -> Vec<Term> {
        if let Path::Predicate(Term::Iri(p)) = self {
            return graph.objects(focus, p);
        }
        self.step(graph, std::slice::from_ref(focus), false)
    }

    /// Every node reached from any of `from` (a set), forward or backward.
    fn step(&self, graph: &dyn Graph, from: &[Term], inverse: bool) -> Vec<Term> {
        let mut out = Ordered::default();
        match self {
            Path::Predicate(p) => {
                let p = p.as_iri().unwrap_or_default();
                for node in from {
                    out.extend(if inverse {
                        graph.subjects(p, node)
                    } else {
                        graph.objects(node, p)
                    });
                }
            }
            Path::Inverse(inner) => return inner.step(graph, from, !inverse),
            Path::Sequence(parts) => {
                let mut current = from.to_vec();
                let ordered: Box<dyn Iterator<Item = &Path>> = if inverse {
                    Box::new(parts.iter().rev())
                } else {
                    Box::new(parts.iter())
                };
                for part in ordered {
                    current = part.step(graph, &current, inverse);
                }
                return current;
            }
            Path::Alternative(parts) => {
                for part in parts {
                    out.extend(part.step(graph, from, inverse));
                }
            }
            Path::ZeroOrMore(inner) => {
                out.extend(from.iter().cloned());
                out.extend(inner.closure(graph, from, inverse));
            }
            Path::OneOrMore(inner) => out.extend(inner.closure(graph, from, inverse)),
            Path::ZeroOrOne(inner) => {
                out.extend(from.iter().cloned());
                out.extend(inner.step(graph, from, inverse));
            }
        }
        out.list
    }

    /// Nodes reached by one or more steps.
    fn closure(&self, graph: &dyn Graph, from: &[Term], inverse: bool) -> Vec<Term> {
        let mut reached = Ordered::default();
        let mut frontier = self.step(graph, from, inverse);
        while !frontier.is_empty() {
            let fresh: Vec<Term> = frontier.into_iter().filter(|t| reached.insert(t.clone())).collect();
            frontier = if fresh.is_empty() {
                Vec::new()
            } else {
                self.step(graph, &fresh, inverse)
            };
        }
        reached.list
    }

    /// The path in Turtle: `<p>`, `[ sh:inversePath <p> ]`, `( <a> <b> )`, ...
    pub fn turtle(&self) -> String {
        let list = |parts: &[Path]| {
            let items: Vec<String> = parts.iter().map(Path::turtle).collect();
            format!("( {} )", items.join(" "))
        };
        match self {
            Path::Predicate(p) => p.to_string(),
            Path::Inverse(inner) => format!("[ sh:inversePath {} ]", inner.turtle()),
            Path::ZeroOrMore(inner) => format!("[ sh:zeroOrMorePath {} ]", inner.turtle()),
            Path::OneOrMore(inner) => format!("[ sh:oneOrMorePath {} ]", inner.turtle()),
            Path::ZeroOrOne(inner) => format!("[ sh:zeroOrOnePath {} ]", inner.turtle()),
            Path::Sequence(parts) => list(parts),
            Path::Alternative(parts) => format!("[ sh:alternativePath {} ]", list(parts)),
        }
    }

    /// SPARQL property path syntax with each predicate written by `term`.
    pub fn sparql(&self, term: &dyn Fn(&Term) -> String) -> String {
        let grouped = |p: &Path| match p {
            Path::Sequence(_) | Path::Alternative(_) => format!("({})", p.sparql(term)),
            _ => p.sparql(term),
        };
        match self {
            Path::Predicate(p) => term(p),
            Path::Inverse(inner) => format!("^{}", grouped(inner)),
            Path::Sequence(parts) | Path::Alternative(parts) => {
                let sep = if matches!(self, Path::Sequence(_)) { "/" } else { "|" };
                parts.iter().map(grouped).collect::<Vec<_>>().join(sep)
            }
            Path::ZeroOrMore(inner) => format!("{}*", grouped(inner)),
            Path::OneOrMore(inner) => format!("{}+", grouped(inner)),
            Path::ZeroOrOne(inner) => format!("{}?", grouped(inner)),
        }
    }
}

/// SPARQL property path syntax: `<p>`, `^<p>`, `<a>/<b>`, `(<a>|<b>)`, `<p>*`, `<p>+`, `<p>?`.
impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.sparql(&|t: &Term| t.to_string()))
    }
}

fn parse(graph: &dyn Graph, node: &Term, depth: usize) -> Result<Path, String> {
    if depth > MAX_DEPTH {
        return Err(format!("the path at {node} nests too deeply (a cycle?)"));
    }
    let one = |local: &str| -> Result<Option<Term>, String> {
        let values = graph.objects(node, &sh(local));
        match values.len() {
            0 => Ok(None),
            1 => Ok(values.into_iter().next()),
            n => Err(format!("the path at {node} has {n} values of sh:{local}")),
        }
    };
    match node {
        Term::Iri(_) => return Ok(Path::Predicate(node.clone())),
        Term::Literal(_) => return Err(format!("{node} is a literal, not a path")),
        Term::Blank(_) => {}
    }
    if !graph.objects(node, RDF_FIRST).is_empty() {
        let members = read_list(graph, node)?;
        if members.len() < 2 {
            return Err(format!("the sequence path at {node} has fewer than two members"));
        }
        let parts = members
            .iter()
            .map(|m| parse(graph, m, depth + 1))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Path::Sequence(parts));
    }
    if let Some(list) = one("alternativePath")? {
        let members = read_list(graph, &list)?;
        if members.len() < 2 {
            return Err(format!("the alternative path at {node} has fewer than two members"));
        }
        let parts = members
            .iter()
            .map(|m| parse(graph, m, depth + 1))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Path::Alternative(parts));
    }
    type Wrap = fn(Box<Path>) -> Path;
    let unary: [(&str, Wrap); 4] = [
        ("inversePath", Path::Inverse),
        ("zeroOrMorePath", Path::ZeroOrMore),
        ("oneOrMorePath", Path::OneOrMore),
        ("zeroOrOnePath", Path::ZeroOrOne),
    ];
    for (local, wrap) in unary {
        if let Some(inner) = one(local)? {
            return Ok(wrap(Box::new(parse(graph, &inner, depth + 1)?)));
        }
    }
    Err(format!("{node} is not a SHACL property path"))
}

/// The members of the RDF list at `head`, in order (`rdf:nil` is the empty list); `Err` says
/// what is wrong, as the shapes reader reports it.
pub fn read_list(graph: &dyn Graph, head: &Term) -> Result<Vec<Term>, String> {
    list_members(graph, head).map_err(|e| match e {
        ListError::Circular => format!("the list at {head} is cyclic"),
        ListError::NotANode(node) | ListError::Malformed { node, .. } => {
            format!("{head} is not a well-formed RDF list (at {node})")
        }
    })
}

/// A list that keeps the first occurrence of each term.
#[derive(Default)]
struct Ordered {
    list: Vec<Term>,
    seen: HashSet<Term>,
}

impl Ordered {
    fn insert(&mut self, t: Term) -> bool {
        if self.seen.insert(t.clone()) {
            self.list.push(t);
            true
        } else {
            false
        }
    }

    fn extend(&mut self, terms: impl IntoIterator<Item = Term>) {
        for t in terms {
            self.insert(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shacl::graph::MemoryGraph;

    fn graph(text: &str) -> MemoryGraph {
        let text = format!("@prefix ex: <http://ex/> . @prefix sh: <http://www.w3.org/ns/shacl#> .\n{text}");
        MemoryGraph::read_turtle(text.as_bytes(), None).unwrap()
    }

    fn path_of(g: &MemoryGraph) -> Path {
        let node = g.objects(&Term::iri("http://ex/s"), &sh("path")).remove(0);
        Path::parse(g, &node).unwrap()
    }

    fn iri(local: &str) -> Term {
        Term::iri(&format!("http://ex/{local}"))
    }

    #[test]
    fn every_form_parses_prints_and_evaluates() {
        let data = "ex:a ex:p ex:b . ex:b ex:p ex:c . ex:c ex:q ex:d . ex:e ex:p ex:a .";
        let cases = [
            ("ex:p", "<http://ex/p>", vec!["b"]),
            ("[ sh:inversePath ex:p ]", "^<http://ex/p>", vec!["e"]),
            ("( ex:p ex:p )", "<http://ex/p>/<http://ex/p>", vec!["c"]),
            (
                "[ sh:alternativePath ( ex:p [ sh:inversePath ex:p ] ) ]",
                "<http://ex/p>|^<http://ex/p>",
                vec!["b", "e"],
            ),
            ("[ sh:zeroOrMorePath ex:p ]", "<http://ex/p>*", vec!["a", "b", "c"]),
            ("[ sh:oneOrMorePath ex:p ]", "<http://ex/p>+", vec!["b", "c"]),
            ("[ sh:zeroOrOnePath ex:p ]", "<http://ex/p>?", vec!["a", "b"]),
            (
                "[ sh:inversePath ( ex:p ex:q ) ]",
                "^(<http://ex/p>/<http://ex/q>)",
                vec![],
            ),
            (
                "( [ sh:oneOrMorePath ex:p ] ex:q )",
                "<http://ex/p>+/<http://ex/q>",
                vec!["d"],
            ),
        ];
        for (written, shown, expected) in cases {
            let g = graph(&format!("ex:s sh:path {written} . {data}"));
            let path = path_of(&g);
            assert_eq!(path.to_string(), shown, "{written}");
            let values: Vec<Term> = expected.iter().map(|l| iri(l)).collect();
            assert_eq!(path.values(&g, &iri("a")), values, "{written}");
        }
        // Inverse of a sequence, from the other end.
        let g = graph(&format!("ex:s sh:path [ sh:inversePath ( ex:p ex:q ) ] . {data}"));
        assert_eq!(path_of(&g).values(&g, &iri("d")), [iri("b")]);
    }

    #[test]
    fn ill_formed_paths_are_errors() {
        for written in ["\"p\"", "[ ex:x ex:y ]", "( ex:p )", "[ sh:alternativePath ( ex:p ) ]"] {
            let g = graph(&format!("ex:s sh:path {written} ."));
            let node = g.objects(&iri("s"), &sh("path")).remove(0);
            assert!(Path::parse(&g, &node).is_err(), "{written}");
        }
    }

    #[test]
    fn paths_round_trip_through_turtle() {
        let g = graph(
            "ex:s sh:path ( [ sh:inversePath ex:p ] [ sh:alternativePath ( ex:q [ sh:zeroOrOnePath ex:r ] ) ] \
             [ sh:zeroOrMorePath ex:p ] [ sh:oneOrMorePath ex:q ] ) .",
        );
        let path = path_of(&g);
        let again = graph(&format!("ex:s sh:path {} .", path.turtle()));
        assert_eq!(path_of(&again), path);
    }
}
