//! Standard SHACL in Turtle, mapped onto the same shapes as SHACL JSON (`docs/dna-format.md`,
//! Standard SHACL in Turtle). Every node shape with a class target becomes a [`ClassShape`],
//! its `sh:property` nodes [`PropertyShape`]s; what this release cannot serve is a diagnostic.
//!
//! The text is read by the validator's loader into a [`MemoryGraph`] (handed on to
//! [`crate::shacl::DnaGraph::from_graphs`], so it is parsed once) and seen through `graph`,
//! which adds lines and deterministic blank node labels. The `sh:` terms are read here, not
//! through the validator's [`crate::shacl::Shapes::from_graph`]: that reader answers only
//! "valid or a list of texts" for the shapes validation reaches, while this one must say, per
//! shape and with its line, class and property, what each parameter becomes (typed, the
//! engine's, not SHACL Core, unknown), keep a wrong value's diagnostic beside the rest of the
//! shape, keep document order (`sh:order` ties, parents) and read the non-validating terms
//! (`sh:name`, `sh:description`, `dash:readOnly`, severities) that `Shapes` drops. Sharing it
//! would mean giving `Shapes` positions and a lossless, per-parameter account first.

mod datatypes;
mod engine;
mod graph;
mod merge;
mod property;
mod values;

#[cfg(test)]
mod tests;

use std::collections::HashSet;

use crate::diagnostic::{Diagnostic, Diagnostics, Severity};
use crate::model::Enforced;
use crate::model::{RDF_TYPE, local_name};
use crate::shacl::{MemoryGraph, SyntaxError};
use crate::shape::{ActionShape, ClassShape, Origin, PropertyShape, ShapeDocument, SourceFormat, Spanned};

use graph::{Graph, Node, Obj};
use values::show;

const SH: &str = "http://www.w3.org/ns/shacl#";
const RDFS_COMMENT: &str = "http://www.w3.org/2000/01/rdf-schema#comment";
const RDFS_CLASS: &str = "http://www.w3.org/2000/01/rdf-schema#Class";
const DASH_READ_ONLY: &str = "http://datashapes.org/dash#readOnly";

/// Targets other than `sh:targetClass`: the engine's, never a class.
const OTHER_TARGETS: &[&str] = &["targetNode", "targetSubjectsOf", "targetObjectsOf"];

/// `sh:` parameters of a class's node shape read into the class (the rest: [`engine`]).
const NODE_TYPED: &[&str] = &["property", "node"];

/// `sh:` parameters of a property shape the typed property carries (the rest: [`engine`]).
const PROPERTY_TYPED: &[&str] = &[
    "datatype",
    "minCount",
    "maxCount",
    "nodeKind",
    "class",
    "in",
    "pattern",
    "flags",
    "minLength",
    "maxLength",
    "minInclusive",
    "maxInclusive",
    "minExclusive",
    "maxExclusive",
    "hasValue",
];

/// Parses a Turtle shapes graph. `None` (with a `syntax` error for each problem the parser
/// found, with its line and column) when the text is not Turtle.
pub fn parse_turtle(text: &str) -> (Option<ShapeDocument>, Diagnostics) {
    parse_turtle_at(text, None)
}

/// [`parse_turtle`] with relative IRIs resolved against `base` (the file's URL).
pub fn parse_turtle_at(text: &str, base: Option<&str>) -> (Option<ShapeDocument>, Diagnostics) {
    let (document, diagnostics, _) = parse_turtle_graph(text, base);
    (document, diagnostics)
}

/// [`parse_turtle_at`], also handing back the graph it read (`None` on a syntax error): the
/// engine reads its shapes from that graph ([`crate::shacl::DnaGraph::from_graphs`]), so that
/// the text is parsed once.
pub fn parse_turtle_graph(text: &str, base: Option<&str>) -> (Option<ShapeDocument>, Diagnostics, Option<MemoryGraph>) {
    match MemoryGraph::read_turtle_every_error(text.as_bytes(), base) {
        Ok(graph) => {
            let (document, diagnostics) = read_document(&Graph::new(&graph, text));
            (Some(document), diagnostics, Some(graph))
        }
        Err(errors) => (None, Diagnostics(errors.iter().map(syntax_error).collect()), None),
    }
}

