//! One class's own properties and actions: precedence rules 1 to 5 of `docs/data-model.md`.

use std::collections::HashSet;

use super::actions::{convert, default_action, is_constant};
use super::vocabulary::{self, KNOWN_DATATYPES};
use super::{ClassIndex, Draft, Header};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::literal::is_iri;
use crate::model::{
    Access, ActionKind, AllowedValue, Alternative, AnyOf, Constraints, NodeKind, Pattern, Property,
    RESERVED_PROPERTY_NAMES, ReadOnlyReason, Relation, ValueType, alternative_nodes, local_name,
};
use crate::shape::{AnyOfShape, ClassShape, PropertyShape};

pub(crate) fn draft<'a>(
    header: &'a Header,
    shape: &'a ClassShape,
    index: &ClassIndex,
    diags: &mut Diagnostics,
) -> Draft<'a> {
    let class = header.name.as_str();
    let constructor = convert(
        shape.constructor.as_deref().unwrap_or_default(),
        false,
        class,
        None,
        diags,
    );
    let destructor = convert(
        shape.destructor.as_deref().unwrap_or_default(),
        false,
        class,
        None,
        diags,
    );
    // Names a constructor substitutes (a target without `:`): candidates for create-only.
    let substituted: HashSet<&str> = constructor
        .iter()
        .map(|a| a.target.as_str())
        .filter(|t| !is_constant(t) && *t != "this")
        .collect();
    let mut own: Vec<Property> = Vec::new();
    let mut own_shapes = Vec::new();
    let mut identity: Option<String> = None;
    for p in &shape.properties {
        let Some(property) = property(p, class, index, &substituted, diags) else {
            continue;
        };
        if own.iter().any(|q| q.name == property.name) {
            diags.push(
                Diagnostic::error(
                    "duplicate-property",
                    p.origin.child("name"),
                    format!("property `{}` is declared twice in class `{class}`", property.name),
                )
                .class(class)
                .property(&property.name)
                .help("give each property a distinct `name`"),
            );
            continue;
        }
        if property.identity {
            if let Some(first) = &identity {
                diags.push(
                    Diagnostic::error(
                        "duplicate-identity",
                        p.origin.child("identity"),
                        format!(
                            "class `{class}` has two identity properties, `{first}` and `{}`",
                            property.name
                        ),
                    )
                    .class(class)
                    .property(&property.name)
                    .help("mark at most one property per class with `identity: true`"),
                );
            } else {
                identity = Some(property.name.clone());
            }
        }
        own.push(property);
        own_shapes.push(p);
    }
    Draft {
        header,
        shape,
        own,
        own_shapes,
        constructor,
        destructor,
    }
}

