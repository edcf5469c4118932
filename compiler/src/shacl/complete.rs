//! The complete shapes of a DNA: what every validation of a perspective runs
//! (`validate_perspective`, flow guards, validated writes). One function, so that a write the
//! tools accept never fails `validate_perspective` (docs/validation.md).
//!
//! - A DNA read from a shapes graph (Turtle) keeps that graph's shapes as the validator reads
//!   them ([`DnaGraph`]), every shape with a target: class shapes, and shapes that target
//!   nodes, subjects or objects of a predicate. A class target naming a class of the DNA
//!   selects the nodes that carry the class's marker (docs/data-model.md, What makes a node an
//!   instance), and `sh:class` of a DNA class asks for that marker: in the data, instances are
//!   known by their markers, not by `rdf:type`.
//! - A class that the graph does not hold (a JSON DNA's, or one added with add_model) gets the
//!   shape derived from its model ([`super::dna::shapes`]).

use std::collections::HashMap;

use super::dna::Builder;
use super::graph::{GraphBuilder, MemoryGraph};
use super::shapes::{Constraint, Shapes, Target};
use super::term::Term;
use crate::model::{Class, RDF_TYPE};

/// A DNA's shapes graph (the union of its Turtle sources) read as the validator reads it, with
/// targets as written. Built once per DNA; [`complete_shapes`] maps it onto a perspective's
/// classes.
#[derive(Clone, Debug, Default)]
pub struct DnaGraph {
    shapes: Shapes,
}

impl DnaGraph {
    /// Reads the Turtle sources of a DNA as one graph (blank nodes kept apart per source), each
    /// `(text, base)`: relative IRIs resolve against the base, the file's URL, as the DNA front
    /// end reads them ([`crate::parse::file_base`]).
    /// `Err`: the syntax errors, or every ill-formed shape [`Shapes::from_graph`] finds.
    pub fn read(turtle: &[(&str, Option<&str>)]) -> Result<DnaGraph, Vec<String>> {
        let mut graphs = Vec::new();
        for (text, base) in turtle {
            let graph = MemoryGraph::read_turtle(text.as_bytes(), *base).map_err(|errors| {
                errors
                    .iter()
                    .map(|e| format!("Turtle syntax error at {}:{}: {}", e.line, e.column, e.message))
                    .collect::<Vec<_>>()
            })?;
            graphs.push(graph);
        }
        Self::from_graphs(&graphs)
    }

    /// [`DnaGraph::read`] for sources already read (by the DNA front end:
    /// [`crate::parse::parse_with_graph_at`]). `Err`: every ill-formed shape.
    pub fn from_graphs(graphs: &[MemoryGraph]) -> Result<DnaGraph, Vec<String>> {
        let shapes = Shapes::from_graph(&union(graphs))?;
        Ok(DnaGraph { shapes })
    }

    /// The shapes with targets, as read.
    pub fn shapes(&self) -> &Shapes {
        &self.shapes
    }

    /// Whether the graph has a shape for `class` (its node shape, or one targeting its class).
    pub fn holds(&self, class: &Class) -> bool {
        let target = Term::iri(&class.target_class);
        self.shapes.roots.iter().any(|&r| {
            let shape = &self.shapes.shapes[r];
            shape.node == Term::iri(&class.node_shape_uri) || shape.targets.contains(&Target::Class(target.clone()))
        })
    }
}

/// The graphs as one, blank nodes renamed `s<source>b<n>` in order of first appearance: kept
/// apart per source, and the same names on every load (the parser names anonymous blank nodes
/// at random, and results name their shape: the same DNA must give the same results).
fn union(graphs: &[MemoryGraph]) -> MemoryGraph {
    let mut builder = GraphBuilder::new();
    for (i, graph) in graphs.iter().enumerate() {
        let mut names: HashMap<Term, Term> = HashMap::new();
        let mut own = |t: &Term| match t {
            Term::Blank(_) => {
                let n = names.len();
                names
                    .entry(t.clone())
                    .or_insert_with(|| Term::blank(&format!("s{i}b{n}")))
                    .clone()
            }
            other => other.clone(),
        };
        for (s, p, o) in graph.triples() {
            let (s, o) = (own(s), own(o));
            builder.add(s, p.clone(), o);
        }
    }
    builder.build()
}

/// The shapes every validation of a perspective runs: the DNA's shapes graph (when it has one)
/// with class targets and `sh:class` of DNA classes mapped onto markers, then a derived shape
/// for each of `classes` the graph does not hold. `only`: just the shapes that target that
/// class (validate_perspective's `class_name`). `marker_term` turns a marker link's target into
/// the term the data graph holds.
pub fn complete_shapes(
    graph: Option<&DnaGraph>,
    classes: &[&Class],
    only: Option<&str>,
    marker_term: &dyn Fn(&str) -> Term,
) -> Shapes {
    let start = graph.map(|g| g.shapes.clone()).unwrap_or_default();
    let mut builder = Builder::new(classes, start, marker_term);
    if graph.is_some() {
        map_onto_markers(&mut builder);
        if let Some(name) = only {
            keep_roots_of(&mut builder, name);
        }
    }
    builder.derive(only, &|c| graph.is_none_or(|g| !g.holds(c)));
    builder.shapes
}

