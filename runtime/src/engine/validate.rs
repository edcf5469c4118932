//! Shape validation of values (docs/errors.md, The validation envelope): every constraint the model
//! carries, every problem at once, in the order the spec fixes.
//!
//! The structure (which properties were given, read-only, null, arrays, missing, unknown) is one
//! driver, [`check_values`]; the checks of one value are either interpreted from the model
//! ([`interpret_item`]) or, for a compiled class, the model's type, node-kind and reference
//! checks around the generated checks of its constraints ([`compiled_item`]). Both take their
//! words from `shacl_mcp_compiler::problems`, so the envelopes are the same.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use regex::Regex;
use serde_json::{Map, Value};
use shacl_mcp_compiler::model::{Access, Class, NodeKind, Property, TemporalKind, ValueType};
use shacl_mcp_compiler::problems as words;

use super::error::Problem;
use crate::compiled::{CompiledClass, Item};
use crate::store::StoreError;
use crate::temporal;

/// What the values are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// instance_create / `*_create`: create-only properties may be given, required ones must be.
    Create,
    /// instance_update / `*_set_*`: writable scalars only.
    Update,
}

/// Looks up a reference: does `iri` name an instance of class `class` in the perspective?
pub type ReferenceCheck<'a> = dyn FnMut(&str, &str) -> Result<RefState, StoreError> + 'a;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefState {
    /// An instance of the class.
    Instance,
    /// The node has links but is not an instance of the class.
    OtherKind,
    /// Nothing is known about the node.
    Missing,
}

/// The checks of one value of property number `index` (in the order of the rules given).
pub type ItemCheck<'c> = dyn FnMut(usize, &mut Item<'_>, &mut ReferenceCheck<'_>) -> Result<(), StoreError> + 'c;

/// Checks `given` (and `unset`, for updates) against the visible properties `rules`. Problems
/// come ordered by property order, then by the order of checks; unknown properties last, in
/// the order sent.
pub fn check_values(
    rules: &[&Property],
    given: &Map<String, Value>,
    unset: &[String],
    mode: Mode,
    item: &mut ItemCheck<'_>,
    references: &mut ReferenceCheck<'_>,
) -> Result<Vec<Problem>, StoreError> {
    let mut problems = Vec::new();
    for (index, p) in rules.iter().enumerate() {
        let structural = |text: String, value: Option<&Value>, component: Option<&str>| {
            let mut problem = with_type(p, Problem::new(p.name.as_str(), text));
            if let Some(v) = value {
                problem = problem.received(v);
            }
            match component {
                Some(c) => problem.breaks(c),
                None => problem,
            }
        };
        if let Some(value) = given.get(p.name.as_str()) {
            if let Some(text) = access_problem(p, mode) {
                problems.push(structural(text, Some(value), None));
                continue;
            }
            check_value(p, index, value, mode, false, item, references, &mut problems)?;
            if unset.iter().any(|u| u == p.name.as_str()) {
                problems.push(structural(words::IN_BOTH.to_string(), None, None));
            }
        } else if unset.iter().any(|u| u == p.name.as_str()) {
            if let Some(text) = access_problem(p, mode) {
                problems.push(structural(text, None, None));
            } else if p.required {
                let text = words::REQUIRED_UNSET.to_string();
                problems.push(structural(text, None, Some(words::component::MIN_COUNT)));
            }
        } else if mode == Mode::Create && p.required {
            let text = words::MISSING.to_string();
            problems.push(structural(text, None, Some(words::component::MIN_COUNT)));
        }
    }
    let known = |name: &str| rules.iter().any(|p| p.name.as_str() == name);
    let accepted: Vec<&str> = rules
        .iter()
        .filter(|p| access_problem(p, mode).is_none())
        .map(|p| p.name.as_str())
        .collect();
    for (name, value) in given {
        if !known(name) {
            problems.push(Problem::new(name, words::unknown(&accepted)).received(value));
        }
    }
    for name in unset {
        if !known(name) {
            problems.push(Problem::new(name, words::unknown(&accepted)));
        }
    }
    Ok(problems)
}

