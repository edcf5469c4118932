//! How far, and in which direction, validation looks from a focus node: a reach analysis over
//! the shapes' paths, `sh:node`, logical components and qualified shapes. A write that changes
//! a link can change the result of exactly the focus nodes whose validation reads that link;
//! [`Reach`] says which links are read where, and along which links validation steps to other
//! nodes, so the write path finds those focus nodes from the changed links instead of
//! validating the whole perspective (docs/validation.md, Which nodes a write affects).

use std::collections::{HashMap, HashSet};

use super::path::Path;
use super::shapes::{Constraint, ShapeRef, Shapes, Target};
use super::vocab::{RDF_TYPE, RDFS_SUB_CLASS_OF};

/// Which end of a link `(s, p, o)` validation stands on when it reads the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// At `s`, looking at its values: a predicate path step.
    Out,
    /// At `o`, looking back: an inverse path step.
    In,
}

/// What validation with a set of shapes reads, found once per set of shapes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    /// `(p, dir)`: a link of `p` is read by a validation standing at its subject (`Out`) or
    /// object (`In`).
    pub reads: HashSet<(String, Dir)>,
    /// `(p, dir)`: validation steps along such links to the node at their other end and reads
    /// more there (a path longer than one step, or a value node checked against a shape).
    pub steps: HashSet<(String, Dir)>,
    /// `sh:closed`: every link out of a focus node is read.
    pub reads_every_out: bool,
    /// At most how many steps from its focus node a validation reads; `None`: no bound (a
    /// recursive shape, `*` or `+` paths, `sh:class` through `rdfs:subClassOf` chains).
    pub depth: Option<usize>,
}

impl Reach {
    /// The reach of validating every root of `shapes` on its focus nodes.
    pub fn of(shapes: &Shapes) -> Reach {
        let mut walk = Walk {
            shapes,
            reach: Reach {
                depth: Some(0),
                ..Reach::default()
            },
            deepest: HashMap::new(),
            on_stack: HashSet::new(),
        };
        for &root in &shapes.roots {
            for target in &shapes.shapes[root].targets {
                walk.target(target);
            }
            walk.shape(root, 0);
        }
        walk.reach
    }

    /// Whether a changed link of `predicate` is read at its subject (`Out`) or object (`In`).
    pub fn reads(&self, predicate: &str, dir: Dir) -> bool {
        (dir == Dir::Out && self.reads_every_out) || self.reads.contains(&(predicate.to_string(), dir))
    }
}

struct Walk<'a> {
    shapes: &'a Shapes,
    reach: Reach,
    /// The greatest depth each shape was entered at (a shape entered no deeper adds nothing).
    deepest: HashMap<ShapeRef, usize>,
    on_stack: HashSet<ShapeRef>,
}

