//! Shape validation of values (errors.md, The validation envelope): every constraint the model
//! carries, every problem at once, in the order the spec fixes. The same checks serve
//! `properties` of the instance tools and the parameters of per-class tools.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use regex::Regex;
use serde_json::{Map, Value};
use shacl_mcp_compiler::literal::is_iri;
use shacl_mcp_compiler::model::{Access, Class, NodeKind, Property, TemporalKind, ValueType};

use super::error::Problem;
use super::temporal;

/// What the values are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// instance_create / `*_create`: create-only properties may be given, required ones must be.
    Create,
    /// instance_update / `*_set_*`: writable scalars only.
    Update,
}

/// Looks up a reference: does `iri` name an instance of class `class` in the perspective?
pub type ReferenceCheck<'a> = dyn FnMut(&str, &str) -> Result<RefState, crate::store::StoreError> + 'a;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefState {
    /// An instance of the class.
    Instance,
    /// The node has links but is not an instance of the class.
    OtherKind,
    /// Nothing is known about the node.
    Missing,
}

/// Checks `given` (and `unset`, for updates) against `class`. Problems come ordered by property
/// order, then by the order of checks; unknown properties last, in the order sent.
pub fn check_values(
    class: &Class,
    given: &Map<String, Value>,
    unset: &[String],
    mode: Mode,
    references: &mut ReferenceCheck<'_>,
) -> Result<Vec<Problem>, crate::store::StoreError> {
    let mut problems = Vec::new();
    for p in class.visible_properties() {
        if let Some(value) = given.get(&p.name) {
            if let Some(problem) = access_problem(p, mode) {
                problems.push(with_type(p, problem).received(value));
                continue;
            }
            let allow_null = false;
            problems.extend(check_value(p, value, mode, allow_null, references)?);
            if unset.contains(&p.name) {
                problems.push(with_type(
                    p,
                    Problem::new(&p.name, "given in both properties and unset"),
                ));
            }
        } else if let Some(_name) = unset.iter().find(|u| **u == p.name) {
            if let Some(problem) = access_problem(p, mode) {
                problems.push(with_type(p, problem));
            } else if p.required {
                problems.push(with_type(p, Problem::new(&p.name, "required: it cannot be unset")));
            }
        } else if mode == Mode::Create && p.required {
            problems.push(with_type(p, Problem::new(&p.name, "missing required property")));
        }
    }
    let known = |name: &str| class.visible_properties().any(|p| p.name == name);
    let accepted: Vec<&str> = class
        .visible_properties()
        .filter(|p| access_problem(p, mode).is_none())
        .map(|p| p.name.as_str())
        .collect();
    let unknown_text = || {
        if accepted.is_empty() {
            "unknown property (this class has no properties to write here)".to_string()
        } else {
            format!("unknown property (writable: {})", accepted.join(", "))
        }
    };
    for (name, value) in given {
        if !known(name) {
            problems.push(Problem::new(name, unknown_text()).received(value));
        }
    }
    for name in unset {
        if !known(name) {
            problems.push(Problem::new(name, unknown_text()));
        }
    }
    Ok(problems)
}

/// Why `p` may not be written in this mode: read-only (with its reason), or a collection
/// passed to update.
fn access_problem(p: &Property, mode: Mode) -> Option<Problem> {
    match (p.access, mode) {
        (Access::Writable, Mode::Update) if p.collection => Some(Problem::new(
            &p.name,
            "a collection cannot be set by update: use instance_add_to_collection or instance_remove_from_collection",
        )),
        (Access::Writable, _) | (Access::CreateOnly, Mode::Create) => None,
        (access, _) => Some(Problem::new(
            &p.name,
            format!("read-only ({})", access.reason().unwrap_or_default()),
        )),
    }
}

/// One property's value: collections item by item (`tags[2]`), then their size.
pub fn check_value(
    p: &Property,
    value: &Value,
    mode: Mode,
    allow_null: bool,
    references: &mut ReferenceCheck<'_>,
) -> Result<Vec<Problem>, crate::store::StoreError> {
    let mut problems = Vec::new();
    if p.collection {
        let Value::Array(items) = value else {
            let what = if value.is_null() {
                "null is not a value: pass an array (may be empty)"
            } else {
                "expects an array of values"
            };
            problems.push(with_type(p, Problem::new(&p.name, what)).received(value));
            return Ok(problems);
        };
        for (i, item) in items.iter().enumerate() {
            problems.extend(check_item(p, item, &format!("{}[{i}]", p.name), references)?);
        }
        let n = items.len() as u64;
        if let Some(max) = p.max_count
            && n > max
        {
            problems
                .push(with_type(p, Problem::new(&p.name, format!("too many values: at most {max}"))).received(value));
        }
        if mode == Mode::Create && n < p.min_count {
            problems.push(
                with_type(
                    p,
                    Problem::new(&p.name, format!("too few values: at least {}", p.min_count)),
                )
                .received(value),
            );
        }
        return Ok(problems);
    }
    match value {
        Value::Array(_) => {
            problems.push(with_type(p, Problem::new(&p.name, "expects a single value, not an array")).received(value))
        }
        Value::Null if allow_null && p.is_optional_scalar() => {}
        Value::Null => {
            let what = if p.is_optional_scalar() {
                "null is not a value: to clear this property, unset it"
            } else {
                "null is not a value: the property is required"
            };
            problems.push(with_type(p, Problem::new(&p.name, what)).received(value));
        }
        _ => problems.extend(check_item(p, value, &p.name, references)?),
    }
    Ok(problems)
}