/// The generated validator of a class ([`CompiledClass`]): [`check_values`] over the model's
/// rules with [`compiled_item`], after a pass that accepts valid values without building
/// anything.
pub fn check_compiled(
    compiled: &CompiledClass,
    class: &Class,
    given: &Map<String, Value>,
    unset: &[String],
    mode: Mode,
    references: &mut ReferenceCheck<'_>,
) -> Result<Vec<Problem>, StoreError> {
    let rules: Vec<&Property> = class.visible_properties().collect();
    let mut item =
        |i: usize, it: &mut Item<'_>, r: &mut ReferenceCheck<'_>| compiled_item(rules[i], compiled, i, it, r);
    if all_valid(&rules, given, unset, mode, &mut item, references)? {
        return Ok(Vec::new());
    }
    check_values(&rules, given, unset, mode, &mut item, references)
}

/// Whether [`check_values`] would find no problem, in one pass over `given` that allocates
/// nothing while the values are valid. `false` may also mean "not decided here" (an `unset`
/// list, more than 64 properties): the caller then runs [`check_values`], which says what is
/// wrong, so this only ever spares work.
pub fn all_valid(
    rules: &[&Property],
    given: &Map<String, Value>,
    unset: &[String],
    mode: Mode,
    item: &mut ItemCheck<'_>,
    references: &mut ReferenceCheck<'_>,
) -> Result<bool, StoreError> {
    if !unset.is_empty() || rules.len() > 64 {
        return Ok(false);
    }
    let mut seen = 0u64;
    for (name, value) in given {
        let Some(index) = rules.iter().position(|p| p.name.as_str() == name.as_str()) else {
            return Ok(false);
        };
        let p = &rules[index];
        seen |= 1 << index;
        if access_refused(p, mode) {
            return Ok(false);
        }
        // Whether the value passes every check.
        let mut passes = |value: &Value| {
            let mut it = Item::new(value);
            item(index, &mut it, references)?;
            Ok::<bool, StoreError>(it.found.is_empty())
        };
        if p.collection {
            let Value::Array(items) = value else {
                return Ok(false);
            };
            let n = items.len() as u64;
            if p.max_count.is_some_and(|max| n > max) || (mode == Mode::Create && n < p.min_count) {
                return Ok(false);
            }
            for v in items {
                if !passes(v)? {
                    return Ok(false);
                }
            }
        } else {
            if matches!(value, Value::Array(_) | Value::Null) {
                return Ok(false);
            }
            if !passes(value)? {
                return Ok(false);
            }
        }
    }
    if mode == Mode::Create {
        for (index, p) in rules.iter().enumerate() {
            if p.required && seen & (1 << index) == 0 {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Whether a property may not be written in this mode ([`access_problem`] says why).
fn access_refused(p: &Property, mode: Mode) -> bool {
    match (p.access, mode) {
        (Access::Writable, Mode::Update) => p.collection,
        (Access::Writable, _) | (Access::CreateOnly, Mode::Create) => false,
        _ => true,
    }
}

/// Why a property may not be written in this mode: read-only (with its reason), or a
/// collection passed to update.
pub fn access_problem(p: &Property, mode: Mode) -> Option<String> {
    if !access_refused(p, mode) {
        return None;
    }
    Some(match p.access {
        Access::Writable => words::COLLECTION_IN_UPDATE.to_string(),
        access => words::read_only(access.reason().unwrap_or_default()),
    })
}

/// One property's value: collections item by item (`tags[2]`), then their size.
#[allow(clippy::too_many_arguments)]
pub fn check_value(
    p: &Property,
    index: usize,
    value: &Value,
    mode: Mode,
    allow_null: bool,
    item: &mut ItemCheck<'_>,
    references: &mut ReferenceCheck<'_>,
    problems: &mut Vec<Problem>,
) -> Result<(), StoreError> {
    let structural = |text: &str| with_type(p, Problem::new(p.name.as_str(), text)).received(value);
    let count = |text: &str, component: &str| structural(text).breaks(component);
    let cardinality = p.cardinality_text();
    let expected_type = words::expected_type(p);
    if p.collection {
        let Value::Array(items) = value else {
            problems.push(structural(if value.is_null() {
                words::NULL_COLLECTION
            } else {
                words::NOT_AN_ARRAY
            }));
            return Ok(());
        };
        for (i, v) in items.iter().enumerate() {
            let label = format!("{}[{i}]", p.name.as_str());
            let words = Words {
                label: &label,
                expected_type: &expected_type,
                cardinality: &cardinality,
            };
            words.check(index, v, item, references, problems)?;
        }
        let n = items.len() as u64;
        if let Some(max) = p.max_count
            && n > max
        {
            problems.push(count(&words::too_many(max), words::component::MAX_COUNT));
        }
        if mode == Mode::Create && n < p.min_count {
            problems.push(count(&words::too_few(p.min_count), words::component::MIN_COUNT));
        }
        return Ok(());
    }
    match value {
        Value::Array(_) => problems.push(count(words::ARRAY_FOR_SINGLE, words::component::MAX_COUNT)),
        Value::Null if allow_null && p.is_optional_scalar() => {}
        Value::Null if p.is_optional_scalar() => problems.push(structural(words::NULL_OPTIONAL)),
        Value::Null => problems.push(count(words::NULL_REQUIRED, words::component::MIN_COUNT)),
        _ => {
            let words = Words {
                label: p.name.as_str(),
                expected_type: &expected_type,
                cardinality: &cardinality,
            };
            words.check(index, value, item, references, problems)?;
        }
    }
    Ok(())
}

/// What a problem of one value says besides its finding: the value's label (`tags[2]`), the
/// property's type and cardinality.
struct Words<'w> {
    label: &'w str,
    expected_type: &'w str,
    cardinality: &'w str,
}

impl Words<'_> {
    /// Runs the checks of one value and adds each finding to `problems`, in the words of the
    /// envelope.
    fn check(
        &self,
        index: usize,
        value: &Value,
        item: &mut ItemCheck<'_>,
        references: &mut ReferenceCheck<'_>,
        problems: &mut Vec<Problem>,
    ) -> Result<(), StoreError> {
        let mut it = Item::new(value);
        item(index, &mut it, references)?;
        problems.extend(it.found.into_iter().map(|found| {
            let problem = Problem {
                property: self.label.to_string(),
                problem: found.text,
                expected_type: Some(self.expected_type.to_string()),
                cardinality: Some(self.cardinality.to_string()),
                received: Some(words::received(value)),
                ..Problem::new("", "")
            };
            problem.breaks(found.component)
        }));
        Ok(())
    }
}

/// `expected_type` and `cardinality` of the property.
pub fn with_type(p: &Property, mut problem: Problem) -> Problem {
    problem.expected_type = Some(words::expected_type(p).into_owned());
    problem.cardinality = Some(p.cardinality_text());
    problem
}

/// The interpreter's checks of one value, from the model: type first and alone; then `in`,
/// pattern, length, range, node kind and reference, each its own problem.
pub fn interpret_item(p: &Property, it: &mut Item<'_>, references: &mut ReferenceCheck<'_>) -> Result<(), StoreError> {
    if !type_holds(p, it) {
        return Ok(());
    }
    interpret_constraints(p, it);
    node_checks(p, it, references)
}

/// The compiled checks of one value of visible property number `index`: the type, node kind
/// and reference checks from the model, as [`interpret_item`] makes them, and between them
/// the constraints with the shape's constants compiled in.
pub fn compiled_item(
    p: &Property,
    compiled: &CompiledClass,
    index: usize,
    it: &mut Item<'_>,
    references: &mut ReferenceCheck<'_>,
) -> Result<(), StoreError> {
    if !type_holds(p, it) {
        return Ok(());
    }
    if let Some(check) = compiled.checks.get(index) {
        check(it);
    }
    node_checks(p, it, references)
}

/// The type check, alone: when it fails nothing else is checked.
fn type_holds(p: &Property, it: &mut Item<'_>) -> bool {
    let holds = has_type(p, it.value);
    if !holds {
        it.problem(words::type_component(p), words::type_problem(p));
    }
    holds
}

/// `in`, pattern, lengths and range, from the model (the generated checks compile the same).
fn interpret_constraints(p: &Property, it: &mut Item<'_>) {
    let value = it.value;
    let c = &p.constraints;
    if !c.in_values.is_empty() && !c.in_values.iter().any(|allowed| same_value(&allowed.value, value)) {
        let values: Vec<Value> = c.in_values.iter().map(|v| v.value.clone()).collect();
        it.problem(words::component::IN, words::in_text(&values));
    }
    let textual = value.is_string() || p.value_type == ValueType::LangString;
    if textual {
        let text = it.text();
        if let Some(pattern) = &c.pattern
            && let Some(regex) = compiled(&pattern.regex_source())
            && !regex.is_match(text)
        {
            it.problem(words::component::PATTERN, words::pattern_text(&pattern.source));
        }
        it.length_within(c.min_length, c.max_length);
    }
    if let Some(x) = value.as_f64() {
        let bounds = words::bounds(p);
        let checked: Vec<(&str, &str, bool)> = bounds.iter().map(|b| (b.op, b.text.as_str(), b.holds(x))).collect();
        it.out_of_range(&checked);
    }
}

/// The node kind of a reference or IRI-valued property, then the instance a reference names.
fn node_checks(p: &Property, it: &mut Item<'_>, references: &mut ReferenceCheck<'_>) -> Result<(), StoreError> {
    let needs_iri = p.value_type == ValueType::Reference || p.node_kind == Some(NodeKind::Iri);
    let Some(text) = it.value.as_str().filter(|_| needs_iri) else {
        return Ok(());
    };
    if !p.nodes().allow(text) {
        it.problem(words::component::NODE_KIND, words::not_a_node(p.nodes()));
    } else if let Some(target) = &p.target_class {
        reference(it, text, target, references)?;
    }
    Ok(())
}

/// The reference check shared by both paths: the IRI must name an instance of `class`.
fn reference(it: &mut Item<'_>, iri: &str, class: &str, references: &mut ReferenceCheck<'_>) -> Result<(), StoreError> {
    match references(iri, class)? {
        RefState::Instance => {}
        RefState::OtherKind => it.problem(words::component::CLASS, words::not_instance(class)),
        RefState::Missing => it.problem(words::component::CLASS, words::missing_instance(class)),
    }
    Ok(())
}

/// Whether a value has `p`'s type: [`type_ok`], or for several datatypes, one of them
/// ([`super::values::alternative`]).
pub fn has_type(p: &Property, v: &Value) -> bool {
    match p.value_type {
        ValueType::AnyOf => super::values::alternative(p, v).is_some(),
        t => type_ok(t, v),
    }
}

/// Whether a value has the type. Types are strict: `"true"` is a string; `3.0` is an integer,
/// `3.5` is not. `AnyOf` needs its datatypes: [`has_type`].
pub fn type_ok(t: ValueType, v: &Value) -> bool {
    match t {
        ValueType::AnyOf => false,
        ValueType::Boolean => v.is_boolean(),
        ValueType::Integer(_) => is_whole(v),
        ValueType::Number => v.is_number(),
        ValueType::String | ValueType::Reference => v.is_string(),
        ValueType::LangString => shacl_mcp_compiler::literal::lang_value(v).is_some(),
        ValueType::DateTime(kind) => v.as_str().is_some_and(|s| temporal_ok(kind, s)),
    }
}

pub fn is_whole(v: &Value) -> bool {
    v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() < 9.2e18)
}

pub fn temporal_ok(kind: TemporalKind, s: &str) -> bool {
    match kind {
        TemporalKind::DateTime => temporal::is_date_time(s),
        TemporalKind::Date => temporal::is_date(s),
        TemporalKind::Time => temporal::is_time(s),
    }
}

/// Equality by value: numbers numerically, everything else as JSON.
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_number() && b.is_number() => x == y,
        _ => a == b,
    }
}

