//! The constraints of a class shape that the typed surface does not carry, recorded as
//! [`Enforced`]: the SHACL Core engine enforces them on every validated write, from the same
//! shapes graph (docs/validation.md). A note says so; only `sh:` predicates that are no Core
//! parameter at all stay a warning.

use super::graph::{Node, Obj};
use super::values::show;
use super::{At, Reader};
use crate::diagnostic::Severity;
use crate::model::{Enforced, local_name};

/// Core parameters that belong to another parameter's component (they say nothing alone).
const COMPANIONS: &[&str] = &[
    "qualifiedValueShape",
    "qualifiedValueShapesDisjoint",
    "ignoredProperties",
    "flags",
];

/// Every SHACL Core constraint parameter (SHACL §4), by local name.
const CORE_PARAMETERS: &[&str] = &[
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
    "flags",
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
    "qualifiedMinCount",
    "qualifiedMaxCount",
    "qualifiedValueShapesDisjoint",
    "closed",
    "ignoredProperties",
    "hasValue",
    "in",
];

impl Reader<'_, '_> {
    /// Records `sh:<local>` of a shape as engine-enforced (a note says so); `false` when
    /// `local` is no SHACL Core parameter (the caller warns).
    pub(super) fn enforce(&mut self, local: &str, values: &[&Obj], at: &At<'_>, what: &str) -> bool {
        if !CORE_PARAMETERS.contains(&local) {
            return false;
        }
        if COMPANIONS.contains(&local) {
            return true;
        }
        let shown: Vec<String> = values.iter().map(|o| short_obj(o)).collect();
        self.enforced.push(Enforced {
            component: component(local),
            property: at.property.map(str::to_string),
            text: words(local, &shown),
        });
        self.diagnostics.push(at.diag(
            Severity::Note,
            "engine-enforced",
            format!("{what}: sh:{local} is enforced by the SHACL Core engine at write, not in the tool's schema"),
            "nothing to do: a write that breaks it is refused with the constraint named",
        ));
        true
    }

    /// A property shape whose path is not one predicate: the engine enforces the whole shape.
    pub(super) fn enforce_path(&mut self, path: &str, at: &At<'_>, shape: &str) {
        self.enforced.push(Enforced {
            component: "Property".to_string(),
            property: Some(path.to_string()),
            text: format!("the values reached by the path {path} must conform to its property shape"),
        });
        self.diagnostics.push(at.diag(
            Severity::Note,
            "engine-enforced",
            format!(
                "shape <{shape}>: the property shape whose path is {path} is enforced by the SHACL Core engine at \
                 write; it is no tool parameter"
            ),
            "nothing to do: to make it a parameter, use one predicate IRI as its path",
        ));
    }
}

/// `lessThan` → `LessThan`: the component's local name for a parameter.
fn component(local: &str) -> String {
    let mut chars = local.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

fn short_obj(obj: &Obj) -> String {
    match obj {
        Obj::Node(Node::Iri(iri)) => local_name(iri).to_string(),
        Obj::Node(Node::Blank(_)) => "an inline shape".to_string(),
        other => show(other),
    }
}

/// What a conforming value looks like, in words.
fn words(local: &str, values: &[String]) -> String {
    let v = values.join(", ");
    match local {
        "node" => format!("each value must conform to the shape {v}"),
        "and" => "each value must conform to every shape of a list (sh:and)".to_string(),
        "or" => "each value must conform to at least one shape of a list (sh:or)".to_string(),
        "xone" => "each value must conform to exactly one shape of a list (sh:xone)".to_string(),
        "not" => format!("no value may conform to the shape {v}"),
        "equals" => format!("must have exactly the same values as {v}"),
        "disjoint" => format!("must share no value with {v}"),
        "lessThan" => format!("each value must be less than every value of {v}"),
        "lessThanOrEquals" => format!("each value must be less than or equal to every value of {v}"),
        "qualifiedMinCount" => format!("at least {v} values must conform to the qualified shape"),
        "qualifiedMaxCount" => format!("at most {v} values may conform to the qualified shape"),
        "closed" => "the instance may carry only the properties its shape declares".to_string(),
        "languageIn" => format!("each value must have a language tag among {v}"),
        "uniqueLang" => "no two values may share a language tag".to_string(),
        "class" => format!("each value must be an instance of {v}"),
        other => format!("sh:{other} {v}"),
    }
}
