//! Which candidates a filter can have, as conditions on value keys the store answers through its
//! index ([`crate::value_key`]; docs/data-model.md, Filters).
//!
//! The rule is exactness: every instance the filter matches is among the candidates, and the
//! answer still comes from evaluating the filter on decoded values. So a condition narrows by
//! every key a matching link may have, whatever its spelling: a value is read from the *last*
//! readable link of a scalar, and that link, like every item of a collection, has one of those
//! keys. Having such a link is not having the value (a later link may win): the evaluation
//! decides. Only conditions that must all hold are pushed down (the top level and `AND`);
//! `contains`, `not`, `OR` and `NOT` are left to the evaluation.

use serde_json::Value;
use shacl_mcp_compiler::literal::lang_value;
use shacl_mcp_compiler::model::{Property, ValueType};

use super::query::{Filter, Op};
use crate::store::{KeyCondition, KeyRange, SourceQuery};
use crate::value_key::{self, boolean_key, iri_key, kind_bounds, number_key, string_key};

/// Beyond this many values in one any-of, a condition is left to the evaluation (every value is
/// a bound parameter).
const MAX_VALUES: usize = 1_000;

/// Adds to `query` what `f` requires of every match: key conditions, and the ids it may have.
pub(super) fn narrow(f: &Filter, query: &mut SourceQuery) {
    match f {
        Filter::All(parts) => parts.iter().for_each(|part| narrow(part, query)),
        Filter::Cond(None, op) => {
            if let Some(ids) = ids(op) {
                query.among = Some(match query.among.take() {
                    Some(among) => among.into_iter().filter(|id| ids.contains(id)).collect(),
                    None => ids,
                });
            }
        }
        Filter::Cond(Some(p), op) => {
            if let Some(condition) = key_condition(p, op) {
                query.keyed.push(condition);
            }
        }
        Filter::Any(_) | Filter::Not(_) => {}
    }
}

/// The ids an instance must have to match a condition on `id`: equality and any-of (an id is a
/// string, so other values match nothing).
fn ids(op: &Op) -> Option<Vec<String>> {
    let wanted: Vec<&Value> = match op {
        Op::Eq(v) => vec![v],
        Op::AnyOf(vs) if vs.len() <= MAX_VALUES => vs.iter().collect(),
        _ => return None,
    };
    Some(wanted.iter().filter_map(|v| v.as_str()).map(str::to_string).collect())
}

/// The keys a link of `p` may have when the condition holds for its value.
fn key_condition(p: &Property, op: &Op) -> Option<KeyCondition> {
    if p.value_type == ValueType::AnyOf {
        // Left to the evaluation: which keys a value of several datatypes has depends on which
        // of them it was read as.
        return None;
    }
    let mut condition = KeyCondition {
        predicate: p.path.clone(),
        ..KeyCondition::default()
    };
    match op {
        Op::Eq(v) => condition.keys = equal_keys(p.value_type, v),
        Op::AnyOf(vs) if vs.len() <= MAX_VALUES => {
            for v in vs {
                condition.keys.extend(equal_keys(p.value_type, v));
            }
            condition.keys.sort();
            condition.keys.dedup();
        }
        Op::Cmp(ordering, _, v) => condition.ranges = ranges(p.value_type, *ordering, v),
        _ => return None,
    }
    Some(condition)
}

/// The keys of every link `values::read` reads as a value equal to `v` (`same_value`).
fn equal_keys(value_type: ValueType, v: &Value) -> Vec<String> {
    match (value_type, v) {
        (ValueType::Reference, Value::String(iri)) => vec![iri_key(iri)],
        // A string is read from a string, an IRI, a number (as serde_json writes it: the text
        // parses back to the same number) or a boolean.
        (ValueType::String | ValueType::DateTime(_), Value::String(text)) => {
            let mut keys = vec![string_key(text), iri_key(text)];
            if let Some(f) = value_key::number(text).and_then(|n| n.as_f64()) {
                keys.push(number_key(f));
            }
            if text == "true" || text == "false" {
                keys.push(boolean_key(text == "true"));
            }
            keys
        }
        // A language-tagged string keys as its text; a filter gives the text, or the value object.
        (ValueType::LangString, Value::String(text)) => vec![string_key(text)],
        (ValueType::LangString, v) => lang_value(v).map(|(text, _)| string_key(text)).into_iter().collect(),
        (ValueType::Boolean, Value::Bool(b)) => vec![boolean_key(*b)],
        // Numbers compare as f64, as their keys are made.
        (ValueType::Integer(_) | ValueType::Number, Value::Number(n)) => {
            n.as_f64().map(number_key).into_iter().collect()
        }
        // Nothing of the property's type equals a value of another type.
        _ => Vec::new(),
    }
}