/// Patterns compile once per process (the `regex` crate: linear time on any input).
pub fn compiled(source: &str) -> Option<Arc<Regex>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Option<Arc<Regex>>>>> = OnceLock::new();
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if cache.len() > 10_000 {
        cache.clear();
    }
    cache
        .entry(source.to_string())
        .or_insert_with(|| Regex::new(source).ok().map(Arc::new))
        .clone()
}

/// The interpreter over a class: the driver with [`interpret_item`].
pub fn interpret_values(
    class: &Class,
    given: &Map<String, Value>,
    unset: &[String],
    mode: Mode,
    references: &mut ReferenceCheck<'_>,
) -> Result<Vec<Problem>, StoreError> {
    let rules: Vec<&Property> = class.visible_properties().collect();
    let mut item = |i: usize, it: &mut Item<'_>, refs: &mut ReferenceCheck<'_>| interpret_item(rules[i], it, refs);
    check_values(&rules, given, unset, mode, &mut item, references)
}

/// The checks of one value alone (an item added to a collection), labelled as the property.
pub fn check_single(
    p: &Property,
    index: usize,
    value: &Value,
    item: &mut ItemCheck<'_>,
    references: &mut ReferenceCheck<'_>,
) -> Result<Vec<Problem>, StoreError> {
    let mut problems = Vec::new();
    let cardinality = p.cardinality_text();
    let expected_type = words::expected_type(p);
    let words = Words {
        label: p.name.as_str(),
        expected_type: &expected_type,
        cardinality: &cardinality,
    };
    words.check(index, value, item, references, &mut problems)?;
    Ok(problems)
}