/// Reads one property shape; `None` when it has no usable path or name.
fn property(
    p: &PropertyShape,
    class: &str,
    index: &ClassIndex,
    substituted: &HashSet<&str>,
    diags: &mut Diagnostics,
) -> Option<Property> {
    // A missing path was reported by the front end.
    let path = p.path.as_deref()?;
    let name = p.name.clone().unwrap_or_else(|| local_name(path).to_string());
    let err = |code: &'static str, at: crate::shape::Origin, message: String| {
        Diagnostic::error(code, at, message).class(class).property(&name)
    };
    if !is_iri(path) {
        diags.push(
            err(
                "invalid-iri",
                p.origin.child("path"),
                format!("path `{path}` is not an IRI"),
            )
            .help("write the predicate as an IRI such as `app://has_name`"),
        );
    }
    if name.is_empty() {
        diags.push(
            err(
                "invalid-name",
                p.origin.child("name"),
                "the property has an empty name".to_string(),
            )
            .help("give it a `name`, or a path whose local name is not empty"),
        );
        return None;
    }
    if RESERVED_PROPERTY_NAMES.contains(&name.as_str()) {
        diags.push(
            err(
                "reserved-name",
                p.origin.child("name"),
                format!("property name `{name}` is reserved"),
            )
            .help(format!(
                "rename it; reserved names are {}",
                RESERVED_PROPERTY_NAMES.join(", ")
            )),
        );
    }

    // Relations and references.
    let relation_kind = p.relation_kind.as_ref().and_then(|k| {
        let kind = vocabulary::relation_kind(&k.value);
        if kind.is_none() {
            diags.push(
                err(
                    "unknown-relation-kind",
                    k.origin.clone(),
                    format!("unknown relation_kind `{}`", k.value),
                )
                .help("use hasOne, hasMany, belongsToOne or belongsToMany"),
            );
        }
        kind
    });
    let relation = relation_kind.and_then(|kind| match &p.target_class_name {
        Some(t) => Some(Relation {
            kind,
            target_class_name: t.value.clone(),
        }),
        None => {
            diags.push(
                err(
                    "missing-key",
                    p.origin.clone(),
                    format!("relation `{}` has no `target_class_name`", kind.as_str()),
                )
                .help("name the related class with `target_class_name`"),
            );
            None
        }
    });
    let mut target_class: Option<String> = None;
    if let Some(t) = &p.target_class_name {
        match index.by_name(&t.value) {
            Some(i) => target_class = Some(index.headers[i].name.clone()),
            None => diags.push(
                err(
                    "unknown-class",
                    t.origin.clone(),
                    format!("target_class_name `{}` is not a class of this DNA", t.value),
                )
                .help(format!("name one of: {}", index.names())),
            ),
        }
    }
    if let Some(c) = &p.class {
        match index.by_iri(&c.value) {
            Some(i) => {
                let named = &index.headers[i].name;
                if target_class.as_ref().is_some_and(|t| t != named) {
                    diags.push(
                        err(
                            "conflicting-keys",
                            c.origin.clone(),
                            format!(
                                "`class` <{}> is class `{named}` but target_class_name names another class",
                                c.value
                            ),
                        )
                        .help("make `class` and `target_class_name` name the same class"),
                    );
                }
                target_class = Some(named.clone());
            }
            // A class of another vocabulary (`foaf:Agent`): a reference property whose values
            // the engine checks by `rdf:type` (SHACL §4.1.1); the typed check sees an IRI.
            None if is_iri(&c.value) => {
                if let Some(named) = &target_class {
                    diags.push(
                        err(
                            "conflicting-keys",
                            c.origin.clone(),
                            format!(
                                "`class` <{}> is a class outside this DNA but target_class_name names class `{named}`",
                                c.value
                            ),
                        )
                        .help("make `class` and `target_class_name` name the same class"),
                    );
                }
            }
            None => diags.push(
                err(
                    "unknown-class",
                    c.origin.clone(),
                    format!("`class` <{}> is neither a class of this DNA nor an IRI", c.value),
                )
                .help(format!(
                    "use the target class or node shape IRI of one of: {}, or the full IRI of a class of another vocabulary",
                    index.names()
                )),
            ),
        }
    }

    // Type.
    let node_kind = p.node_kind.as_ref().and_then(|k| {
        let kind = vocabulary::node_kind(&k.value);
        if kind.is_none() {
            diags.push(
                err("unknown-node-kind", k.origin.clone(), format!("unknown node_kind `{}`", k.value))
                    .help("use IRI, Literal, BlankNode, BlankNodeOrIRI, BlankNodeOrLiteral or IRIOrLiteral (with or without `sh:`)"),
            );
        }
        kind
    });
    let declared = p.datatype.as_ref().and_then(|d| {
        let known = vocabulary::datatype(&d.value);
        if known.is_none() {
            diags.push(
                err(
                    "unknown-datatype",
                    d.origin.clone(),
                    format!("unknown datatype `{}`", d.value),
                )
                .help(format!("use one of {KNOWN_DATATYPES}")),
            );
        }
        known
    });
    let any_of = p.any_of.as_ref().and_then(|shape| any_of(shape, &err, diags));
    let is_reference = relation.is_some()
        || p.class.is_some()
        || matches!(
            node_kind,
            Some(NodeKind::Iri | NodeKind::BlankNodeOrIri | NodeKind::BlankNode)
        );
    let value_type = match (&declared, is_reference) {
        (Some((iri, _)), true) => {
            diags.push(
                err(
                    "conflicting-type",
                    p.origin.child("datatype"),
                    format!("datatype <{iri}> on a property whose values are IRIs"),
                )
                .help("drop `datatype`, or drop the IRI node kind / class / relation"),
            );
            ValueType::Reference
        }
        (_, true) => ValueType::Reference,
        (Some((_, t)), false) => *t,
        (None, false) if any_of.is_some() => ValueType::AnyOf,
        (None, false) => ValueType::String,
    };

    // Rule 1: scalar or collection.
    let collection = match (p.collection, relation.as_ref().map(|r| r.kind)) {
        (Some(c), _) => c,
        (None, Some(kind)) => kind.is_many(),
        (None, None) => p.max_count != Some(1),
    };
    if p.collection == Some(false) && p.max_count.is_some_and(|m| m > 1) {
        diags.push(
            err(
                "collection-conflict",
                p.origin.child("collection"),
                format!("`collection: false` with max_count {}", p.max_count.unwrap_or_default()),
            )
            .help("a single value has max_count 1: drop `collection: false`, or set max_count to 1"),
        );
    }
    let min_count = p.min_count.unwrap_or(0);
    if let Some(max) = p.max_count
        && min_count > max
    {
        diags.push(
            err(
                "count-conflict",
                p.origin.child("min_count"),
                format!("min_count {min_count} is above max_count {max}"),
            )
            .help("make min_count at most max_count"),
        );
    } else if !collection && min_count > 1 {
        diags.push(
            err(
                "count-conflict",
                p.origin.child("min_count"),
                format!("min_count {min_count} on a single-valued property"),
            )
            .help("use min_count 0 or 1, or make the property a collection"),
        );
    }

    // Rules 2 and 3: who may write it.
    let marker = p.has_value.is_some() && min_count >= 1;
    let reverse = relation.as_ref().is_some_and(|r| r.kind.is_reverse());
    let has_actions = p.setter.is_some() || p.adder.is_some() || p.remover.is_some();
    if p.writable == Some(true) && (p.getter.is_some() || reverse) {
        let why = if p.getter.is_some() {
            "a getter"
        } else {
            "a belongsTo relation"
        };
        diags.push(
            err(
                "writable-conflict",
                p.origin.child("writable"),
                format!("`writable: true` beside {why}, which is read-only"),
            )
            .help("drop `writable: true`"),
        );
    }
    if p.writable == Some(false) && has_actions {
        diags.push(
            err(
                "writable-conflict",
                p.origin.child("writable"),
                "`writable: false` beside a setter, adder or remover".to_string(),
            )
            .help("drop `writable: false`, or drop the actions"),
        );
    }
    let access = if marker {
        Access::ReadOnly(ReadOnlyReason::Marker)
    } else if p.getter.is_some() {
        Access::ReadOnly(ReadOnlyReason::Getter)
    } else if reverse {
        Access::ReadOnly(ReadOnlyReason::ReverseRelation)
    } else if p.writable == Some(false) {
        Access::ReadOnly(ReadOnlyReason::Declared)
    } else if collection || p.writable == Some(true) || p.setter.is_some() {
        Access::Writable
    } else if substituted.contains(name.as_str()) {
        Access::CreateOnly
    } else {
        Access::ReadOnly(ReadOnlyReason::NoSetter)
    };

    // Rule 4: required.
    let required = min_count >= 1 && matches!(access, Access::Writable | Access::CreateOnly);
    if min_count >= 1 && !marker && !required {
        diags.push(
            err(
                "unwritable-required",
                p.origin.child("min_count"),
                format!(
                    "property `{name}` is required (min_count {min_count}) but nothing can write it: {}",
                    access.reason().unwrap_or_default()
                ),
            )
            .help("make it writable (`writable: true` or a setter), set it in the constructor, or drop min_count"),
        );
    }

    let local = p.local.unwrap_or(false);
    let actions =
        |written: &Option<Vec<crate::shape::ActionShape>>, kind: ActionKind, applies: bool, diags: &mut Diagnostics| {
            match written {
                Some(w) => convert(w, local, class, Some(&name), diags),
                None if applies => default_action(kind, path, local),
                None => Vec::new(),
            }
        };
    let writable = access == Access::Writable;
    let setter = actions(&p.setter, ActionKind::SetSingleTarget, writable && !collection, diags);
    let adder = actions(&p.adder, ActionKind::AddLink, writable && collection, diags);
    let remover = actions(&p.remover, ActionKind::RemoveLink, writable && collection, diags);

    let constraints = constraints(p, value_type, &name, class, diags);
    Some(Property {
        name: name.clone(),
        path: path.to_string(),
        declared_in: class.to_string(),
        value_type,
        datatype: declared.map(|(iri, _)| iri),
        any_of: any_of.filter(|_| value_type == ValueType::AnyOf),
        collection,
        min_count,
        max_count: p.max_count,
        access,
        required,
        setter,
        adder,
        remover,
        node_kind,
        class: p.class.as_ref().map(|c| c.value.clone()),
        relation,
        target_class,
        constraints,
        has_value: p.has_value.clone(),
        getter: p.getter.clone(),
        identity: p.identity.unwrap_or(false),
        local,
        interpretation_hint: p.interpretation_hint.clone(),
        extras: p.extras.clone(),
    })
}