/// The key ranges of every link whose value compares with `v` as `ordering` (or equal; the
/// bounds are inclusive, as cut keys need). No range: no value compares (`compare` is `None`).
fn ranges(value_type: ValueType, ordering: std::cmp::Ordering, v: &Value) -> Vec<KeyRange> {
    let above_or_below = |kind: char, key: String| {
        let (low, high) = kind_bounds(kind);
        match ordering {
            std::cmp::Ordering::Less => KeyRange { low, high: key },
            _ => KeyRange { low: key, high },
        }
    };
    let whole = |kind: char| {
        let (low, high) = kind_bounds(kind);
        KeyRange { low, high }
    };
    match (value_type, v) {
        (ValueType::Integer(_) | ValueType::Number, Value::Number(n)) => match n.as_f64() {
            Some(f) => vec![above_or_below('n', number_key(f))],
            None => Vec::new(),
        },
        (ValueType::Reference, Value::String(text)) => vec![above_or_below('i', iri_key(text))],
        // Strings order as text; a string read from a number or a boolean may fall anywhere.
        (ValueType::String | ValueType::DateTime(_), Value::String(text)) => vec![
            above_or_below('s', string_key(text)),
            above_or_below('i', iri_key(text)),
            whole('n'),
            whole('b'),
        ],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::cmp::Ordering;

    use super::*;
    use crate::engine::FixedDna;
    use crate::engine::query::{compare, equal};
    use crate::engine::validate::same_value;
    use crate::engine::values;

    const TARGETS: &[&str] = &[
        "literal:string:done",
        "literal://string:done",
        "literal:d%6Fne^^xsd:string",
        "done",
        "literal:string:3",
        "literal:number:3",
        "literal:number:3.0",
        "literal:3^^xsd:integer",
        "literal:3.5^^xsd:decimal",
        "literal:number:-0.0",
        "literal:number:1e300",
        "literal:number:abc",
        "literal:boolean:true",
        "literal:true",
        "literal:boolean:maybe",
        "literal:string:2026-12-01T10:00:00Z",
        "2026-12-05T10:00:00Z",
        "did:key:z6MkA",
        "literal:string:did:key:z6MkA",
        "literal:string:",
        "literal:lang:de:done",
        "literal:lang:EN:done",
        "literal:lang:en:3",
        "literal:lang:de:",
    ];

    /// For every property type and spelling: a link read as a value has one of the keys equality
    /// on that value looks for, and lies in the ranges of every comparison it satisfies.
    #[test]
    fn the_keys_of_a_value_cover_every_target_read_as_it() {
        let dna = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dna/tasks.json");
        let (fixed, _) = FixedDna::load(&[dna]).unwrap();
        let task = fixed.classes()[0].clone();
        // And a language-tagged one.
        let mut lang = task.properties[0].clone();
        lang.name = "label".to_string();
        lang.value_type = ValueType::LangString;
        let read: Vec<(&Property, &str, Value)> = task
            .properties
            .iter()
            .chain([&lang])
            .flat_map(|p| TARGETS.iter().filter_map(move |t| Some((p, *t, values::read(p, t)?))))
            .collect();
        for (p, target, value) in &read {
            let key = value_key::key(target);
            assert!(
                equal_keys(p.value_type, value).contains(&key),
                "{} {target} {value}",
                p.name
            );
            // A string filter on a language-tagged property is its text.
            if let Some(text) = value.get("@value") {
                assert!(equal(value, text));
                assert!(equal_keys(p.value_type, text).contains(&key), "{target}");
            }
            for (_, _, other) in read.iter().filter(|(q, _, _)| q.name == p.name) {
                for ordering in [Ordering::Less, Ordering::Greater] {
                    if compare(value, other).is_some_and(|o| o == ordering || o == Ordering::Equal) {
                        let ranges = ranges(p.value_type, ordering, other);
                        assert!(
                            ranges.iter().any(|r| r.low <= key && key <= r.high),
                            "{} {target} {value} {ordering:?} {other}",
                            p.name
                        );
                    }
                }
                if same_value(value, other) || equal(value, other) {
                    assert!(equal_keys(p.value_type, other).contains(&key));
                }
            }
        }
    }
}
