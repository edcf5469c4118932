//! RDF lists (`rdf:first` / `rdf:rest` chains ending in `rdf:nil`): the one walker for the
//! validator's shapes reader, its property paths and the DNA front end, each of which words
//! a [`ListError`] its own way.

use std::collections::HashSet;

use super::graph::Graph;
use super::term::Term;
use super::vocab::{RDF_FIRST, RDF_NIL, RDF_REST};

/// What is wrong with an RDF list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListError {
    /// A literal stands where a list node was expected.
    NotANode(Term),
    /// The list comes back to a node it passed.
    Circular,
    /// A list node without exactly one `rdf:first` and one `rdf:rest`.
    Malformed { node: Term, firsts: usize, rests: usize },
}

/// The members of the RDF list at `head`, in order (`rdf:nil` is the empty list).
pub fn list_members(graph: &dyn Graph, head: &Term) -> Result<Vec<Term>, ListError> {
    let mut members = Vec::new();
    let mut seen = HashSet::new();
    let mut node = head.clone();
    while node.as_iri() != Some(RDF_NIL) {
        if node.is_literal() {
            return Err(ListError::NotANode(node));
        }
        if !seen.insert(node.clone()) {
            return Err(ListError::Circular);
        }
        let first = graph.objects(&node, RDF_FIRST);
        let rest = graph.objects(&node, RDF_REST);
        match (first.as_slice(), rest.as_slice()) {
            ([item], [next]) => {
                members.push(item.clone());
                node = next.clone();
            }
            _ => {
                let (firsts, rests) = (first.len(), rest.len());
                return Err(ListError::Malformed { node, firsts, rests });
            }
        }
    }
    Ok(members)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shacl::MemoryGraph;

    fn members(text: &str) -> Result<Vec<String>, ListError> {
        let text = format!("@prefix ex: <http://ex/> .\n{text}");
        let graph = MemoryGraph::read_turtle(text.as_bytes(), None).unwrap();
        let head = graph.objects(&Term::iri("http://ex/s"), "http://ex/p").remove(0);
        list_members(&graph, &head).map(|m| m.iter().map(Term::to_string).collect())
    }

    #[test]
    fn walks_lists_and_says_what_is_wrong() {
        assert_eq!(
            members("ex:s ex:p ( 1 ex:a ) ."),
            Ok(vec!["\"1\"^^xsd:integer".into(), "<http://ex/a>".into()])
        );
        assert_eq!(members("ex:s ex:p () ."), Ok(vec![]));
        assert_eq!(
            members("ex:s ex:p \"x\" ."),
            Err(ListError::NotANode(Term::string("x")))
        );
        assert_eq!(
            members(
                "ex:s ex:p ex:l . ex:l <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> 1 ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> ex:l ."
            ),
            Err(ListError::Circular)
        );
        assert!(matches!(
            members("ex:s ex:p ex:l ."),
            Err(ListError::Malformed {
                firsts: 0,
                rests: 0,
                ..
            })
        ));
    }
}