/// The `syntax` error for a Turtle syntax error, at its line and column (a DNA's, or a shapes or
/// data graph `shacl-mcp validate` reads).
pub fn syntax_error(e: &SyntaxError) -> Diagnostic {
    let origin = Origin {
        line: Some(e.line),
        column: Some(e.column),
        ..Origin::default()
    };
    Diagnostic::error("syntax", origin, format!("Turtle syntax error: {}", e.message)).help(
        "the file must be valid Turtle 1.1: check this position for a missing `.`, `;`, `]` \
         or `>`, an undeclared prefix, or an unclosed string",
    )
}

/// The classes of a shapes graph and the engine's constraints of the shapes that are none.
fn read_document(graph: &Graph<'_>) -> (ShapeDocument, Diagnostics) {
    let mut diagnostics = Diagnostics::default();
    let mut reader = Reader {
        graph,
        diagnostics: &mut diagnostics,
        enforced: Vec::new(),
        unenforced: Vec::new(),
        document_enforced: Vec::new(),
    };
    let classes = reader.classes();
    let enforced = std::mem::take(&mut reader.document_enforced);
    if classes.is_empty() {
        diagnostics.push(
            Diagnostic::new(
                Severity::Warning,
                "no-classes",
                Origin::default(),
                "the shapes graph has no node shape with a class target: the server has no class and no per-class tool",
            )
            .help(
                "give the node shapes `sh:targetClass` naming the class whose instances they describe, or declare \
                 them `a sh:NodeShape, rdfs:Class`",
            ),
        );
    }
    let document = ShapeDocument {
        format: SourceFormat::Turtle,
        name: None,
        description: None,
        classes,
        flows: vec![],
        enforced,
    };
    (document, diagnostics)
}

fn sh(local: &str) -> String {
    format!("{SH}{local}")
}

/// `sh:minCount` for a full SHACL IRI, the IRI itself otherwise.
fn short(iri: &str) -> String {
    match iri.strip_prefix(SH) {
        Some(local) => format!("sh:{local}"),
        None if iri == DASH_READ_ONLY => "dash:readOnly".to_string(),
        None => format!("<{iri}>"),
    }
}

/// Where a diagnostic is and what it concerns.
struct At<'o> {
    origin: &'o Origin,
    /// The local name of the target class, when the shape has one.
    class: Option<&'o str>,
    property: Option<&'o str>,
}

impl At<'_> {
    fn diag(&self, severity: Severity, code: &'static str, message: String, help: impl Into<String>) -> Diagnostic {
        let mut d = Diagnostic::new(severity, code, self.origin.clone(), message).help(help);
        d.class = self.class.map(str::to_string);
        d.property = self.property.map(str::to_string);
        d
    }
}

struct Reader<'g, 'd> {
    graph: &'g Graph<'g>,
    diagnostics: &'d mut Diagnostics,
    /// The engine's constraints of the class being read.
    enforced: Vec<Enforced>,
    /// What nothing checks in the class being read (SHACL-SPARQL, SHACL-AF).
    unenforced: Vec<Enforced>,
    /// The engine's constraints of shapes that are no class (node, subject and object targets).
    document_enforced: Vec<Enforced>,
}

