//! Which candidates a filter can have, as conditions on value keys the store answers through its
//! index ([`crate::value_key`]; docs/data-model.md, Filters).
//!
//! The first rule is cover: every instance the filter matches is among the candidates. So a
//! condition narrows by every key a matching link may have, whatever its spelling: a value is
//! read from the *last* readable link of a scalar, and that link, like every item of a
//! collection, has one of those keys. Only conditions that must all hold are pushed down (the
//! top level and `AND`); `contains`, `not`, `OR` and `NOT` are left to the evaluation.
//!
//! The second is exactness, where it can be had: when a scalar's readable links are told by
//! their key, the condition asks for the last of them, and when every key it looks for reads as
//! a value the condition holds for, the candidates are the matches ([`narrow`] says so) and the
//! store pages them without an evaluation.

use std::cmp::Ordering;

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
/// `true` when the store's answer is then exactly the matches ([`key_condition`]), so that the
/// evaluation has nothing left to decide.
pub(super) fn narrow(f: &Filter, query: &mut SourceQuery) -> bool {
    match f {
        Filter::All(parts) => {
            // Every part is narrowed, exact or not (no short cut).
            let mut exact = true;
            for part in parts {
                exact &= narrow(part, query);
            }
            exact
        }
        Filter::Cond(None, op) => match ids(op) {
            Some(ids) => {
                query.among = Some(match query.among.take() {
                    Some(among) => among.into_iter().filter(|id| ids.contains(id)).collect(),
                    None => ids,
                });
                true
            }
            None => false,
        },
        Filter::Cond(Some(p), op) => match key_condition(p, op) {
            Some((condition, exact)) => {
                query.keyed.push(condition);
                exact
            }
            None => false,
        },
        Filter::Any(_) | Filter::Not(_) => false,
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

/// The keys a link of `p` may have when the condition holds for its value, and whether the
/// condition is exact: a source has a link it matches exactly when the condition holds.
///
/// Exactness takes two things. The links read as the property's type must be told by their key
/// ([`readable_keys`]), so that a scalar's condition can ask for the last of them (the value;
/// a collection's every item counts). And every key the condition looks for must be read as a
/// value the condition holds for ([`exact_keys`], [`ranges`]).
fn key_condition(p: &Property, op: &Op) -> Option<(KeyCondition, bool)> {
    if p.value_type == ValueType::AnyOf {
        // Left to the evaluation: which keys a value of several datatypes has depends on which
        // of them it was read as.
        return None;
    }
    let readable = readable_keys(p.value_type);
    let mut condition = KeyCondition {
        predicate: p.path.clone(),
        // The last link of a scalar only when the readable ones are told by their key: the last
        // of a wider set may be one the value is not read from.
        last: if p.collection { None } else { readable.clone() },
        ..KeyCondition::default()
    };
    let told = p.collection || readable.is_some();
    let exact = match op {
        Op::Eq(v) => {
            condition.keys = equal_keys(p.value_type, v);
            exact_keys(p.value_type, &condition.keys)
        }
        Op::AnyOf(vs) if vs.len() <= MAX_VALUES => {
            for v in vs {
                condition.keys.extend(equal_keys(p.value_type, v));
            }
            condition.keys.sort();
            condition.keys.dedup();
            exact_keys(p.value_type, &condition.keys)
        }
        Op::Cmp(ordering, or_equal, v) => {
            let (ranges, exact) = ranges(p.value_type, *ordering, *or_equal, v);
            condition.ranges = ranges;
            exact
        }
        _ => return None,
    };
    Some((condition, told && exact))
}

/// The keys of every link `values::read` reads as a value of `value_type` (every link, when
/// empty); `None` when their keys do not tell them (an integer is a number key of a whole
/// number; a language-tagged string's key is that of a plain one).
fn readable_keys(value_type: ValueType) -> Option<Vec<KeyRange>> {
    let kind = match value_type {
        ValueType::String | ValueType::DateTime(_) => return Some(Vec::new()),
        ValueType::Reference => 'i',
        ValueType::Boolean => 'b',
        ValueType::Number => 'n',
        ValueType::Integer(_) | ValueType::LangString | ValueType::AnyOf => return None,
    };
    Some(vec![whole(kind)])
}

/// Whether every link with one of `keys` is read (as `value_type`) as a value equal to the one
/// the keys were made for: a text's key is whole (not cut, nor as long as a cut key may be), a
/// boolean's always, and a number's for a number property alone (a string property reads
/// `literal:number:3.0` as "3.0", whose key is that of "3").
fn exact_keys(value_type: ValueType, keys: &[String]) -> bool {
    let text_type = matches!(
        value_type,
        ValueType::String | ValueType::DateTime(_) | ValueType::Reference
    );
    keys.iter().all(|key| match key.as_bytes().first() {
        Some(b's' | b'i') => text_type && key.len() + 4 <= value_key::MAX_KEY_BYTES,
        Some(b'b') => true,
        Some(b'n') => value_type == ValueType::Number,
        _ => false,
    })
}

fn whole(kind: char) -> KeyRange {
    let (low, high) = kind_bounds(kind);
    KeyRange { low, high }
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

/// The key ranges of every link whose value compares with `v` as `ordering` (or equal, with
/// `or_equal`), and whether they hold those links alone. No range: no value compares (`compare`
/// is `None`). Ranges over number keys are exact (a strict bound moves to the next number);
/// those over texts include their bound (a cut key may stand for a longer text), and a string
/// may be read from a number or a boolean, whose keys fall anywhere.
fn ranges(value_type: ValueType, ordering: Ordering, or_equal: bool, v: &Value) -> (Vec<KeyRange>, bool) {
    let above_or_below = |kind: char, key: String| {
        let (low, high) = kind_bounds(kind);
        match ordering {
            Ordering::Less => KeyRange { low, high: key },
            _ => KeyRange { low: key, high },
        }
    };
    match (value_type, v) {
        (ValueType::Integer(_) | ValueType::Number, Value::Number(n)) => match n.as_f64() {
            Some(f) => {
                let bound = match (ordering, or_equal) {
                    (Ordering::Less, false) => f.next_down(),
                    (Ordering::Greater, false) => f.next_up(),
                    _ => f,
                };
                // An integer property does not read every number key (`3.5` is no integer).
                (
                    vec![above_or_below('n', number_key(bound))],
                    value_type == ValueType::Number,
                )
            }
            None => (Vec::new(), true),
        },
        (ValueType::Reference, Value::String(text)) => (vec![above_or_below('i', iri_key(text))], false),
        (ValueType::String | ValueType::DateTime(_), Value::String(text)) => (
            vec![
                above_or_below('s', string_key(text)),
                above_or_below('i', iri_key(text)),
                whole('n'),
                whole('b'),
            ],
            false,
        ),
        // Nothing of the property's type compares with a value of another type.
        _ => (Vec::new(), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::FixedDna;
    use crate::engine::query::{compare, equal, matches};
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
                        let (ranges, _) = ranges(p.value_type, ordering, true, other);
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

    /// Where a condition says it is exact, a target has a key it looks for exactly when its
    /// value meets the condition (the last-link half of exactness is the differential test's).
    #[test]
    fn an_exact_condition_looks_for_the_keys_of_its_matches_alone() {
        let dna = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dna/tasks.json");
        let (fixed, _) = FixedDna::load(&[dna]).unwrap();
        let task = fixed.classes()[0].clone();
        let mut checked = 0;
        for p in &task.properties {
            let read: Vec<(&str, Value)> = TARGETS.iter().filter_map(|t| Some((*t, values::read(p, t)?))).collect();
            let mut wanted: Vec<Value> = read.iter().map(|(_, v)| v.clone()).collect();
            wanted.extend([Value::from(3), Value::from(3.5), Value::from("3"), Value::from(true)]);
            for v in &wanted {
                let ops = [
                    Op::Eq(v.clone()),
                    Op::AnyOf(vec![v.clone(), Value::from("done")]),
                    Op::Cmp(Ordering::Less, false, v.clone()),
                    Op::Cmp(Ordering::Less, true, v.clone()),
                    Op::Cmp(Ordering::Greater, false, v.clone()),
                    Op::Cmp(Ordering::Greater, true, v.clone()),
                ];
                for op in &ops {
                    let Some((condition, true)) = key_condition(p, op) else {
                        continue;
                    };
                    for (target, value) in &read {
                        let key = value_key::key(target);
                        let looked_for = condition.keys.contains(&key)
                            || condition.ranges.iter().any(|r| r.low <= key && key <= r.high);
                        let f = Filter::Cond(Some(Box::new(p.clone())), op.clone());
                        let values: std::collections::HashMap<String, Value> = [(
                            p.name.clone(),
                            if p.collection {
                                Value::Array(vec![value.clone()])
                            } else {
                                value.clone()
                            },
                        )]
                        .into();
                        let holds = matches(&f, "n", &|name| values.get(name));
                        assert_eq!(looked_for, holds, "{} {target} {op:?}", p.name);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }
}
