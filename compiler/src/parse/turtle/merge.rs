//! Conjunctions SHACL allows and a class cannot repeat: several node shapes targeting one
//! class, and several property shapes with one path in a class. Each is the conjunction of
//! its parts (SHACL §2.1: a focus node must conform to every shape that targets it): one class,
//! one property, the counts and lengths combined exactly, and any other constraint the
//! property already carries differently left to the engine. Names derived from paths that
//! collide (`dct:title`, `dc:title`) are told apart by prefix (`docs/dna-format.md`).

use serde_json::Value;

use crate::model::Enforced;
use crate::model::{NodeKind, local_name};
use crate::shacl::vocab::compact;
use crate::shape::{ClassShape, PropertyShape, Spanned};

/// Merges the class shapes that target the same class into the first of them.
pub(super) fn same_targets(shapes: Vec<ClassShape>, prefix_of: &dyn Fn(&str) -> Option<String>) -> Vec<ClassShape> {
    let mut merged: Vec<ClassShape> = Vec::new();
    for shape in shapes {
        let Some(first) = merged.iter_mut().find(|m| m.target_class == shape.target_class) else {
            merged.push(shape);
            continue;
        };
        first.interpretation_hint = first.interpretation_hint.take().or(shape.interpretation_hint);
        for parent in shape.parent_shapes {
            if !first.parent_shapes.iter().any(|p| p.value == parent.value) {
                first.parent_shapes.push(parent);
            }
        }
        first.enforced.extend(shape.enforced);
        first.unenforced.extend(shape.unenforced);
        let mut properties = std::mem::take(&mut first.properties);
        properties.extend(shape.properties);
        let (properties, notes) = same_paths(properties, prefix_of);
        first.properties = properties;
        first.enforced.extend(notes);
    }
    merged
}

/// Two class IRIs with one local name (`dcat:Resource`, `rdfs:Resource`) would be one class
/// name: the later is named by its prefix too (`RdfsResource`), as SHACL allows both.
pub(super) fn distinct_class_names(classes: &mut [ClassShape], prefix_of: &dyn Fn(&str) -> Option<String>) {
    let local = |c: &ClassShape| local_name(c.target_class.as_deref().unwrap_or_default()).to_string();
    for i in 0..classes.len() {
        let mine = local(&classes[i]);
        let taken = |name: &str, classes: &[ClassShape]| {
            classes[..i]
                .iter()
                .any(|c| c.name.clone().unwrap_or_else(|| local(c)) == name)
        };
        if !taken(&mine, classes) {
            continue;
        }
        let target = classes[i].target_class.clone().unwrap_or_default();
        let mut name = match prefix_of(&target) {
            Some(prefix) if !prefix.is_empty() => super::engine::capitalized(&prefix) + &mine,
            _ => format!("{mine}2"),
        };
        let mut n = 2;
        while taken(&name, classes) {
            n += 1;
            name = format!("{mine}{n}");
        }
        classes[i].name = Some(name);
    }
}

/// Merges property shapes with the same path; renames derived names that collide.
pub(super) fn same_paths(
    properties: Vec<PropertyShape>,
    prefix_of: &dyn Fn(&str) -> Option<String>,
) -> (Vec<PropertyShape>, Vec<Enforced>) {
    let mut out: Vec<PropertyShape> = Vec::new();
    let mut notes = Vec::new();
    for p in properties {
        match out.iter_mut().find(|q| q.path == p.path) {
            Some(first) => notes.extend(conjoin(first, p)),
            None => out.push(p),
        }
    }
    for i in 0..out.len() {
        if out[i].name.is_some() {
            continue;
        }
        let path = out[i].path.clone().unwrap_or_default();
        let derived = local_name(&path).to_string();
        let taken = |name: &str, out: &[PropertyShape]| out[..i].iter().any(|q| name_of(q) == name);
        if !taken(&derived, &out) {
            continue;
        }
        let mut name = match prefix_of(&path) {
            Some(prefix) if !prefix.is_empty() => format!("{prefix}_{derived}"),
            _ => format!("{derived}_2"),
        };
        let mut n = 2;
        while taken(&name, &out) {
            n += 1;
            name = format!("{derived}_{n}");
        }
        out[i].name = Some(name);
    }
    (out, notes)
}

