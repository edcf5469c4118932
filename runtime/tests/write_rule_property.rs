//! The write rule as a property (docs/validation.md): random sequences of validated tool calls
//! on the sample DNAs and on tests/core-dna/events.ttl (every SHACL Core component, inverse and
//! sequence paths, every target kind). After every accepted call `validate_perspective`
//! conforms; after every refused call `query_links` is byte-identical to before. For the Turtle
//! DNAs, pySHACL (from the repository's venv, `.tools/venv`) is the outside oracle: the graph a
//! refused write would have made (written by an engine without the rule, in a copy of the
//! perspective) has exactly the violations the refusal names, and every accepted state conforms
//! for pySHACL too. Without the venv the pySHACL part is skipped with a message on stderr, unless
//! `SHACL_MCP_REQUIRE_PYSHACL=1` (scripts/test sets it) makes that a failure.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::*;
use serde_json::{Map, Value, json};
use shacl_mcp::clock::{FixedClock, SeededIds};
use shacl_mcp::engine::{Engine, FixedDna, ToolError};
use shacl_mcp_compiler::model::{Class, TemporalKind, ValueType};

/// Calls per sequence, and sequences (seeds) per DNA (more for the DNA with every component).
const STEPS: usize = 40;
const SEEDS: u64 = 6;
const SEEDS_EVERY_COMPONENT: u64 = 25;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn engine(dna: &str) -> Engine {
    let fixed = match FixedDna::load(&[repo(dna)]) {
        Ok((dna, _)) => dna,
        Err(diags) => panic!("{diags}"),
    };
    let clock = Arc::new(FixedClock::at("2026-12-24T10:00:00Z").unwrap());
    Engine::new(fresh_store(clock).links, fixed, Arc::new(SeededIds::new(SEED)))
}

/// xorshift64*: a small deterministic generator (the seed is in every failure message).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }
}

/// A validated tool call.
#[derive(Debug)]
enum Call {
    /// Class, properties, and the new instance's IRI (given, so that the same call made again
    /// elsewhere makes the same node).
    Create(String, Map<String, Value>, String),
    Update(String, String, Map<String, Value>),
    Add(String, String, String, Value),
    RemoveItem(String, String, String, Value),
    Remove(String, String),
}

impl Call {
    fn run(&self, e: &Engine, p: &str) -> Result<Value, ToolError> {
        match self {
            Call::Create(c, props, id) => e.instance_create(p, c, props, Some(id), None),
            Call::Update(c, id, props) => e.instance_update(p, c, id, Some(props), &[]),
            Call::Add(c, id, col, item) => e.instance_add_to_collection(p, c, id, col, item),
            Call::RemoveItem(c, id, col, item) => e.instance_remove_from_collection(p, c, id, col, item),
            Call::Remove(c, id) => e.instance_remove(p, c, id),
        }
    }
}

/// A value for a property: mostly of its type (from its `in` list when it has one), sometimes
/// a reference to an instance, an edge case, or a value of no use.
fn value(rng: &mut Rng, class: &Class, name: &str, instances: &[(String, String)]) -> Value {
    let p = class.property(name).unwrap();
    if !p.constraints.in_values.is_empty() && rng.chance(80) {
        return rng.pick(&p.constraints.in_values).unwrap().value.clone();
    }
    match p.value_type {
        ValueType::Reference => {
            let fitting: Vec<&String> = instances
                .iter()
                .filter(|(c, _)| p.target_class.as_deref().is_none_or(|t| t == c) || rng.chance(10))
                .map(|(_, id)| id)
                .collect();
            match rng.pick(&fitting) {
                Some(id) if rng.chance(90) => json!(id),
                _ => json!("https://example.org/elsewhere"),
            }
        }
        ValueType::String => json!(
            rng.pick(&[
                "TBD",
                "Party",
                "ab",
                "x@example.org",
                "Bartholomew Featherstonehaugh",
                "hall",
                ""
            ])
            .unwrap()
        ),
        ValueType::Integer(_) => json!(rng.pick(&[0, 1, 3, 12, 17, 30, 200, -1]).unwrap()),
        ValueType::Number => json!(rng.pick(&[0.5, 10.0, -2.5]).unwrap()),
        ValueType::Boolean => json!(rng.chance(50)),
        ValueType::DateTime(TemporalKind::DateTime) => json!(
            rng.pick(&["2026-12-24T10:00:00Z", "2026-12-24T12:00:00Z", "2026-12-24T09:00:00Z"])
                .unwrap()
        ),
        ValueType::DateTime(TemporalKind::Date) => json!(rng.pick(&["2026-12-24", "2027-01-01"]).unwrap()),
        ValueType::DateTime(TemporalKind::Time) => json!(rng.pick(&["10:00:00Z", "23:59:59Z"]).unwrap()),
        ValueType::LangString => {
            let language = rng.pick(&["en", "de", "EN", "fr"]).unwrap();
            json!({"@value": "Party", "@language": language})
        }
        ValueType::AnyOf => rng
            .pick(&[
                json!("2026-12-24"),
                json!("2026-12-24T10:00:00Z"),
                json!("2026-12-24T10:00:00"),
                json!("soon"),
                json!(3),
            ])
            .unwrap()
            .clone(),
    }
}

