//! Standard SHACL in Turtle (oxttl into oxrdf), mapped onto the same shapes as SHACL JSON
//! (`docs/dna-format.md`, Standard SHACL in Turtle). Every node shape with a class target
//! becomes a [`ClassShape`], its `sh:property` nodes [`PropertyShape`]s; what this release
//! cannot serve is a diagnostic.

mod enforced;
mod graph;
mod property;
mod values;

#[cfg(test)]
mod tests;

use std::collections::HashSet;

use crate::diagnostic::{Diagnostic, Diagnostics, Severity};
use crate::model::{Enforced, RDF_TYPE, local_name};
use crate::shape::{ActionShape, ClassShape, Origin, PropertyShape, ShapeDocument, SourceFormat, Spanned};

use graph::{Graph, Node, Obj};
use values::show;

const SH: &str = "http://www.w3.org/ns/shacl#";
const RDFS_COMMENT: &str = "http://www.w3.org/2000/01/rdf-schema#comment";
const RDFS_CLASS: &str = "http://www.w3.org/2000/01/rdf-schema#Class";
const RDF_FIRST: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#first";
const RDF_REST: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#rest";
const RDF_NIL: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#nil";
const DASH_READ_ONLY: &str = "http://datashapes.org/dash#readOnly";

/// Targets other than `sh:targetClass`: not served by this release.
const OTHER_TARGETS: &[&str] = &["targetNode", "targetSubjectsOf", "targetObjectsOf"];

/// `sh:` predicates a node shape may carry without a diagnostic (mapped, or non-validating).
const NODE_KEYS: &[&str] = &[
    "targetClass",
    "targetNode",
    "targetSubjectsOf",
    "targetObjectsOf",
    "property",
    "node",
    "name",
    "description",
    "deactivated",
    "severity",
    "message",
    "group",
    "order",
    "defaultValue",
];

/// `sh:` predicates a property shape may carry without a diagnostic.
const PROPERTY_KEYS: &[&str] = &[
    "path",
    "name",
    "description",
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
    "order",
    "deactivated",
    "severity",
    "message",
    "group",
    "defaultValue",
];

/// Parses a Turtle shapes graph. `None` (with a `syntax` error for each problem the parser
/// found, with its line and column) when the text is not Turtle.
pub fn parse_turtle(text: &str) -> (Option<ShapeDocument>, Diagnostics) {
    let mut diagnostics = Diagnostics::default();
    let graph = match Graph::read(text) {
        Ok(graph) => graph,
        Err(errors) => {
            for e in errors {
                let origin = Origin {
                    line: Some(e.line),
                    column: Some(e.column),
                    ..Origin::default()
                };
                diagnostics.push(
                    Diagnostic::error("syntax", origin, format!("Turtle syntax error: {}", e.message)).help(
                        "the file must be valid Turtle 1.1: check this position for a missing `.`, `;`, `]` \
                         or `>`, an undeclared prefix, or an unclosed string",
                    ),
                );
            }
            return (None, diagnostics);
        }
    };
    let classes = Reader {
        graph: &graph,
        diagnostics: &mut diagnostics,
        enforced: Vec::new(),
    }
    .classes();
    let document = ShapeDocument {
        format: SourceFormat::Turtle,
        name: None,
        description: None,
        classes,
        flows: vec![],
    };
    (Some(document), diagnostics)
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
    /// The current class shape's constraints that the typed surface does not carry: the
    /// engine enforces them at write.
    enforced: Vec<Enforced>,
}

