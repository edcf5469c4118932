//! The datatypes a property shape says only through other shapes: `sh:or` / `sh:xone` of
//! `sh:datatype` shapes, and shared shapes reached through `sh:node` or `sh:and` (DCAT-AP's and
//! cube.link's "a date or a dateTime"). SHACL still judges those constraints in the engine;
//! what is read here only gives the tool its value type, so an agent can write a value that
//! conforms (docs/dna-format.md, Datatypes said through other shapes).

use std::cell::Cell;

use super::graph::{Node, Obj};
use super::{Reader, sh};
use crate::problems::component;

/// How deep `sh:node` / `sh:and` / `sh:or` may nest before the reading gives up (shapes may
/// refer to each other in a cycle).
const MAX_DEPTH: usize = 8;

/// How many shapes one property's reading may visit (wide lists of shared shapes nest
/// exponentially): beyond it the reading says nothing, and the engine alone judges the value.
const MAX_VISITS: usize = 4096;

/// What a shape says of its value node's datatype: `None` nothing (any value, as far as the
/// datatype goes), else the datatypes allowed, in the order written (maybe none: a
/// contradiction the engine will report on every value).
type Said = Option<Vec<String>>;

impl Reader<'_, '_> {
    /// The datatypes the property shape `node` allows through other shapes, with the component
    /// on the property that says them; `None` when they say nothing of the datatype, or
    /// nothing a tool can type (no datatype left, or a value that may also be an IRI).
    pub(super) fn datatypes_said(&self, node: &Node) -> Option<(Vec<String>, &'static str)> {
        let visits = Cell::new(0);
        let mut said: Said = None;
        let mut by = None;
        for (local, component) in [
            ("or", component::OR),
            ("xone", component::XONE),
            ("node", component::NODE),
            ("and", component::AND),
        ] {
            for object in self.graph.objects(node, &sh(local)) {
                let Some(these) = self.said_by(local, object, 0, &visits) else {
                    continue;
                };
                said = Some(meet(said, these));
                by.get_or_insert(component);
            }
        }
        if visits.get() > MAX_VISITS {
            return None;
        }
        let datatypes = said.filter(|d| !d.is_empty())?;
        Some((datatypes, by?))
    }

    /// Whether the property shape's `sh:in` lists IRIs only, or its `sh:hasValue` is an IRI.
    pub(super) fn says_iri_values(&self, node: &Node) -> bool {
        let graph = self.graph;
        let iri = |o: &Obj| matches!(o, Obj::Node(Node::Iri(_)));
        let listed = graph.objects(node, &sh("in")).into_iter().any(|head| {
            graph
                .list(head)
                .is_ok_and(|members| !members.is_empty() && members.iter().all(iri))
        });
        listed || graph.objects(node, &sh("hasValue")).into_iter().any(iri)
    }

    /// The datatypes of the values `sh:in` lists when they are all literals, else of the
    /// `sh:hasValue` literal, in first-seen order: a value the constraint allows has one of
    /// them (for `sh:hasValue`, the one value every instance holds).
    pub(super) fn values_datatypes(&self, node: &Node) -> Option<Vec<String>> {
        let graph = self.graph;
        let mut datatypes: Vec<String> = Vec::new();
        let mut add = |o: &Obj| match o {
            Obj::Literal(l) if !datatypes.contains(&l.datatype) => datatypes.push(l.datatype.clone()),
            _ => {}
        };
        let literal = |o: &Obj| matches!(o, Obj::Literal(_));
        let listed = graph.objects(node, &sh("in")).into_iter().find_map(|head| {
            let members = graph.list(head).ok()?;
            (!members.is_empty() && members.iter().all(literal)).then_some(members)
        });
        match listed {
            Some(members) => members.iter().for_each(&mut add),
            None => graph.objects(node, &sh("hasValue")).into_iter().for_each(add),
        }
        (!datatypes.is_empty()).then_some(datatypes)
    }

    /// What the value of `sh:<local>` (a list for `or`, `xone`, `and`; a shape for `node`) says.
    fn said_by(&self, local: &str, object: &Obj, depth: usize, visits: &Cell<usize>) -> Said {
        if local == "node" {
            return self.said_of(object, depth + 1, visits);
        }
        let members = self.graph.list(object).ok()?;
        let each = members.iter().map(|m| self.said_of(m, depth + 1, visits));
        if local == "and" {
            each.flatten().reduce(|a, b| meet(Some(a), b))
        } else {
            // A member that says nothing of the datatype lets any value through the list.
            let mut union = Vec::new();
            for datatypes in each {
                for d in datatypes? {
                    if !union.contains(&d) {
                        union.push(d);
                    }
                }
            }
            Some(union)
        }
    }

    /// What a shape used as `sh:node` or a list member says of its (same) value node.
    fn said_of(&self, shape: &Obj, depth: usize, visits: &Cell<usize>) -> Said {
        let Obj::Node(node) = shape else {
            return None;
        };
        visits.set(visits.get() + 1);
        if visits.get() > MAX_VISITS {
            return None;
        }
        // A property shape, or a shape allowing IRIs, is not about the value's datatype.
        let graph = self.graph;
        if depth > MAX_DEPTH || ["path", "class", "nodeKind"].iter().any(|l| graph.has(node, &sh(l))) {
            return None;
        }
        let own: Vec<String> = graph
            .objects(node, &sh("datatype"))
            .into_iter()
            .filter_map(|o| match o {
                Obj::Node(Node::Iri(iri)) => Some(iri.clone()),
                _ => None,
            })
            .collect();
        let mut said: Said = match own.as_slice() {
            [] => None,
            [one] => Some(vec![one.clone()]),
            [first, rest @ ..] => Some(if rest.iter().all(|d| d == first) {
                vec![first.clone()]
            } else {
                Vec::new()
            }),
        };
        for local in ["or", "xone", "node", "and"] {
            for object in graph.objects(node, &sh(local)) {
                if let Some(these) = self.said_by(local, object, depth, visits) {
                    said = Some(meet(said, these));
                }
            }
        }
        said
    }
}

/// Both: the datatypes of `a` that `b` allows too, in `a`'s order.
fn meet(a: Said, b: Vec<String>) -> Vec<String> {
    match a {
        None => b,
        Some(a) => a.into_iter().filter(|d| b.contains(d)).collect(),
    }
}