fn properties(rng: &mut Rng, class: &Class, create: bool, instances: &[(String, String)]) -> Map<String, Value> {
    let mut out = Map::new();
    for p in class.visible_properties() {
        let allowed = if create {
            p.is_creatable()
        } else {
            p.is_writable() && !p.collection
        };
        if !allowed || !(rng.chance(if p.required { 90 } else { 45 })) {
            continue;
        }
        let v = if p.collection {
            let n = rng.below(3);
            Value::Array((0..n).map(|_| value(rng, class, &p.name, instances)).collect())
        } else {
            value(rng, class, &p.name, instances)
        };
        out.insert(p.name.clone(), v);
    }
    out
}

/// The next call: a create more often while there are few instances.
fn call(rng: &mut Rng, classes: &[Arc<Class>], instances: &[(String, String)], fresh: String) -> Call {
    let existing = rng.pick(instances).cloned();
    let op = if existing.is_none() { 0 } else { rng.below(10) };
    match (op, existing) {
        (0..=3, _) | (_, None) => {
            let class = rng.pick(classes).unwrap();
            Call::Create(class.name.clone(), properties(rng, class, true, instances), fresh)
        }
        (4..=6, Some((c, id))) => {
            let class = classes.iter().find(|k| k.name == c).unwrap();
            Call::Update(c, id, properties(rng, class, false, instances))
        }
        (7 | 8, Some((c, id))) => {
            let class = classes.iter().find(|k| k.name == c).unwrap();
            let cols: Vec<&str> = class
                .visible_properties()
                .filter(|p| p.collection && p.is_writable())
                .map(|p| p.name.as_str())
                .collect();
            match rng.pick(&cols) {
                Some(col) => {
                    let item = value(rng, class, col, instances);
                    if rng.chance(70) {
                        Call::Add(c, id, col.to_string(), item)
                    } else {
                        Call::RemoveItem(c, id, col.to_string(), item)
                    }
                }
                None => Call::Remove(c, id),
            }
        }
        (_, Some((c, id))) => Call::Remove(c, id),
    }
}

fn links(e: &Engine, p: &str) -> String {
    serde_json::to_string(&e.query_links(p, Default::default(), Some(1000), None).unwrap()).unwrap()
}

fn violations(e: &Engine, p: &str) -> Vec<Value> {
    let report = e.validate_perspective(p, None).unwrap();
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["severity"] == "sh:Violation")
        .cloned()
        .collect()
}

/// A refusal's engine entries as (focus, constraint), sorted; `None` when some entry is a typed
/// check's (no would-be graph to compare: the value never becomes a link).
fn engine_entries(error: &Value) -> Option<Vec<(String, String)>> {
    let entries = error["validation_errors"].as_array()?;
    let mut out = Vec::new();
    for e in entries {
        out.push((
            e["focus_node"].as_str()?.to_string(),
            e["constraint"].as_str()?.to_string(),
        ));
    }
    out.sort();
    Some(out)
}

/// A pySHACL comparison to make: the data, and the violations we expect pySHACL to find.
struct Case {
    data: PathBuf,
    expected: Vec<(String, String)>,
    what: String,
}