impl<'g> Reader<'g, '_> {
    fn classes(&mut self) -> Vec<ClassShape> {
        let graph = self.graph;
        let shapes: Vec<ClassShape> = graph.subjects.iter().flat_map(|node| self.class_shapes(node)).collect();
        let prefix_of = |iri: &str| graph.prefix_of(iri).map(str::to_string);
        let mut classes = merge::same_targets(shapes, &prefix_of);
        merge::distinct_class_names(&mut classes, &prefix_of);
        classes
    }

    /// The class targets of a node shape: `sh:targetClass` IRIs, else its own IRI when it is
    /// both a `sh:NodeShape` and an `rdfs:Class` (an implicit class target).
    fn class_targets(&self, node: &Node) -> Vec<String> {
        let mut targets: Vec<String> = self
            .graph
            .objects(node, &sh("targetClass"))
            .into_iter()
            .filter_map(|o| match o {
                Obj::Node(Node::Iri(iri)) => Some(iri.clone()),
                _ => None,
            })
            .collect();
        if targets.is_empty()
            && self.graph.has_object(node, RDF_TYPE, &sh("NodeShape"))
            && self.graph.has_object(node, RDF_TYPE, RDFS_CLASS)
            && let Node::Iri(iri) = node
        {
            targets.push(iri.clone());
        }
        targets
    }

    /// A shape that this document turns into a class (used to tell parents from mixins).
    fn is_class_shape(&self, node: &Node) -> bool {
        !self.graph.has(node, &sh("path")) && !self.class_targets(node).is_empty() && !self.deactivated(node)
    }

    /// A node shape that no other triple mentions: not a parent (`sh:node`), not a member of a
    /// list, not the value of any constraint. Such a shape validates nothing and, without a class
    /// target, serves nothing; a shape that other shapes use is their business, not a class.
    fn is_unused_node_shape(&self, node: &Node) -> bool {
        self.graph.has_object(node, RDF_TYPE, &sh("NodeShape"))
            && !self.deactivated(node)
            && !self.graph.has(node, &sh("path"))
            && !self
                .graph
                .triples
                .iter()
                .any(|t| matches!(&t.object, Obj::Node(n) if n == node))
    }

    fn deactivated(&self, node: &Node) -> bool {
        self.graph
            .objects(node, &sh("deactivated"))
            .into_iter()
            .any(|o| matches!(o, Obj::Literal(l) if values::boolean(l) == Some(true)))
    }

    /// The classes a node shape makes: one per class target (none for a shape without one,
    /// whose constraints, if it has other targets, the engine enforces).
    fn class_shapes(&mut self, node: &Node) -> Vec<ClassShape> {
        let graph = self.graph;
        let label = node.label();
        let origin = Origin {
            shape: Some(label.clone()),
            line: graph.line_of(node),
            ..Origin::default()
        };
        let targets = self.class_targets(node);
        let others: Vec<String> = OTHER_TARGETS
            .iter()
            .flat_map(|t| graph.objects(node, &sh(t)).into_iter().map(move |o| (t, o)))
            .map(|(t, o)| format!("sh:{t} {}", self.turtle(o, 0)))
            .collect();
        let first_target = targets.first().cloned();
        let class = first_target.as_deref().map(local_name).unwrap_or_default().to_string();
        let at = At {
            origin: &origin,
            class: first_target.as_ref().map(|_| class.as_str()),
            property: None,
        };
        // A class target that is not an IRI.
        for o in graph.objects(node, &sh("targetClass")) {
            if !matches!(o, Obj::Node(Node::Iri(_))) {
                self.diagnostics.push(at.diag(
                    Severity::Error,
                    "invalid-value",
                    format!("shape <{label}>: sh:targetClass is {}, not a class IRI", show(o)),
                    "write the class IRI, e.g. `sh:targetClass app:Channel`",
                ));
            }
        }
        if self.deactivated(node) {
            if first_target.is_some() {
                self.diagnostics.push(at.diag(
                    Severity::Note,
                    "deactivated",
                    format!("shape <{label}> is sh:deactivated: it produces no class"),
                    "remove `sh:deactivated true` to serve the class",
                ));
            }
            return Vec::new();
        }
        let is_property_shape = graph.has(node, &sh("path"));
        if !others.is_empty() || (is_property_shape && first_target.is_some()) {
            // Targets that are not a class's instances: the engine checks the shape there.
            let mut targets_said = others.clone();
            if is_property_shape {
                targets_said.extend(targets.iter().map(|t| format!("sh:targetClass {}", graph.compact(t))));
            }
            self.document_enforced.push(Enforced {
                component: "Node".to_string(),
                property: None,
                text: format!(
                    "the nodes of {} must conform to {}",
                    targets_said.join(", "),
                    self.shape_text(node)
                ),
            });
        }
        if first_target.is_none() {
            if others.is_empty() && self.is_unused_node_shape(node) {
                self.diagnostics.push(at.diag(
                    Severity::Warning,
                    "untargeted-shape",
                    format!("shape <{label}> is a sh:NodeShape with no target and nothing refers to it: it produces no class"),
                    "add `sh:targetClass` naming the class whose instances it describes, or declare the shape \
                     a class too (`a sh:NodeShape, rdfs:Class`: it then targets its own instances)",
                ));
            }
            return Vec::new();
        }
        if is_property_shape {
            return Vec::new();
        }

        let parent_shapes = self.parents(node, &label, &at);
        let interpretation_hint = self
            .text(node, &sh("description"), &at)
            .or_else(|| self.text(node, RDFS_COMMENT, &at));
        self.classify(node, NODE_TYPED, &at, None);
        let properties = self.properties(node, &label, &class, origin.line);
        // Only this shape's: a shape without a class leaves nothing behind for the next.
        let enforced = std::mem::take(&mut self.enforced);
        let unenforced = std::mem::take(&mut self.unenforced);

        // Several class targets: the shape describes the instances of each (SHACL §2.1.3.2),
        // so each is a class with the same properties.
        targets
            .iter()
            .enumerate()
            .map(|(i, target)| ClassShape {
                origin: origin.clone(),
                target_class: Some(target.clone()),
                class_name: None,
                name: None,
                // The first class keeps the shape's IRI; the others get the default one.
                node_shape_uri: match node {
                    Node::Iri(iri) if i == 0 => Some(iri.clone()),
                    _ => None,
                },
                interpretation_hint: interpretation_hint.clone(),
                properties: properties.clone(),
                constructor: Some(vec![ActionShape {
                    origin: origin.clone(),
                    action: "addLink".to_string(),
                    source: "this".to_string(),
                    predicate: RDF_TYPE.to_string(),
                    target: target.clone(),
                    local: None,
                }]),
                destructor: None,
                parent_shapes: parent_shapes.clone(),
                enforced: enforced.clone(),
                unenforced: unenforced.clone(),
            })
            .collect()
    }

    /// A shape in words: its IRI, or its constraints inline.
    fn shape_text(&self, node: &Node) -> String {
        match node {
            Node::Iri(iri) => self.graph.compact(iri),
            blank => self.turtle(&Obj::Node(blank.clone()), 2),
        }
    }

    /// `sh:node` on a node shape: inheritance when the other shape is a class's shape; any
    /// other shape the instances must conform to is the engine's.
    fn parents(&mut self, node: &Node, label: &str, at: &At<'_>) -> Vec<Spanned<String>> {
        let graph = self.graph;
        let mut parents = Vec::new();
        for o in graph.objects(node, &sh("node")) {
            match o {
                Obj::Node(parent @ Node::Iri(iri)) if !graph.is_subject(parent) || self.is_class_shape(parent) => {
                    parents.push(Spanned::new(iri.clone(), at.origin.clone()));
                }
                Obj::Node(_) => {
                    let text = self.words(node, "node", o);
                    self.note("node", None, text, true);
                }
                other => self.diagnostics.push(at.diag(
                    Severity::Error,
                    "invalid-value",
                    format!("shape <{label}>: sh:node is {}, not a shape", show(other)),
                    "write the IRI of a node shape, e.g. `sh:node app:AnimalShape`",
                )),
            }
        }
        parents
    }

    /// The `sh:property` shapes of a node shape, sorted by `sh:order` (stable: the others
    /// after, in the order the shape lists them).
    fn properties(&mut self, node: &Node, label: &str, class: &str, line: Option<u32>) -> Vec<PropertyShape> {
        let graph = self.graph;
        let mut seen = HashSet::new();
        let mut properties: Vec<(Option<f64>, PropertyShape)> = Vec::new();
        for t in graph.about(node).filter(|t| t.predicate == sh("property")) {
            match &t.object {
                Obj::Node(p) => {
                    if seen.insert(p.clone()) {
                        properties.extend(self.property_shape(p, label, class, Some(t.line)));
                    }
                }
                other => {
                    let origin = Origin {
                        shape: Some(label.to_string()),
                        line,
                        ..Origin::default()
                    };
                    let at = At {
                        origin: &origin,
                        class: Some(class),
                        property: None,
                    };
                    self.diagnostics.push(at.diag(
                        Severity::Error,
                        "invalid-value",
                        format!("shape <{label}>: sh:property is {}, not a property shape", show(other)),
                        "write a property shape, e.g. `sh:property [ sh:path app:has_name ; sh:datatype xsd:string ]`",
                    ));
                }
            }
        }
        properties.sort_by(|a, b| match (a.0, b.0) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        let properties = properties.into_iter().map(|(_, p)| p).collect();
        let (properties, notes) = merge::same_paths(properties, &|iri: &str| graph.prefix_of(iri).map(str::to_string));
        self.enforced.extend(notes);
        properties
    }
}
