//! From shapes to the model: every rule of `docs/data-model.md` applied, every problem reported.
//!
//! Four passes, each over every class so nothing stops at the first problem:
//! 1. class headers: names, IRIs, duplicates (this module);
//! 2. each class's own properties and actions ([`property`], [`actions`]);
//! 3. inheritance, constructors and markers ([`inheritance`]);
//! 4. tool names: collisions and MCP's limits ([`collisions`]);
//! 5. flows: their states, transitions, classes and properties ([`flows`]).

mod actions;
mod collisions;
mod flows;
mod inheritance;
mod property;
mod vocabulary;

use std::collections::HashMap;

pub use flows::check_flow;
pub use vocabulary::{KNOWN_DATATYPES, datatype, node_kind};

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::literal::is_iri;
use crate::model::{Action, Dna, Property, local_name};
use crate::shape::{ClassShape, PropertyShape, ShapeDocument};

/// Checks a parsed document. The model is returned only when there is no error; the
/// diagnostics (notes and warnings too) always.
pub fn check(document: &ShapeDocument, fallback_name: &str) -> (Option<Dna>, Diagnostics) {
    let mut diags = Diagnostics::default();
    let headers = headers(document, &mut diags);
    let index = ClassIndex::new(&headers);
    let drafts: Vec<Draft> = headers
        .iter()
        .map(|h| property::draft(h, &document.classes[h.shape], &index, &mut diags))
        .collect();
    let classes = inheritance::resolve(&drafts, &index, &mut diags);
    collisions::check(&classes, &drafts, &mut diags);
    let flows = flows::check(&document.flows, &classes, &mut diags);
    let dna = Dna {
        name: document.name.clone().unwrap_or_else(|| fallback_name.to_string()),
        description: document.description.clone(),
        classes,
        flows,
        enforced: document.enforced.clone(),
    };
    let dna = if diags.has_errors() { None } else { Some(dna) };
    (dna, diags)
}

/// A class before its properties are read: what the other classes need to refer to it.
pub(crate) struct Header {
    /// Index into the document's classes.
    pub shape: usize,
    pub name: String,
    pub target_class: String,
    pub node_shape_uri: String,
}

/// A class with its own properties and actions read, before inheritance.
pub(crate) struct Draft<'a> {
    pub header: &'a Header,
    pub shape: &'a ClassShape,
    pub own: Vec<Property>,
    /// The shape each of `own` was read from, in the same order.
    pub own_shapes: Vec<&'a PropertyShape>,
    pub constructor: Vec<Action>,
    pub destructor: Vec<Action>,
}

/// Finds classes by name, target class IRI or node shape IRI.
pub(crate) struct ClassIndex<'a> {
    pub headers: &'a [Header],
    by_iri: HashMap<&'a str, usize>,
}

impl<'a> ClassIndex<'a> {
    fn new(headers: &'a [Header]) -> Self {
        let mut by_iri = HashMap::new();
        for (i, h) in headers.iter().enumerate() {
            by_iri.entry(h.target_class.as_str()).or_insert(i);
            by_iri.entry(h.node_shape_uri.as_str()).or_insert(i);
        }
        ClassIndex { headers, by_iri }
    }

    /// A class by its target class IRI or its node shape IRI.
    pub fn by_iri(&self, iri: &str) -> Option<usize> {
        self.by_iri.get(iri).copied()
    }

    pub fn by_name(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h.name == name)
    }

    pub fn names(&self) -> String {
        self.headers
            .iter()
            .map(|h| h.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn headers(document: &ShapeDocument, diags: &mut Diagnostics) -> Vec<Header> {
    let mut headers: Vec<Header> = Vec::new();
    for (i, shape) in document.classes.iter().enumerate() {
        // A missing target_class was reported by the front end.
        let Some(target_class) = &shape.target_class else {
            continue;
        };
        let at = || shape.origin.child("target_class");
        let name = shape
            .name
            .clone()
            .unwrap_or_else(|| local_name(target_class).to_string());
        if !is_iri(target_class) || name.is_empty() {
            diags.push(
                Diagnostic::error("invalid-iri", at(), format!("target_class `{target_class}` is not an IRI with a local name"))
                    .help("write an IRI such as `app://Channel`: a scheme, then the class name after the last `/`, `#` or `:`"),
            );
            continue;
        }
        if let Some(given) = &shape.class_name
            && given != &name
        {
            diags.push(
                Diagnostic::error(
                    "class-name-mismatch",
                    shape.origin.child("class_name"),
                    format!(
                        "class_name `{given}` does not match the class name `{name}` of target_class `{target_class}`"
                    ),
                )
                .class(&name)
                .help(format!("use class_name `{name}`, or change target_class")),
            );
        }
        if let Some(first) = headers.iter().find(|h| h.name == name) {
            diags.push(
                Diagnostic::error(
                    "duplicate-class",
                    at(),
                    format!(
                        "class `{name}` is declared twice (also by target_class `{}`)",
                        first.target_class
                    ),
                )
                .class(&name)
                .help("give each class a distinct local name, or merge the two shapes"),
            );
            continue;
        }
        let node_shape_uri = shape.node_shape_uri.clone().unwrap_or_else(|| {
            let local = local_name(target_class);
            let namespace = &target_class[..target_class.len() - local.len()];
            format!("{namespace}{name}Shape")
        });
        headers.push(Header {
            shape: i,
            name,
            target_class: target_class.clone(),
            node_shape_uri,
        });
    }
    headers
}
