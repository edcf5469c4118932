//! What the typed properties do not carry: each SHACL parameter of a shape is typed (read
//! into the [`PropertyShape`](crate::shape::PropertyShape)), non-validating (`sh:name`,
//! `sh:order`, ...), enforced by the SHACL Core engine (an [`Enforced`] with its words), or
//! beyond SHACL Core (SHACL-SPARQL, rules: a warning, never silently dropped).
//! `docs/dna-format.md`, Coverage.

use super::graph::{Node, Obj};
use super::values::show;
use super::{At, Reader, SH, sh};
use crate::diagnostic::Severity;
use crate::model::Enforced;

/// How the reader treats one `sh:` parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Read into the typed property (or the class header).
    Typed,
    /// Says nothing about conformance (names, order, messages, targets, ...).
    NonValidating,
    /// A SHACL Core constraint the engine enforces.
    Engine,
    /// Part of another parameter's note (`sh:qualifiedMinCount` of `sh:qualifiedValueShape`).
    Companion,
    /// SHACL-SPARQL or SHACL Advanced Features: no SHACL Core processor checks it.
    NotCore,
    /// Not a SHACL term at all: SHACL ignores the triple.
    Unknown,
}

/// The parameters of SHACL Core constraint components (SHACL §4) the engine enforces when
/// they are not typed.
const CORE: &[&str] = &[
    "class",
    "datatype",
    "nodeKind",
    "minCount",
    "maxCount",
    "minExclusive",
    "minInclusive",
    "maxExclusive",
    "maxInclusive",
    "minLength",
    "maxLength",
    "pattern",
    "languageIn",
    "uniqueLang",
    "equals",
    "disjoint",
    "lessThan",
    "lessThanOrEquals",
    "not",
    "and",
    "or",
    "xone",
    "node",
    "property",
    "qualifiedValueShape",
    "closed",
    "hasValue",
    "in",
];

const COMPANIONS: &[&str] = &[
    "flags",
    "qualifiedMinCount",
    "qualifiedMaxCount",
    "qualifiedValueShapesDisjoint",
    "ignoredProperties",
];

const NON_VALIDATING: &[&str] = &[
    "path",
    "name",
    "description",
    "order",
    "group",
    "defaultValue",
    "severity",
    "message",
    "deactivated",
    "targetClass",
    "targetNode",
    "targetSubjectsOf",
    "targetObjectsOf",
    "declare",
    "prefixes",
    "shapesGraph",
    "suggestedShapesGraph",
    "entailment",
];

/// SHACL-SPARQL (§5, §6) and SHACL Advanced Features terms.
const NOT_CORE: &[&str] = &[
    "sparql",
    "select",
    "ask",
    "construct",
    "target",
    "rule",
    "expression",
    "condition",
    "values",
    "filterShape",
    "nodes",
    "intersection",
    "union",
    "this",
];

pub(super) fn kind(local: &str, typed: &[&str]) -> Kind {
    if typed.contains(&local) {
        Kind::Typed
    } else if NON_VALIDATING.contains(&local) {
        Kind::NonValidating
    } else if COMPANIONS.contains(&local) {
        Kind::Companion
    } else if CORE.contains(&local) {
        Kind::Engine
    } else if NOT_CORE.contains(&local) {
        Kind::NotCore
    } else {
        Kind::Unknown
    }
}