/// The datatypes of an [`AnyOfShape`], each one known (a diagnostic for each that is not);
/// `None` when fewer than two are left.
fn any_of(
    shape: &AnyOfShape,
    err: &dyn Fn(&'static str, crate::shape::Origin, String) -> Diagnostic,
    diags: &mut Diagnostics,
) -> Option<AnyOf> {
    let mut alternatives = Vec::new();
    for d in &shape.datatypes {
        if alternative_nodes(&d.value).is_some() {
            alternatives.push(Alternative {
                datatype: d.value.clone(),
                value_type: ValueType::Reference,
            });
            continue;
        }
        match vocabulary::datatype(&d.value) {
            Some((datatype, value_type)) => alternatives.push(Alternative { datatype, value_type }),
            None => diags.push(
                err(
                    "unknown-datatype",
                    d.origin.clone(),
                    format!("unknown datatype `{}`", d.value),
                )
                .help(format!("use one of {KNOWN_DATATYPES}")),
            ),
        }
    }
    (alternatives.len() > 1).then_some(AnyOf {
        component: shape.component,
        alternatives,
    })
}

/// `in`, `pattern`, lengths and ranges, each checked against the property's type.
fn constraints(
    p: &PropertyShape,
    value_type: ValueType,
    name: &str,
    class: &str,
    diags: &mut Diagnostics,
) -> Constraints {
    let err = |code: &'static str, at: crate::shape::Origin, message: String| {
        Diagnostic::error(code, at, message).class(class).property(name)
    };
    let numeric = matches!(value_type, ValueType::Integer(_) | ValueType::Number);
    let textual = matches!(
        value_type,
        ValueType::String | ValueType::DateTime(_) | ValueType::LangString | ValueType::Reference
    );

    let mut in_values = Vec::new();
    if let Some(values) = &p.in_values {
        if values.is_empty() {
            diags.push(
                err(
                    "invalid-value",
                    p.origin.child("in"),
                    "`in` lists no values".to_string(),
                )
                .help("list the allowed values, or drop `in`"),
            );
        }
        for (i, v) in values.iter().enumerate() {
            let fits = match value_type {
                ValueType::Boolean => v.value.is_boolean(),
                ValueType::Integer(_) => v.value.is_i64() || v.value.as_f64().is_some_and(|f| f.fract() == 0.0),
                ValueType::Number => v.value.is_number(),
                // A language-tagged value is an object; `in` takes JSON scalars.
                ValueType::LangString => false,
                _ => v.value.is_string(),
            };
            if !fits {
                diags.push(
                    err(
                        "invalid-value",
                        p.origin.child("in").child(i),
                        format!("`in` value {} is not {}", v.value, a(value_type.type_name())),
                    )
                    .help(format!(
                        "every allowed value must be a {} like the property",
                        value_type.type_name()
                    )),
                );
            }
            in_values.push(AllowedValue {
                value: v.value.clone(),
                label: v.label.clone(),
            });
        }
    }

    let pattern = p.pattern.as_ref().map(|pat| Pattern {
        source: pat.value.clone(),
        flags: p.flags.clone(),
    });
    let mut flags_ok = true;
    if let Some(flags) = &p.flags {
        flags_ok = false;
        if let Some(bad) = flags.chars().find(|c| !matches!(c, 'i' | 'm' | 's' | 'x')) {
            diags.push(
                err(
                    "invalid-pattern",
                    p.origin.child("flags"),
                    format!("unsupported regex flag `{bad}` in `{flags}`"),
                )
                .help("use the flags i, m, s and x"),
            );
        } else if p.pattern.is_none() {
            diags.push(
                err(
                    "invalid-pattern",
                    p.origin.child("flags"),
                    "`flags` without a `pattern`".to_string(),
                )
                .help("add a pattern, or drop flags"),
            );
        }
    }
    if let (Some(pat), Some(written)) = (&pattern, &p.pattern) {
        // With bad flags (reported above) the pattern is not compiled: its error would repeat them.
        if flags_ok && let Err(e) = regex::Regex::new(&pat.regex_source()) {
            let e = e.to_string();
            let reason = e
                .lines()
                .last()
                .unwrap_or_default()
                .trim()
                .trim_start_matches("error: ");
            diags.push(
                err(
                    "invalid-pattern",
                    written.origin.clone(),
                    format!("pattern `{}` does not compile: {reason}", pat.source),
                )
                .help("write a regular expression the `regex` crate accepts (no look-around, no backreferences)"),
            );
        }
        if !textual {
            diags.push(
                err(
                    "constraint-type-mismatch",
                    written.origin.clone(),
                    format!("`pattern` on {} property", a(value_type.type_name())),
                )
                .help("patterns apply to strings, datetimes and IRIs"),
            );
        }
    }

    for (key, value) in [("min_length", p.min_length), ("max_length", p.max_length)] {
        if value.is_some() && !textual {
            diags.push(
                err(
                    "constraint-type-mismatch",
                    p.origin.child(key),
                    format!("`{key}` on {} property", a(value_type.type_name())),
                )
                .help("lengths apply to strings"),
            );
        }
    }
    if let (Some(min), Some(max)) = (p.min_length, p.max_length)
        && min > max
    {
        diags.push(
            err(
                "range-conflict",
                p.origin.child("min_length"),
                format!("min_length {min} is above max_length {max}"),
            )
            .help("make min_length at most max_length"),
        );
    }

    let ranges = [
        ("min_inclusive", &p.min_inclusive),
        ("max_inclusive", &p.max_inclusive),
        ("min_exclusive", &p.min_exclusive),
        ("max_exclusive", &p.max_exclusive),
    ];
    for (key, value) in ranges {
        if value.is_some() && !numeric {
            diags.push(
                err(
                    "constraint-type-mismatch",
                    p.origin.child(key),
                    format!("`{key}` on {} property", a(value_type.type_name())),
                )
                .help("ranges apply to integers and numbers"),
            );
        }
    }
    let lower = p
        .min_inclusive
        .as_ref()
        .or(p.min_exclusive.as_ref())
        .and_then(serde_json::Number::as_f64);
    let upper = p
        .max_inclusive
        .as_ref()
        .or(p.max_exclusive.as_ref())
        .and_then(serde_json::Number::as_f64);
    if let (Some(lo), Some(hi)) = (lower, upper)
        && lo > hi
    {
        diags.push(
            err(
                "range-conflict",
                p.origin.clone(),
                format!("the lower bound {lo} is above the upper bound {hi}"),
            )
            .help("make the range non-empty"),
        );
    }

    Constraints {
        in_values,
        pattern,
        min_length: p.min_length,
        max_length: p.max_length,
        min_inclusive: p.min_inclusive.clone(),
        max_inclusive: p.max_inclusive.clone(),
        min_exclusive: p.min_exclusive.clone(),
        max_exclusive: p.max_exclusive.clone(),
    }
}

/// `a string`, `an integer`.
fn a(word: &str) -> String {
    let article = if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {word}")
}