fn name_of(p: &PropertyShape) -> String {
    p.name
        .clone()
        .unwrap_or_else(|| local_name(p.path.as_deref().unwrap_or_default()).to_string())
}

/// `other`'s constraints added to `first`; what `first` cannot carry as well, in words.
fn conjoin(first: &mut PropertyShape, other: PropertyShape) -> Vec<Enforced> {
    let mut notes = Vec::new();
    let about = name_of(first);
    let mut note = |parameter: &str, text: String| {
        notes.push(Enforced {
            component: super::engine::capitalized(parameter),
            property: Some(about.clone()),
            text,
        });
    };
    first.min_count = first.min_count.max(other.min_count);
    first.max_count = min(first.max_count, other.max_count);
    first.min_length = first.min_length.max(other.min_length);
    first.max_length = min(first.max_length, other.max_length);
    first.name = first.name.take().or(other.name);
    first.interpretation_hint = first.interpretation_hint.take().or(other.interpretation_hint);
    if other.writable == Some(false) {
        first.writable = Some(false);
    }
    let iri = |s: &Spanned<String>| compact(&s.value);
    either(&mut first.datatype, other.datatype, |d| {
        note(
            "datatype",
            format!("each value must be a literal of datatype {}", iri(d)),
        )
    });
    // By value: the same kind said (or implied by `sh:class`) at two places is one kind.
    let other_kind = other
        .node_kind
        .filter(|k| first.node_kind.as_ref().is_none_or(|f| f.value != k.value));
    either(&mut first.node_kind, other_kind, |k| {
        note("nodeKind", format!("each value must be of node kind {}", iri(k)))
    });
    either(&mut first.class, other.class, |c| {
        note(
            "class",
            format!(
                "each value must be an instance of {} (an rdf:type link to it or to a subclass)",
                iri(c)
            ),
        )
    });
    if first.pattern.is_none() {
        first.flags = other.flags.clone();
    }
    either(&mut first.pattern, other.pattern, |p| {
        note(
            "pattern",
            format!("each value must match the regular expression {:?}", p.value),
        )
    });
    either(&mut first.in_values, other.in_values, |values| {
        let listed: Vec<String> = values.iter().map(|v| v.value.to_string()).collect();
        note("in", format!("each value must be one of ( {} )", listed.join(" ")))
    });
    either(&mut first.has_value, other.has_value, |v| {
        note("hasValue", format!("one of the values must be {}", show(v)))
    });
    // Several datatypes (or any term) say the least of a value: a datatype, class, node kind
    // or list of values from the other part says more and types the property instead (the
    // shapes that said the datatypes were noted as the engine's where they were read).
    let more = first.datatype.is_some()
        || first.class.is_some()
        || first.in_values.is_some()
        || first.has_value.is_some()
        || first
            .node_kind
            .as_ref()
            .and_then(|k| crate::check::node_kind(&k.value))
            .is_some_and(|k| {
                !matches!(
                    k,
                    NodeKind::Literal | NodeKind::IriOrLiteral | NodeKind::BlankNodeOrLiteral
                )
            });
    first.any_of = match (first.any_of.take(), other.any_of) {
        _ if more => None,
        (Some(a), Some(b)) if a.component.is_empty() => Some(b),
        (a, b) => a.or(b),
    };
    for (parameter, words, mine, theirs) in [
        (
            "minInclusive",
            "at least",
            &mut first.min_inclusive,
            other.min_inclusive,
        ),
        ("maxInclusive", "at most", &mut first.max_inclusive, other.max_inclusive),
        (
            "minExclusive",
            "greater than",
            &mut first.min_exclusive,
            other.min_exclusive,
        ),
        (
            "maxExclusive",
            "less than",
            &mut first.max_exclusive,
            other.max_exclusive,
        ),
    ] {
        either(mine, theirs, |n| {
            note(parameter, format!("each value must be {words} {n}"))
        });
    }
    notes
}

/// `theirs` into `mine` when `mine` is empty; `differs` with it when both are there and differ.
fn either<T: PartialEq>(mine: &mut Option<T>, theirs: Option<T>, mut differs: impl FnMut(&T)) {
    match (mine.as_ref(), theirs) {
        (None, theirs) => *mine = theirs,
        (Some(a), Some(b)) if *a != b => differs(&b),
        _ => {}
    }
}

fn min(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