impl<'g> Reader<'g, '_> {
    /// Every `sh:` parameter of `node` that is not in `typed`, sorted into engine notes (with
    /// `about` naming the property, or `None` for the node itself) and warnings.
    pub(super) fn classify(&mut self, node: &Node, typed: &[&str], at: &At<'_>, about: Option<&str>) {
        let graph = self.graph;
        let mut seen = Vec::new();
        for t in graph.about(node) {
            let Some(local) = t.predicate.strip_prefix(SH) else {
                continue;
            };
            if seen.contains(&local) {
                continue;
            }
            seen.push(local);
            match kind(local, typed) {
                Kind::Typed | Kind::NonValidating | Kind::Companion => {}
                Kind::Engine => {
                    for object in graph.objects(node, &t.predicate) {
                        // `sh:closed false` and `sh:uniqueLang false` ask nothing.
                        if matches!(local, "closed" | "uniqueLang")
                            && !matches!(object, Obj::Literal(l) if super::values::boolean(l) == Some(true))
                        {
                            continue;
                        }
                        let text = self.words(node, local, object);
                        self.note(local, about, text, true);
                    }
                }
                Kind::NotCore => {
                    self.note(
                        local,
                        about,
                        format!(
                            "sh:{local} is SHACL-SPARQL or a SHACL Advanced Feature, not SHACL Core: nothing checks it"
                        ),
                        false,
                    );
                    self.diagnostics.push(at.diag(
                        Severity::Warning,
                        "not-core",
                        format!("{}: sh:{local} is not SHACL Core; writes and validation do not check it", self.what(at, about)),
                        "check it in the application, or express it with SHACL Core constraints",
                    ));
                }
                Kind::Unknown => self.diagnostics.push(at.diag(
                    Severity::Warning,
                    "unknown-term",
                    format!("{}: <{}> is not a SHACL term; SHACL ignores it", self.what(at, about), t.predicate),
                    "check the spelling against the SHACL vocabulary (https://www.w3.org/TR/shacl/), or use another namespace",
                )),
            }
        }
    }

    fn what(&self, at: &At<'_>, about: Option<&str>) -> String {
        let shape = at.origin.shape.as_deref().unwrap_or("?");
        match about {
            Some(p) => format!("shape <{shape}>, property `{p}`"),
            None => format!("shape <{shape}>"),
        }
    }

    /// Records `sh:<local>` as the engine's (or, not `enforceable`, as nobody's).
    pub(super) fn note(&mut self, local: &str, about: Option<&str>, text: String, enforceable: bool) {
        let entry = Enforced {
            component: self.component(local),
            property: about.map(str::to_string),
            text,
        };
        if enforceable {
            self.enforced.push(entry);
        } else {
            self.unenforced.push(entry);
        }
    }

    /// The constraint component a parameter belongs to, by its local name without
    /// `ConstraintComponent` (`lessThan` is `LessThan`; `sh:qualifiedValueShape` is
    /// `QualifiedMinCount` or `QualifiedMaxCount`).
    fn component(&self, local: &str) -> String {
        match local {
            "qualifiedValueShape" => "QualifiedMinCount".to_string(),
            "sparql" => "SPARQL".to_string(),
            _ => capitalized(local),
        }
    }

    /// What `sh:<local> <object>` asks of a value node (or of the focus node for node-level
    /// parameters), in words: the shapes and IRIs as written in Turtle.
    pub(super) fn words(&self, node: &Node, local: &str, object: &'g Obj) -> String {
        let o = self.turtle(object, 2);
        let count = |p: &str| self.graph.objects(node, &sh(p)).first().map(|o| self.turtle(o, 0));
        match local {
            "class" => format!("each value must be an instance of {o} (an rdf:type link to it or to a subclass)"),
            "datatype" => format!("each value must be a literal of datatype {o}"),
            "nodeKind" => format!("each value must be of node kind {o}"),
            "minCount" => format!("must have at least {o} value(s)"),
            "maxCount" => format!("must have at most {o} value(s)"),
            "minExclusive" => format!("each value must be greater than {o}"),
            "minInclusive" => format!("each value must be at least {o}"),
            "maxExclusive" => format!("each value must be less than {o}"),
            "maxInclusive" => format!("each value must be at most {o}"),
            "minLength" => format!("each value must be at least {o} characters long"),
            "maxLength" => format!("each value must be at most {o} characters long"),
            "pattern" => match count("flags") {
                Some(flags) => format!("each value must match the regular expression {o} (flags {flags})"),
                None => format!("each value must match the regular expression {o}"),
            },
            "languageIn" => format!("each value must be a literal whose language tag is one of {o}"),
            "uniqueLang" => "no two values may have the same language tag".to_string(),
            "equals" => format!("the values must be exactly the values of {o}"),
            "disjoint" => format!("no value may also be a value of {o}"),
            "lessThan" => format!("each value must be less than every value of {o}"),
            "lessThanOrEquals" => format!("each value must be less than or equal to every value of {o}"),
            "not" => format!("must not conform to {o}"),
            "and" => format!("must conform to every shape of {o}"),
            "or" => format!("must conform to at least one shape of {o}"),
            "xone" => format!("must conform to exactly one shape of {o}"),
            "node" => format!("must conform to the shape {o}"),
            "property" => format!("must conform to the property shape {o}"),
            "qualifiedValueShape" => {
                let bounds: Vec<String> = [("qualifiedMinCount", "at least"), ("qualifiedMaxCount", "at most")]
                    .iter()
                    .filter_map(|(p, words)| count(p).map(|n| format!("{words} {n}")))
                    .collect();
                format!("{} values must conform to {o}", bounds.join(" and "))
            }
            "closed" => {
                let ignored = count("ignoredProperties")
                    .map(|l| format!(" (and {l})"))
                    .unwrap_or_default();
                format!("may have no property other than the paths its shape declares{ignored}")
            }
            "hasValue" => format!("one of the values must be {o}"),
            "in" => format!("each value must be one of {o}"),
            _ => format!("sh:{local} {o}"),
        }
    }

    /// A term as Turtle, prefixed names where the document declared the prefix; a blank node
    /// inline (`[ sh:path dct:title ; sh:minCount 1 ]`, a list as `( … )`) down to `depth`.
    pub(super) fn turtle(&self, object: &Obj, depth: usize) -> String {
        match object {
            Obj::Node(Node::Iri(iri)) => self.graph.compact(iri),
            Obj::Node(blank @ Node::Blank(_)) => {
                if let Ok(items) = self.graph.list(object) {
                    let items: Vec<String> = items.iter().map(|i| self.turtle(i, depth)).collect();
                    return format!("( {} )", items.join(" "));
                }
                if depth == 0 {
                    return "[ … ]".to_string();
                }
                let parts: Vec<String> = self
                    .graph
                    .about(blank)
                    .map(|t| {
                        format!(
                            "{} {}",
                            self.graph.compact(&t.predicate),
                            self.turtle(&t.object, depth - 1)
                        )
                    })
                    .collect();
                if parts.is_empty() {
                    "[]".to_string()
                } else {
                    format!("[ {} ]", parts.join(" ; "))
                }
            }
            // Numbers and booleans as Turtle writes them bare.
            Obj::Literal(l) if l.language.is_none() && bare(&l.datatype) => l.value.clone(),
            other => show(other),
        }
    }
}

/// Datatypes whose literals Turtle writes without quotes.
fn bare(datatype: &str) -> bool {
    matches!(
        datatype.strip_prefix(super::values::XSD),
        Some("integer" | "decimal" | "double" | "boolean")
    )
}

/// `lessThan` → `LessThan`.
pub(super) fn capitalized(local: &str) -> String {
    let mut chars = local.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}
