//! Inheritance (`parent_shapes`, `sh:node`), the whole create and delete sequences, and the
//! class markers that make a node an instance (`docs/data-model.md`, What makes a node an instance).

use super::actions::is_constant;
use super::{ClassIndex, Draft};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::literal;
use crate::model::{AD4M_RDF_TYPE, Action, ActionKind, Class, Enforced, MarkerLink, Property, ValueType};

pub(crate) fn resolve(drafts: &[Draft], index: &ClassIndex, diags: &mut Diagnostics) -> Vec<Class> {
    let parents: Vec<Vec<usize>> = drafts.iter().map(|d| parent_indices(d, index, diags)).collect();
    let mut resolver = Resolver {
        drafts,
        parents,
        done: vec![None; drafts.len()],
        visiting: vec![false; drafts.len()],
    };
    (0..drafts.len()).map(|i| resolver.class(i, diags)).collect()
}

fn parent_indices(draft: &Draft, index: &ClassIndex, diags: &mut Diagnostics) -> Vec<usize> {
    let mut found = Vec::new();
    for parent in &draft.shape.parent_shapes {
        match index.by_iri(&parent.value) {
            Some(i) if !found.contains(&i) => found.push(i),
            Some(_) => {}
            None => diags.push(
                Diagnostic::error(
                    "unknown-parent",
                    parent.origin.clone(),
                    format!("parent shape <{}> is not in this DNA", parent.value),
                )
                .class(&draft.header.name)
                .help(format!(
                    "name the node shape IRI (or target class) of one of: {}",
                    index.names()
                )),
            ),
        }
    }
    found
}

struct Resolver<'a> {
    drafts: &'a [Draft<'a>],
    parents: Vec<Vec<usize>>,
    done: Vec<Option<Class>>,
    visiting: Vec<bool>,
}

impl Resolver<'_> {
    fn class(&mut self, i: usize, diags: &mut Diagnostics) -> Class {
        if let Some(done) = &self.done[i] {
            return done.clone();
        }
        self.visiting[i] = true;
        let draft = &self.drafts[i];
        let name = draft.header.name.clone();
        let mut parent_classes = Vec::new();
        for &p in &self.parents[i].clone() {
            if self.visiting[p] {
                diags.push(
                    Diagnostic::error(
                        "inheritance-cycle",
                        draft.shape.origin.child("parent_shapes"),
                        format!(
                            "class `{name}` inherits from itself through `{}`",
                            self.drafts[p].header.name
                        ),
                    )
                    .class(&name)
                    .help("remove one parent_shapes entry so the inheritance has no cycle"),
                );
                continue;
            }
            parent_classes.push(self.class(p, diags));
        }
        let class = build(draft, &parent_classes, diags);
        self.visiting[i] = false;
        self.done[i] = Some(class.clone());
        class
    }
}

fn build(draft: &Draft, parents: &[Class], diags: &mut Diagnostics) -> Class {
    let name = &draft.header.name;
    let mut properties: Vec<Property> = Vec::new();
    for parent in parents {
        for p in &parent.properties {
            if !properties
                .iter()
                .any(|q| q.name == p.name && q.declared_in == p.declared_in)
            {
                properties.push(p.clone());
            }
        }
    }
    for (own, shape) in draft.own.iter().zip(&draft.own_shapes) {
        if let Some(inherited) = properties.iter().find(|q| q.name == own.name) {
            diags.push(
                Diagnostic::error(
                    "duplicate-property",
                    shape.origin.clone(),
                    format!(
                        "property `{}` is already declared by parent class `{}`",
                        own.name, inherited.declared_in
                    ),
                )
                .class(name)
                .property(&own.name)
                .help("rename it, or drop it and use the inherited property"),
            );
            continue;
        }
        properties.push(own.clone());
    }

    check_targets(draft, &properties, diags);

    let mut own_constructor = draft.constructor.clone();
    let own_marker = marker(draft, &properties, &mut own_constructor, diags);

    let mut constructor = Vec::new();
    let mut marker = Vec::new();
    let mut destructor = draft.destructor.clone();
    for parent in parents {
        extend_unique(&mut constructor, &parent.constructor);
        extend_unique(&mut marker, &parent.marker);
        extend_unique(&mut destructor, &parent.destructor);
    }
    extend_unique(&mut constructor, &own_constructor);
    extend_unique(&mut marker, &own_marker);
    // A parent's shape validates the child's instances too (they carry its marker).
    let mut enforced = Vec::new();
    let mut unenforced = Vec::new();
    for parent in parents {
        extend_unique(&mut enforced, &parent.enforced);
        extend_unique(&mut unenforced, &parent.unenforced);
    }
    extend_unique(&mut enforced, &draft.shape.enforced);
    extend_unique(&mut unenforced, &draft.shape.unenforced);
    // A `sh:class` outside the DNA: the typed check sees an IRI, the engine the `rdf:type`.
    for p in draft.own.iter().filter(|p| p.target_class.is_none()) {
        if let Some(class) = &p.class {
            let outside = Enforced {
                component: "Class".to_string(),
                property: Some(p.name.clone()),
                text: format!(
                    "each value must be an instance of <{class}>: the perspective must hold a link \
                     (value, rdf:type, <{class}>) or to a subclass"
                ),
            };
            extend_unique(&mut enforced, &[outside]);
        }
    }

    Class {
        name: name.clone(),
        target_class: draft.header.target_class.clone(),
        node_shape_uri: draft.header.node_shape_uri.clone(),
        interpretation_hint: draft.shape.interpretation_hint.clone(),
        parents: parents.iter().map(|p| p.name.clone()).collect(),
        identity_property: properties.iter().find(|p| p.identity).map(|p| p.name.clone()),
        properties,
        constructor,
        destructor,
        marker,
        enforced,
        unenforced,
    }
}