/// One value (a scalar, or one collection item): type first and alone; then `in`, pattern,
/// length, range, IRI and reference, each its own problem.
pub fn check_item(
    p: &Property,
    value: &Value,
    label: &str,
    references: &mut ReferenceCheck<'_>,
) -> Result<Vec<Problem>, crate::store::StoreError> {
    let problem = |text: String| with_type(p, Problem::new(label, text)).received(value);
    if let Some(expects) = type_problem(p.value_type, value) {
        return Ok(vec![problem(expects.to_string())]);
    }
    let mut problems = Vec::new();
    let c = &p.constraints;
    if !c.in_values.is_empty() && !c.in_values.iter().any(|allowed| same_value(&allowed.value, value)) {
        let list: Vec<String> = c.in_values.iter().map(|v| v.value.to_string()).collect();
        problems.push(problem(format!("not one of the allowed values: {}", list.join(", "))));
    }
    let text = value.as_str();
    if let (Some(pattern), Some(text)) = (&c.pattern, text)
        && let Some(regex) = compiled(&pattern.regex_source())
        && !regex.is_match(text)
    {
        problems.push(problem(format!("does not match the pattern {}", pattern.source)));
    }
    if let Some(text) = text {
        let n = text.chars().count() as u64;
        if let Some(min) = c.min_length
            && n < min
        {
            problems.push(problem(format!("too short: at least {min} characters")));
        }
        if let Some(max) = c.max_length
            && n > max
        {
            problems.push(problem(format!("too long: at most {max} characters")));
        }
    }
    if let Some(x) = value.as_f64() {
        let mut bounds: Vec<(&str, f64)> = Vec::new();
        if let ValueType::Integer(kind) = p.value_type {
            let (lo, hi) = kind.range();
            bounds.extend(lo.map(|lo| (">=", lo as f64)));
            bounds.extend(hi.map(|hi| ("<=", hi as f64)));
            if value.as_i64().is_none() && value.as_u64().is_some() {
                bounds.push(("<=", i64::MAX as f64));
            }
        }
        let num = |n: &Option<serde_json::Number>| n.as_ref().and_then(serde_json::Number::as_f64);
        bounds.extend(num(&c.min_inclusive).map(|b| (">=", b)));
        bounds.extend(num(&c.max_inclusive).map(|b| ("<=", b)));
        bounds.extend(num(&c.min_exclusive).map(|b| (">", b)));
        bounds.extend(num(&c.max_exclusive).map(|b| ("<", b)));
        let broken: Vec<String> = bounds
            .iter()
            .filter(|(op, b)| match *op {
                ">=" => x < *b,
                "<=" => x > *b,
                ">" => x <= *b,
                _ => x >= *b,
            })
            .map(|(op, b)| format!("{op} {}", display_number(*b)))
            .collect();
        if !broken.is_empty() {
            problems.push(problem(format!("out of range: must be {}", broken.join(" and "))));
        }
    }
    let needs_iri = p.value_type == ValueType::Reference || p.node_kind == Some(NodeKind::Iri);
    if let Some(text) = text
        && needs_iri
    {
        if !is_iri(text) {
            problems.push(problem(
                "not an IRI (expected a scheme, e.g. ad4m://…, did:key:…, https://…)".to_string(),
            ));
        } else if let Some(target) = &p.target_class {
            match references(text, target)? {
                RefState::Instance => {}
                RefState::OtherKind => problems.push(problem(format!(
                    "not a {target}: the node is not an instance of {target}"
                ))),
                RefState::Missing => problems.push(problem(format!("no {target} with this IRI in the perspective"))),
            }
        }
    }
    Ok(problems)
}

/// The type problem of a value, if any. Types are strict: `"true"` is a string; `3.0` is an
/// integer, `3.5` is not.
fn type_problem(t: ValueType, v: &Value) -> Option<&'static str> {
    let ok = match t {
        ValueType::Boolean => v.is_boolean(),
        ValueType::Integer(_) => {
            v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() < 9.2e18)
        }
        ValueType::Number => v.is_number(),
        ValueType::String | ValueType::Reference => v.is_string(),
        ValueType::DateTime(kind) => v.as_str().is_some_and(|s| match kind {
            TemporalKind::DateTime => temporal::is_date_time(s),
            TemporalKind::Date => temporal::is_date(s),
            TemporalKind::Time => temporal::is_time(s),
        }),
    };
    if ok {
        return None;
    }
    Some(match t {
        ValueType::Boolean => "expects true or false",
        ValueType::Integer(_) => "expects a whole number",
        ValueType::Number => "expects a number",
        ValueType::String | ValueType::Reference => "expects a string",
        ValueType::DateTime(TemporalKind::DateTime) => {
            "expects a datetime (RFC 3339 with offset, e.g. 2026-12-24T10:00:00Z)"
        }
        ValueType::DateTime(TemporalKind::Date) => "expects a date (YYYY-MM-DD)",
        ValueType::DateTime(TemporalKind::Time) => "expects a time (RFC 3339 with offset, e.g. 10:00:00Z)",
    })
}

/// Equality by value: numbers numerically, everything else as JSON.
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_number() && b.is_number() => x == y,
        _ => a == b,
    }
}

fn display_number(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        format!("{f}")
    }
}

/// `expected_type` and `cardinality` of the property.
pub fn with_type(p: &Property, mut problem: Problem) -> Problem {
    problem.expected_type = Some(expected_type(p).to_string());
    problem.cardinality = Some(p.cardinality_text());
    problem
}

/// The type word of the envelope: describe_perspective's, with date and time told apart.
pub fn expected_type(p: &Property) -> &'static str {
    match p.value_type {
        ValueType::DateTime(TemporalKind::Date) => "date",
        ValueType::DateTime(TemporalKind::Time) => "time",
        t => t.type_name(),
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