impl<'g> Reader<'g, '_> {
    fn classes(&mut self) -> Vec<ClassShape> {
        let graph = self.graph;
        graph
            .subjects
            .iter()
            .filter_map(|node| self.class_shape(node))
            .collect()
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

    fn class_shape(&mut self, node: &Node) -> Option<ClassShape> {
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
            .filter(|t| graph.has(node, &sh(t)))
            .map(|t| format!("sh:{t}"))
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
        let Some(target) = first_target else {
            if others.is_empty() && self.is_unused_node_shape(node) {
                self.diagnostics.push(at.diag(
                    Severity::Warning,
                    "untargeted-shape",
                    format!("shape <{label}> is a sh:NodeShape with no target and nothing refers to it: it produces no class"),
                    "add `sh:targetClass` naming the class whose instances it describes, or declare the shape \
                     a class too (`a sh:NodeShape, rdfs:Class`: it then targets its own instances)",
                ));
            }
            if !others.is_empty() {
                self.diagnostics.push(at.diag(
                    Severity::Warning,
                    "unsupported-target",
                    format!(
                        "shape <{label}> has {} but no class target: it produces no class in this release",
                        others.join(", ")
                    ),
                    "give the shape a `sh:targetClass` (this release serves classes, not node or \
                     subject/object targets)",
                ));
            }
            return None;
        };
        if graph.has(node, &sh("path")) {
            self.diagnostics.push(at.diag(
                Severity::Warning,
                "unsupported-target",
                format!(
                    "shape <{label}> is a property shape (it has sh:path) with its own target: it produces no class"
                ),
                "attach the property shape to the class's node shape with `sh:property`",
            ));
            return None;
        }
        if self.deactivated(node) {
            self.diagnostics.push(at.diag(
                Severity::Note,
                "deactivated",
                format!("shape <{label}> is sh:deactivated: it produces no class"),
                "remove `sh:deactivated true` to serve the class",
            ));
            return None;
        }
        if targets.len() > 1 {
            self.diagnostics.push(at.diag(
                Severity::Error,
                "multiple-targets",
                format!(
                    "shape <{label}> targets {} classes ({}); this release makes one class per shape",
                    targets.len(),
                    targets.iter().map(|t| format!("<{t}>")).collect::<Vec<_>>().join(", ")
                ),
                "write one node shape per class; share properties through `sh:node` to a common shape",
            ));
        }
        if !others.is_empty() {
            self.diagnostics.push(at.diag(
                Severity::Warning,
                "unsupported-target",
                format!(
                    "shape <{label}>: {} is not served by this release (only the class target is)",
                    others.join(", ")
                ),
                "remove the other targets; instances of the class are the nodes this release serves",
            ));
        }

        self.enforced.clear();
        let parent_shapes = self.parents(node, &label, &at);
        let interpretation_hint = self
            .text(node, &sh("description"), &at)
            .or_else(|| self.text(node, RDFS_COMMENT, &at));
        self.unsupported(node, NODE_KEYS, &at, &label, true);
        let properties = self.properties(node, &label, &class, origin.line);
        let enforced = std::mem::take(&mut self.enforced);

        Some(ClassShape {
            origin: origin.clone(),
            target_class: Some(target.clone()),
            class_name: None,
            node_shape_uri: match node {
                Node::Iri(iri) => Some(iri.clone()),
                Node::Blank(_) => None,
            },
            interpretation_hint,
            properties,
            constructor: Some(vec![ActionShape {
                origin,
                action: "addLink".to_string(),
                source: "this".to_string(),
                predicate: RDF_TYPE.to_string(),
                target,
                local: None,
            }]),
            destructor: None,
            parent_shapes,
            enforced,
        })
    }

    /// `sh:node` on a node shape: inheritance, when the other shape is a class's shape.
    fn parents(&mut self, node: &Node, label: &str, at: &At<'_>) -> Vec<Spanned<String>> {
        let graph = self.graph;
        let mut parents = Vec::new();
        for o in graph.objects(node, &sh("node")) {
            match o {
                Obj::Node(parent @ Node::Iri(iri)) => {
                    if graph.is_subject(parent) && !self.is_class_shape(parent) {
                        // A shared shape, not a class: its constraints hold for the instances.
                        self.enforce("node", &[o], at, &format!("shape <{label}>"));
                    } else {
                        parents.push(Spanned::new(iri.clone(), at.origin.clone()));
                    }
                }
                Obj::Node(Node::Blank(_)) => {
                    self.enforce("node", &[o], at, &format!("shape <{label}>"));
                }
                other => self.diagnostics.push(at.diag(
                    Severity::Error,
                    "invalid-value",
                    format!("shape <{label}>: sh:node is {}, not a shape IRI", show(other)),
                    "write the IRI of the parent class's node shape, e.g. `sh:node app:AnimalShape`",
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
        properties.into_iter().map(|(_, p)| p).collect()
    }

    /// Each `sh:` predicate of `node` that the typed surface does not serve: engine-enforced
    /// when it is a SHACL Core parameter, else a warning.
    fn unsupported(&mut self, node: &Node, served: &[&str], at: &At<'_>, shape: &str, on_node_shape: bool) {
        let graph = self.graph;
        let mut seen = HashSet::new();
        for t in graph.about(node) {
            let Some(local) = t.predicate.strip_prefix(SH) else {
                continue;
            };
            if served.contains(&local) || !seen.insert(local) {
                continue;
            }
            let what = if on_node_shape {
                format!("shape <{shape}>")
            } else {
                format!("shape <{shape}>, property `{}`", at.property.unwrap_or("?"))
            };
            let values = graph.objects(node, &t.predicate);
            if self.enforce(local, &values, at, &what) {
                continue;
            }
            self.diagnostics.push(at.diag(
                Severity::Warning,
                "unsupported-constraint",
                format!("{what}: sh:{local} is no SHACL Core parameter and is ignored"),
                "remove it, or check the spelling against SHACL Core (https://www.w3.org/TR/shacl/#core-components)",
            ));
        }
    }
}
