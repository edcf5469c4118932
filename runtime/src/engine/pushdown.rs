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