/// Constructor targets that are not constants name a property (substitution); property
/// actions take `value`, `this` or a constant. Reads the written actions, which keep their
/// origins (an action of unknown kind was reported already).
fn check_targets(draft: &Draft, properties: &[Property], diags: &mut Diagnostics) {
    let name = &draft.header.name;
    let known = |w: &&crate::shape::ActionShape| ActionKind::parse(&w.action).is_some();
    for w in draft.shape.constructor.iter().flatten().filter(known) {
        let t = w.target.as_str();
        if is_constant(t) || t == "this" || properties.iter().any(|p| p.name == t) {
            continue;
        }
        diags.push(
            Diagnostic::error(
                "unknown-action-target",
                w.origin.child("target"),
                format!("constructor target `{t}` is not a property of class `{name}`, an IRI or a literal"),
            )
            .class(name)
            .help("name a property (its value from the create call is substituted), or write an IRI or an encoded literal such as `literal:string:open`"),
        );
    }
    for (p, shape) in draft.own.iter().zip(&draft.own_shapes) {
        let written = [&shape.setter, &shape.adder, &shape.remover];
        for w in written.into_iter().flatten().flatten().filter(known) {
            let t = w.target.as_str();
            if !(t == "value" || t == "this" || is_constant(t)) {
                diags.push(
                    Diagnostic::error(
                        "unknown-action-target",
                        w.origin.child("target"),
                        format!("action target `{t}` is not `value`, `this`, an IRI or a literal"),
                    )
                    .class(name)
                    .property(&p.name)
                    .help("write `value` for the value being written"),
                );
            }
        }
    }
}

/// The class's own marker; adds to `constructor` the links it must write.
fn marker(
    draft: &Draft,
    properties: &[Property],
    constructor: &mut Vec<Action>,
    diags: &mut Diagnostics,
) -> Vec<MarkerLink> {
    let writable_paths: Vec<&str> = properties
        .iter()
        .filter(|p| p.is_writable())
        .map(|p| p.path.as_str())
        .collect();
    let mut marker: Vec<MarkerLink> = constructor
        .iter()
        .filter(|a| {
            a.kind == ActionKind::AddLink
                && a.source == "this"
                && is_constant(&a.target)
                && !writable_paths.contains(&a.predicate.as_str())
        })
        .map(|a| MarkerLink {
            predicate: a.predicate.clone(),
            target: a.target.clone(),
        })
        .collect();
    for p in draft.own.iter().filter(|p| p.is_marker()) {
        let Some(value) = &p.has_value else { continue };
        let target = match value {
            serde_json::Value::String(s) if s.contains(':') => s.clone(),
            serde_json::Value::String(s) => match p.value_type {
                ValueType::Integer(_) | ValueType::Number => format!("literal:number:{s}"),
                ValueType::Boolean => format!("literal:boolean:{s}"),
                _ => literal::string(s),
            },
            other => literal::from_json(other).unwrap_or_default(),
        };
        let link = MarkerLink {
            predicate: p.path.clone(),
            target,
        };
        let written = constructor
            .iter()
            .any(|a| a.source == "this" && a.predicate == link.predicate && a.target == link.target);
        if !written {
            constructor.push(Action {
                kind: ActionKind::AddLink,
                source: "this".into(),
                predicate: link.predicate.clone(),
                target: link.target.clone(),
                local: p.local,
            });
        }
        if !marker.contains(&link) {
            marker.push(link);
        }
    }
    if marker.is_empty() {
        let link = MarkerLink {
            predicate: AD4M_RDF_TYPE.to_string(),
            target: draft.header.target_class.clone(),
        };
        diags.push(
            Diagnostic::note(
                "no-marker",
                draft.shape.origin.clone(),
                format!("class `{}` has no marker; `addLink(this, {}, {})` is added to its constructor", draft.header.name, link.predicate, link.target),
            )
            .class(&draft.header.name)
            .help("add a constant addLink to the constructor, or a `has_value` property with min_count 1, to choose the marker yourself"),
        );
        constructor.push(Action {
            kind: ActionKind::AddLink,
            source: "this".into(),
            predicate: link.predicate.clone(),
            target: link.target.clone(),
            local: false,
        });
        marker.push(link);
    }
    marker
}

fn extend_unique<T: Clone + PartialEq>(into: &mut Vec<T>, from: &[T]) {
    for item in from {
        if !into.contains(item) {
            into.push(item.clone());
        }
    }
}