impl Walk<'_> {
    fn target(&mut self, target: &Target) {
        match target {
            Target::Node(_) => {}
            Target::Class(_) => self.class_reads(),
            Target::SubjectsOf(p) => self.read(p, Dir::Out),
            Target::ObjectsOf(p) => self.read(p, Dir::In),
            Target::Marker(links) => {
                for (p, _) in links {
                    self.read(p, Dir::Out);
                }
            }
        }
    }

    fn read(&mut self, p: &str, dir: Dir) {
        self.reach.reads.insert((p.to_string(), dir));
    }

    fn step(&mut self, p: &str, dir: Dir) {
        self.read(p, dir);
        self.reach.steps.insert((p.to_string(), dir));
    }

    fn at_depth(&mut self, depth: usize) {
        if let Some(d) = &mut self.reach.depth {
            *d = (*d).max(depth);
        }
    }

    fn unbounded(&mut self) {
        self.reach.depth = None;
    }

    /// `rdf:type`, then `rdfs:subClassOf*` from the type: SHACL instance of a class.
    fn class_reads(&mut self) {
        self.step(RDF_TYPE, Dir::Out);
        self.step(RDFS_SUB_CLASS_OF, Dir::Out);
        self.unbounded();
    }

    /// Validating `shape` on a node `depth` steps from the focus.
    fn shape(&mut self, shape: ShapeRef, depth: usize) {
        if self.on_stack.contains(&shape) {
            // A shape that reaches itself through a value node: no bound on how far.
            self.unbounded();
            return;
        }
        if self.deepest.get(&shape).is_some_and(|&d| d >= depth) {
            return;
        }
        self.deepest.insert(shape, depth);
        self.on_stack.insert(shape);
        self.at_depth(depth);
        let s = &self.shapes.shapes[shape];
        // Where the value nodes are, and whether reaching them stepped to other nodes.
        let value_depth = match &s.path {
            Some(path) => {
                let len = self.path(path, true);
                // The path's last link is read at the node one step before the values.
                if let Some(n) = len {
                    self.at_depth((depth + n).saturating_sub(1));
                }
                len.map(|n| depth + n)
            }
            None => Some(depth),
        };
        let property = s.path.is_some();
        for constraint in &s.constraints {
            self.constraint(constraint, depth, value_depth, property, s.path.as_ref());
        }
        self.on_stack.remove(&shape);
    }

    /// A constraint of a shape whose focus is `depth` steps away and whose value nodes are
    /// `value_depth` steps away (`None`: unbounded).
    fn constraint(
        &mut self,
        constraint: &Constraint,
        depth: usize,
        value_depth: Option<usize>,
        property: bool,
        path: Option<&Path>,
    ) {
        // A constraint that checks value nodes against a shape: the path's last steps lead on.
        let into_values = |walk: &mut Self, shape: ShapeRef| {
            if let Some(path) = path.filter(|_| property) {
                walk.path(path, false);
            }
            match value_depth {
                Some(d) => walk.shape(shape, d),
                None => {
                    walk.unbounded();
                    walk.shape(shape, depth + 1);
                }
            }
        };
        match constraint {
            Constraint::Node(s) | Constraint::Not(s) => into_values(self, *s),
            Constraint::And(list) | Constraint::Or(list) | Constraint::Xone(list) => {
                for s in list {
                    into_values(self, *s);
                }
            }
            Constraint::QualifiedValueShape { shape, siblings, .. } => {
                into_values(self, *shape);
                for s in siblings {
                    into_values(self, *s);
                }
            }
            // A property shape of this node: same focus.
            Constraint::Property(s) => self.shape(*s, depth),
            Constraint::Class(_) => {
                if let Some(path) = path.filter(|_| property) {
                    self.path(path, false);
                }
                self.class_reads();
            }
            Constraint::Equals(p)
            | Constraint::Disjoint(p)
            | Constraint::LessThan(p)
            | Constraint::LessThanOrEquals(p) => self.read(p, Dir::Out),
            Constraint::Closed { .. } => self.reach.reads_every_out = true,
            // The rest judge the value nodes themselves, read by the path already.
            _ => {}
        }
    }

    /// Records the reads of `path` from its start; `last_reads_only`: the final step of the
    /// path only reads (its value nodes are not looked into), else it steps too. The number
    /// of steps to the value nodes, `None` when unbounded.
    fn path(&mut self, path: &Path, last_reads_only: bool) -> Option<usize> {
        self.path_from(path, false, last_reads_only)
    }

    fn path_from(&mut self, path: &Path, inverse: bool, last_reads_only: bool) -> Option<usize> {
        let dir = if inverse { Dir::In } else { Dir::Out };
        match path {
            Path::Predicate(p) => {
                let p = p.as_iri().unwrap_or_default();
                if last_reads_only {
                    self.read(p, dir);
                } else {
                    self.step(p, dir);
                }
                Some(1)
            }
            Path::Inverse(inner) => self.path_from(inner, !inverse, last_reads_only),
            Path::Sequence(parts) => {
                let mut total = Some(0);
                let n = parts.len();
                for (i, part) in parts.iter().enumerate() {
                    let last = if inverse { i == 0 } else { i + 1 == n };
                    let len = self.path_from(part, inverse, last_reads_only && last);
                    total = total.zip(len).map(|(a, b)| a + b);
                }
                total
            }
            Path::Alternative(parts) => {
                let mut longest = Some(0);
                for part in parts {
                    let len = self.path_from(part, inverse, last_reads_only);
                    longest = longest.zip(len).map(|(a, b)| a.max(b));
                }
                longest
            }
            Path::ZeroOrMore(inner) | Path::OneOrMore(inner) => {
                // Repeated: every step leads on to the next.
                self.path_from(inner, inverse, false);
                self.unbounded();
                None
            }
            Path::ZeroOrOne(inner) => self.path_from(inner, inverse, last_reads_only),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shacl::MemoryGraph;

    fn reach(turtle: &str) -> Reach {
        let text = format!("@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .\n{turtle}");
        let graph = MemoryGraph::read_turtle(text.as_bytes(), None).expect("turtle");
        Reach::of(&Shapes::from_graph(&graph).expect("shapes"))
    }

    fn set(items: &[(&str, Dir)]) -> HashSet<(String, Dir)> {
        items
            .iter()
            .map(|(p, d)| (format!("http://example.org/{p}"), *d))
            .collect()
    }

    #[test]
    fn a_predicate_path_reads_at_the_focus_only() {
        let r = reach("ex:S sh:targetSubjectsOf ex:a ; sh:property [ sh:path ex:a ; sh:minCount 1 ] .");
        assert_eq!(r.reads, set(&[("a", Dir::Out)]));
        assert!(r.steps.is_empty());
        assert_eq!(r.depth, Some(0));
    }

    #[test]
    fn inverse_and_sequence_paths_step() {
        let r = reach(
            "ex:S sh:targetNode ex:x ;
                sh:property [ sh:path [ sh:inversePath ex:org ] ; sh:maxCount 2 ] ;
                sh:property [ sh:path ( ex:org ex:age ) ; sh:minInclusive 16 ] .",
        );
        assert_eq!(r.reads, set(&[("org", Dir::In), ("org", Dir::Out), ("age", Dir::Out)]));
        assert_eq!(r.steps, set(&[("org", Dir::Out)]));
        // `age` is read at the organizer, one step from the focus.
        assert_eq!(r.depth, Some(1));
    }

    #[test]
    fn a_node_constraint_looks_into_the_value() {
        let r = reach(
            "ex:S sh:targetNode ex:x ; sh:property [ sh:path ex:venue ; sh:node ex:L ] .
             ex:L sh:property [ sh:path ex:city ; sh:minCount 1 ] .",
        );
        assert_eq!(r.steps, set(&[("venue", Dir::Out)]));
        assert!(r.reads.contains(&("http://example.org/city".to_string(), Dir::Out)));
        assert_eq!(r.depth, Some(1));
    }

    #[test]
    fn recursion_and_repetition_are_unbounded() {
        let r = reach("ex:S sh:targetNode ex:x ; sh:property [ sh:path ex:next ; sh:node ex:S ] .");
        assert_eq!(r.depth, None);
        let r = reach("ex:S sh:targetNode ex:x ; sh:property [ sh:path [ sh:zeroOrMorePath ex:p ] ; sh:maxCount 3 ] .");
        assert_eq!(r.depth, None);
        assert_eq!(r.steps, set(&[("p", Dir::Out)]));
    }

    #[test]
    fn closed_reads_every_link_out() {
        let r = reach("ex:S sh:targetNode ex:x ; sh:closed true ; sh:property [ sh:path ex:a ] .");
        assert!(r.reads_every_out);
        assert!(r.reads("http://example.org/anything", Dir::Out));
        assert!(!r.reads("http://example.org/anything", Dir::In));
    }
}