/// Runs random sequences on `dna`; returns the pySHACL cases (for Turtle DNAs).
fn sequences(dna: &str, seeds: u64, work: &Path) -> Vec<Case> {
    let turtle = dna.ends_with(".ttl");
    let mut cases = Vec::new();
    let mut stats = (0, 0, 0);
    for seed in 1..=seeds {
        let e = engine(dna);
        let unchecked = e.without_write_check();
        let p = e.add_perspective("P").unwrap()["uuid"].as_str().unwrap().to_string();
        let classes = e.fixed().classes().to_vec();
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut instances: Vec<(String, String)> = Vec::new();
        for step in 0..STEPS {
            let c = call(
                &mut rng,
                &classes,
                &instances,
                format!("https://example.org/n/{seed}-{step}"),
            );
            let before = links(&e, &p);
            let at = format!("{dna} seed {seed} step {step}: {c:?}");
            match c.run(&e, &p) {
                Ok(result) => {
                    stats.0 += 1;
                    let found = violations(&e, &p);
                    assert!(
                        found.is_empty(),
                        "{at}: accepted, but validate_perspective finds {found:#?}"
                    );
                    match &c {
                        Call::Create(class, _, _) => {
                            instances.push((class.clone(), result["base_uri"].as_str().unwrap().to_string()))
                        }
                        Call::Remove(_, id) => instances.retain(|(_, i)| i != id),
                        _ => {}
                    }
                }
                Err(err) => {
                    stats.1 += 1;
                    assert_eq!(links(&e, &p), before, "{at}: refused, but the links changed");
                    let Some(json) = err.to_json() else {
                        panic!("{at}: internal error {err}")
                    };
                    let Some(expected) = engine_entries(&json).filter(|_| turtle) else {
                        continue;
                    };
                    stats.2 += 1;
                    // The graph the write would have made: a copy of the perspective, the call
                    // made there by an engine without the rule.
                    let copy = unchecked.add_perspective("copy").unwrap()["uuid"]
                        .as_str()
                        .unwrap()
                        .to_string();
                    let all = unchecked.query_links(&p, Default::default(), Some(1000), None).unwrap();
                    for l in all["links"].as_array().unwrap() {
                        let s = |k: &str| l[k].as_str().unwrap().to_string();
                        unchecked
                            .add_link(&copy, &s("source"), &s("predicate"), &s("target"), false)
                            .unwrap();
                    }
                    c.run(&unchecked, &copy)
                        .unwrap_or_else(|e| panic!("{at}: without the rule the write fails too: {e}"));
                    let data = work.join(format!("{}-{seed}-{step}.ttl", stem(dna)));
                    std::fs::write(&data, unchecked.perspective_turtle(&copy).unwrap()).unwrap();
                    cases.push(Case {
                        data,
                        expected,
                        what: at,
                    });
                }
            }
        }
        if turtle {
            let data = work.join(format!("{}-{seed}-end.ttl", stem(dna)));
            std::fs::write(&data, e.perspective_turtle(&p).unwrap()).unwrap();
            cases.push(Case {
                data,
                expected: Vec::new(),
                what: format!("{dna} seed {seed}: the state after every accepted call"),
            });
        }
    }
    eprintln!(
        "{dna}: {} accepted, {} refused ({} by the engine)",
        stats.0, stats.1, stats.2
    );
    assert!(
        stats.0 > 0 && stats.1 > 0,
        "{dna}: the sequences exercise both outcomes"
    );
    let engine_enforced = engine(dna).fixed().classes().iter().any(|c| !c.is_typed_only());
    assert!(
        !(turtle && engine_enforced) || stats.2 > 0,
        "{dna}: some refusals come from the engine, to compare with pySHACL"
    );
    cases
}

fn stem(dna: &str) -> String {
    Path::new(dna).file_stem().unwrap().to_string_lossy().into_owned()
}

/// pySHACL's Violations per case, as (focus, constraint), sorted; `None` without the venv.
fn pyshacl(shapes: &Path, cases: &[Case], work: &Path) -> Option<Vec<Vec<(String, String)>>> {
    let python = repo(".tools/venv/bin/python");
    if !python.exists() {
        let message = format!("pySHACL comparison SKIPPED: no {}", python.display());
        assert!(std::env::var("SHACL_MCP_REQUIRE_PYSHACL").is_err(), "{message}");
        eprintln!("{message}");
        return None;
    }
    let list: Vec<Value> = cases
        .iter()
        .map(|c| json!({ "shapes": shapes, "data": c.data }))
        .collect();
    let file = work.join("cases.json");
    std::fs::write(&file, serde_json::to_string(&list).unwrap()).unwrap();
    let out = std::process::Command::new(python)
        .arg(repo("tests/core-dna/pyshacl_results.py"))
        .arg(&file)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "pySHACL: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all: Vec<Vec<(String, String, String)>> = serde_json::from_slice(&out.stdout).unwrap();
    Some(
        all.into_iter()
            .map(|results| {
                let mut v: Vec<(String, String)> = results
                    .into_iter()
                    .filter(|r| r.2 == "sh:Violation")
                    .map(|r| (r.0, r.1))
                    .collect();
                v.sort();
                v
            })
            .collect(),
    )
}

fn check(dna: &str, seeds: u64) {
    let name = dna.replace(['/', '.'], "-");
    let work = std::env::temp_dir().join(format!("write-rule-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let cases = sequences(dna, seeds, &work);
    if dna.ends_with(".ttl")
        && let Some(found) = pyshacl(&repo(dna), &cases, &work)
    {
        for (case, theirs) in cases.iter().zip(found) {
            assert_eq!(
                theirs, case.expected,
                "{}: pySHACL (left) and the refusal (right) differ",
                case.what
            );
        }
    }
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn events_every_core_component() {
    check("tests/core-dna/events.ttl", SEEDS_EVERY_COMPONENT);
}

#[test]
fn chat_turtle() {
    check("dna/chat.ttl", SEEDS);
}

#[test]
fn chat() {
    check("dna/chat.json", SEEDS);
}

#[test]
fn tasks() {
    check("dna/tasks.json", SEEDS);
}

#[test]
fn zoo() {
    check("dna/zoo.json", SEEDS);
}
