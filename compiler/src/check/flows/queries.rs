//! The queries of a flow (a state's `requires`, a rule's role) and its consensus rules: the
//! class and every property a query names must exist, its filter must be one instance_query
//! takes, and a count must be possible.

use serde_json::{Map, Value};

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::model::{Class, Query, Role, Rule};
use crate::shape::{Origin, QueryShape, RuleShape};

pub(super) fn query(q: &QueryShape, classes: &[Class], diags: &mut Diagnostics) -> Option<Query> {
    let class_name = q.class_name.as_ref()?;
    let class = known_class(classes, &class_name.value, &class_name.origin, diags)?;
    let before = diags.errors();
    let filter = match &q.filter {
        Some(f) => {
            check_filter(class, &f.value, &f.origin, diags);
            f.value.clone()
        }
        None => Map::new(),
    };
    let min = q.min.unwrap_or(1);
    if let Some(max) = q.max.filter(|max| *max < min) {
        diags.push(
            Diagnostic::error(
                "count-conflict",
                q.origin.child("count"),
                format!("count min {min} is above max {max}"),
            )
            .help("make min at most max (min defaults to 1)"),
        );
    }
    (diags.errors() == before).then(|| Query {
        class_name: class.name.clone(),
        filter,
        min,
        max: q.max,
        linked_to: q.linked_to.clone(),
    })
}

/// The keys of an instance_query filter: combinators, `id`, and the class's readable
/// properties, with the operators instance_query knows.
fn check_filter(class: &Class, filter: &Map<String, Value>, at: &Origin, diags: &mut Diagnostics) {
    for (key, value) in filter {
        let here = at.child(key);
        match (key.as_str(), value) {
            ("AND" | "OR", Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::Object(o) => check_filter(class, o, &here.child(i), diags),
                        _ => diags.push(bad_filter(
                            &here.child(i),
                            format!("every item of `{key}` is a filter object"),
                        )),
                    }
                }
            }
            ("AND" | "OR", _) => diags.push(bad_filter(&here, format!("`{key}` takes an array of filters"))),
            ("NOT", Value::Object(o)) => check_filter(class, o, &here, diags),
            ("NOT", _) => diags.push(bad_filter(&here, "`NOT` takes a filter object".to_string())),
            ("id", v) => check_operators(v, &here, diags),
            (name, v) => {
                let names: Vec<&str> = class
                    .visible_properties()
                    .filter(|p| p.getter.is_none())
                    .map(|p| p.name.as_str())
                    .collect();
                if !names.contains(&name) {
                    diags.push(
                        Diagnostic::error(
                            "unknown-property",
                            here.clone(),
                            format!("class `{}` has no property `{name}` to filter on", class.name),
                        )
                        .help(format!("filter on id or on one of: {}", names.join(", "))),
                    );
                }
                check_operators(v, &here, diags);
            }
        }
    }
}

fn check_operators(value: &Value, at: &Origin, diags: &mut Diagnostics) {
    let Value::Object(ops) = value else { return };
    for op in ops.keys() {
        if !["gt", "gte", "lt", "lte", "contains", "not"].contains(&op.as_str()) {
            diags.push(bad_filter(
                &at.child(op),
                format!("unknown operator `{op}`: use gt, gte, lt, lte, contains or not"),
            ));
        }
    }
}

fn bad_filter(at: &Origin, message: String) -> Diagnostic {
    Diagnostic::error("invalid-filter", at.clone(), message)
        .help("write `where` as an instance_query filter: `{ \"status\": \"open\" }`, `{ \"priority\": { \"gte\": 3 } }`, AND/OR/NOT")
}

pub(super) fn rule(r: &RuleShape, classes: &[Class], diags: &mut Diagnostics) -> Option<Rule> {
    let n = r.n.unwrap_or(1);
    if n == 0 {
        diags.push(
            Diagnostic::error("invalid-value", r.origin.child("n"), "a consensus of 0 agents")
                .help("n counts distinct agents: 1 or more"),
        );
        return None;
    }
    let from_role = match &r.from_role {
        None => None,
        Some(role) => {
            let query = query(&role.query, classes, diags)?;
            let did = role.did_property.as_ref()?;
            let class = classes.iter().find(|c| c.name == query.class_name)?;
            if class.property(&did.value).filter(|p| !p.is_marker()).is_none() {
                diags.push(
                    Diagnostic::error(
                        "unknown-property",
                        did.origin.clone(),
                        format!("class `{}` has no property `{}`", class.name, did.value),
                    )
                    .help("name the property of the role's class that holds each member's DID"),
                );
                return None;
            }
            Some(Role {
                query,
                did_property: did.value.clone(),
            })
        }
    };
    Some(Rule { n, from_role })
}

pub(super) fn known_class<'c>(
    classes: &'c [Class],
    name: &str,
    at: &Origin,
    diags: &mut Diagnostics,
) -> Option<&'c Class> {
    let found = classes.iter().find(|c| c.name == name);
    if found.is_none() {
        let names: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
        diags.push(
            Diagnostic::error("unknown-class", at.clone(), format!("unknown class `{name}`")).help(format!(
                "the classes are: {} (or \"any\" in input_types)",
                names.join(", ")
            )),
        );
    }
    found
}