/// A class target or `sh:class` naming a class of the DNA: its marker instead.
fn map_onto_markers(builder: &mut Builder<'_>) {
    let class_of = |classes: &[&Class], term: &Term| -> Option<usize> {
        let iri = term.as_iri()?;
        classes.iter().position(|c| c.target_class == iri)
    };
    let classes = builder.classes;
    for r in 0..builder.shapes.shapes.len() {
        let mut targets = std::mem::take(&mut builder.shapes.shapes[r].targets);
        for target in &mut targets {
            if let Target::Class(term) = target
                && let Some(i) = class_of(classes, term)
            {
                *target = Target::Marker(builder.marker(classes[i]));
                builder.shapes.shapes[r].label = Some(classes[i].name.clone());
            }
        }
        builder.shapes.shapes[r].targets = targets;
        let mut constraints = std::mem::take(&mut builder.shapes.shapes[r].constraints);
        for c in &mut constraints {
            if let Constraint::Class(term) = c
                && let Some(i) = class_of(classes, term)
                && !typed_by_itself(classes[i])
            {
                *c = Constraint::Node(builder.marker_shape(classes[i]));
            }
        }
        builder.shapes.shapes[r].constraints = constraints;
    }
}

/// Whether a class's instances are exactly the nodes typed with its class IRI (its marker is
/// `rdf:type <class>`, as a Turtle class's default constructor writes): then `sh:class` means
/// the same as the marker and stays itself, reported as SHACL reports it.
fn typed_by_itself(class: &Class) -> bool {
    matches!(class.marker.as_slice(), [m] if m.predicate == RDF_TYPE && m.target == class.target_class)
}

/// Only the roots whose targets select instances of the class named `name`.
fn keep_roots_of(builder: &mut Builder<'_>, name: &str) {
    let Some(class) = builder.classes.iter().find(|c| c.name == name) else {
        builder.shapes.roots.clear();
        return;
    };
    let marker = Target::Marker(builder.marker(class));
    let shapes = &builder.shapes.shapes;
    builder.shapes.roots.retain(|&r| shapes[r].targets.contains(&marker));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MarkerLink;

    const SHAPES: &str = "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
        ex:AShape a sh:NodeShape ; sh:targetClass ex:A ;
            sh:property [ sh:path ex:b ; sh:class ex:B ] ;
            sh:property [ sh:path ex:c ; sh:class ex:C ; sh:not [ sh:hasValue ex:x ] ] .
        ex:Other sh:targetNode ex:n ; sh:property [ sh:path ex:p ; sh:minCount 1 ] .";

    fn class(name: &str, marker: (&str, &str)) -> Class {
        Class {
            name: name.to_string(),
            target_class: format!("http://example.org/{name}"),
            node_shape_uri: format!("http://example.org/{name}Shape"),
            interpretation_hint: None,
            parents: Vec::new(),
            properties: Vec::new(),
            constructor: Vec::new(),
            destructor: Vec::new(),
            marker: vec![MarkerLink {
                predicate: marker.0.to_string(),
                target: marker.1.to_string(),
            }],
            identity_property: None,
            enforced: Vec::new(),
            unenforced: Vec::new(),
        }
    }

    #[test]
    fn class_targets_become_markers_and_other_targets_stay() {
        let graph = DnaGraph::read(&[(SHAPES, None)]).unwrap();
        let a = class("A", (RDF_TYPE, "http://example.org/A"));
        // B is typed by rdf:type itself; C's instances carry another marker.
        let b = class("B", (RDF_TYPE, "http://example.org/B"));
        let c = class("C", ("app://kind", "literal:string:c"));
        let d = class("D", ("app://kind", "literal:string:d"));
        let shapes = complete_shapes(Some(&graph), &[&a, &b, &c, &d], None, &|t| Term::iri(t));
        let targets: Vec<&Vec<Target>> = shapes.roots.iter().map(|&r| &shapes.shapes[r].targets).collect();
        assert_eq!(
            targets[0],
            &vec![Target::Marker(vec![(
                RDF_TYPE.to_string(),
                Term::iri("http://example.org/A")
            )])]
        );
        assert_eq!(targets[1], &vec![Target::Node(Term::iri("http://example.org/n"))]);
        // B, C and D are not in the graph: derived shapes, one each, after the graph's.
        assert_eq!(shapes.roots.len(), 5);
        let constraints: Vec<&Constraint> = shapes
            .shapes
            .iter()
            .filter(|s| s.path.is_some())
            .flat_map(|s| &s.constraints)
            .filter(|c| matches!(c, Constraint::Class(_) | Constraint::Node(_)))
            .collect();
        assert!(matches!(constraints[0], Constraint::Class(t) if t == &Term::iri("http://example.org/B")));
        assert!(
            matches!(constraints[1], Constraint::Node(_)),
            "sh:class C asks for C's marker"
        );
        let only = complete_shapes(Some(&graph), &[&a, &b, &c, &d], Some("A"), &|t| Term::iri(t));
        assert_eq!(only.roots.len(), 1);
    }

    #[test]
    fn the_same_graph_reads_the_same_on_every_load() {
        let names = |g: &DnaGraph| -> Vec<Term> { g.shapes().shapes.iter().map(|s| s.node.clone()).collect() };
        let first = DnaGraph::read(&[(SHAPES, None)]).unwrap();
        let second = DnaGraph::read(&[(SHAPES, None)]).unwrap();
        assert_eq!(names(&first), names(&second));
        assert!(names(&first).contains(&Term::blank("s0b0")), "{:?}", names(&first));
    }
}
