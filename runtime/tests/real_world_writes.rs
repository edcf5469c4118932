//! The published shapes graphs of tests/real-world-shapes (DCAT-AP, cube-link, IDS) run as
//! writes: each shapes graph becomes the fixed DNA, and every data node typed with a class's
//! target class is created through `instance_create` (the validated write) in a perspective that
//! already holds the rest of its data file (written with `execute_commands`, unvalidated). The
//! create must be accepted exactly when the SHACL Core validator (`shacl-mcp validate`, equal to
//! pySHACL result by result: tests/python/test_real_world_shapes.py) reports no Violation whose
//! focus node is that instance in the data file as published.
//!
//! An instance *fits* when the tools can write it as the data has it: an IRI (not a blank
//! node), every value of its class's properties writable as a tool value (no blank node value,
//! no IRI where the compiler types text, one value for a single-valued property, a
//! language-tagged value only for an `rdf:langString` property or, written as its text, for a
//! text property no shape reads the language of: `common::rdf_data::language_blind`). An instance
//! with triples no property of its class writes (a second `rdf:type`, a property of a
//! superclass's shape) has those written before the create, with the rest of the data: a
//! Violation on them is then a result already there, which the write rule reports but does not
//! hold against the write (docs/validation.md), so those instances are counted apart. The test
//! prints how many fit, agree, and why the others do not fit, and asserts that every instance
//! written whole by its create agrees. `REAL_WORLD_DEBUG=1` prints every Violation and create.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use common::rdf_data;
use common::*;
use serde_json::{Map, Value, json};
use shacl_mcp::clock::{FixedClock, SeededIds};
use shacl_mcp::compiler::parse::Format;
use shacl_mcp::engine::{Engine, FixedDna};
use shacl_mcp_compiler::model::{Class, ValueType};
use shacl_mcp_compiler::shacl::{GraphBuilder, MemoryGraph, Shapes, Term, validate};

use common::rdf_data::RDF_TYPE;
const SH_VIOLATION: &str = "http://www.w3.org/ns/shacl#Violation";

/// What became of one instance.
enum Outcome {
    /// Accepted by the write (first), and no Violation on it in the validator's report (second);
    /// whether some of the instance's own triples were written before it (third: a predicate no
    /// property of its class writes, such as a property of a superclass's shape).
    Ran(bool, bool, bool),
    Unfit(&'static str),
}

/// The tool value of a data term for property `p` of `class`, or why there is none.
fn tool_value(class: &Class, name: &str, term: &Term) -> Result<Value, &'static str> {
    let p = class.property(name).unwrap();
    Ok(match term {
        Term::Iri(_) | Term::Blank(_) => rdf_data::node_value(p, term)?,
        Term::Literal(l)
            if l.language.is_some()
                && !matches!(p.value_type, ValueType::LangString | ValueType::AnyOf)
                && !(p.value_type == ValueType::String && rdf_data::language_blind(class, name)) =>
        {
            return Err("a language-tagged value of a property whose shapes read the language");
        }
        Term::Literal(l) if p.value_type == ValueType::AnyOf => rdf_data::any_of_value(p, l)?,
        Term::Literal(l) => rdf_data::literal_value(p.value_type, l),
    })
}

/// A data term as a link target: an IRI as written, a blank node `_:<label>`, a literal as
/// a write stores its value (docs/data-model.md, Links and values).
fn target(term: &Term) -> String {
    match term {
        Term::Iri(iri) => iri.to_string(),
        Term::Blank(label) => format!("_:{label}"),
        Term::Literal(l) => rdf_data::encoded(l),
    }
}

/// Every instance of one data file, with its outcome.
fn run(fixed: &FixedDna, shapes: &Shapes, graph: &MemoryGraph) -> Vec<(String, Outcome)> {
    let report = validate(graph, shapes);
    let violations: Vec<_> = report
        .results
        .iter()
        .filter(|r| r.severity == Term::iri(SH_VIOLATION))
        .collect();
    let violating: HashSet<Term> = violations.iter().map(|r| r.focus.clone()).collect();
    if std::env::var("REAL_WORLD_DEBUG").is_ok() {
        for r in &violations {
            eprintln!(
                "violation {} {:?} {:?} {:?}",
                r.focus,
                r.component,
                r.path,
                r.value.as_ref().map(|v| v.to_string())
            );
        }
    }
    let classes: Vec<Arc<Class>> = fixed.classes().to_vec();
    let triples: Vec<(Term, Term, Term)> = graph
        .triples()
        .map(|(s, p, o)| (s.clone(), p.clone(), o.clone()))
        .collect();
    // Instances: subjects with an explicit rdf:type of a class's target class (the first such
    // class, in DNA order).
    let mut instances: BTreeMap<String, (Term, Arc<Class>)> = BTreeMap::new();
    for (s, p, o) in &triples {
        if p.as_iri() != Some(RDF_TYPE) {
            continue;
        }
        if let Some(class) = classes.iter().find(|c| o.as_iri() == Some(c.target_class.as_str())) {
            instances
                .entry(rdf_data::spelling(s))
                .or_insert_with(|| (s.clone(), class.clone()));
        }
    }
    let clock = Arc::new(FixedClock::at("2026-12-24T10:00:00Z").unwrap());
    let engine = Engine::new(fresh_store(clock).links, fixed.clone(), Arc::new(SeededIds::new(SEED)));
    let mut out = Vec::new();
    for (id, (subject, class)) in &instances {
        out.push((
            id.clone(),
            one(&engine, &triples, subject, class, violating.contains(subject)),
        ));
    }
    out
}

fn one(engine: &Engine, triples: &[(Term, Term, Term)], subject: &Term, class: &Class, violated: bool) -> Outcome {
    let mut properties = Map::new();
    let mut rest = Vec::new();
    let mut partial = false;
    for (s, p, o) in triples {
        let predicate = p.as_iri().unwrap_or_default();
        let creatable = class
            .visible_properties()
            .find(|q| q.path == predicate && q.getter.is_none() && q.is_creatable());
        let marker = predicate == RDF_TYPE && o.as_iri() == Some(class.target_class.as_str());
        if s == subject && creatable.is_none() && !marker {
            partial = true;
        }
        if s != subject || (creatable.is_none() && !marker) {
            rest.push(json!({ "action": "addLink", "source": rdf_data::spelling(s), "predicate": predicate, "target": target(o) }));
            continue;
        }
        let Some(q) = creatable else { continue };
        let value = match tool_value(class, &q.name, o) {
            Ok(v) => v,
            Err(reason) => return Outcome::Unfit(reason),
        };
        if q.collection {
            let items = properties.entry(q.name.clone()).or_insert_with(|| json!([]));
            items.as_array_mut().unwrap().push(value);
        } else if properties.insert(q.name.clone(), value).is_some() {
            return Outcome::Unfit("two values for a single-valued property (the tools write one)");
        }
    }
    let p = engine.add_perspective("data").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    if !rest.is_empty() {
        engine
            .execute_commands(&p, "", &rest, None)
            .expect("the rest of the data is written");
    }
    let id = rdf_data::spelling(subject);
    let result = engine.instance_create(&p, &class.name, &properties, Some(&id), None);
    if std::env::var("REAL_WORLD_DEBUG").is_ok() {
        eprintln!(
            "create {id} as {}: {:?}",
            class.name,
            result.as_ref().map_err(|e| e.to_json())
        );
    }
    let accepted = result.is_ok();
    Outcome::Ran(accepted, !violated, partial)
}

/// A Turtle file, relative IRIs resolved against its URL (as `shacl-mcp validate` reads it).
fn turtle(path: &Path) -> MemoryGraph {
    let absolute = path.canonicalize().unwrap();
    let base = format!("file://{}", absolute.display());
    MemoryGraph::read_turtle(&std::fs::read(&absolute).unwrap(), Some(&base)).expect("Turtle parses")
}

/// The `.ttl` files of a folder (none when it is absent), sorted.
fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ttl"))
        .collect();
    out.sort();
    out
}

#[test]
fn published_data_as_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/real-world-shapes");
    let mut sources: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("shapes.ttl").is_file())
        .collect();
    sources.sort();
    let mut summary = Vec::new();
    let mut disagree = Vec::new();
    // Instances some of whose triples were there before the create: a Violation on those is a
    // result already there, which the write rule reports but does not hold against the write.
    let mut partly_disagree = Vec::new();
    let mut totals = (0, 0);
    for source in &sources {
        let name = source.file_name().unwrap().to_string_lossy().into_owned();
        let shapes_path = source.join("shapes.ttl").canonicalize().unwrap();
        let shapes_text = std::fs::read_to_string(&shapes_path).unwrap();
        let file = shapes_path.display().to_string();
        let Ok((fixed, _)) = FixedDna::from_sources(&[(shapes_text, file, Format::Turtle)]) else {
            summary.push(format!("{name}: the shapes graph does not load as a DNA"));
            continue;
        };
        let shapes_graph = turtle(&shapes_path);
        let shapes = Shapes::from_graph(&shapes_graph).expect("well-formed shapes");
        let ontology: Vec<MemoryGraph> = files(&source.join("ontology")).iter().map(|p| turtle(p)).collect();
        let data = files(&source.join("data"));
        let (mut fit, mut agree, mut unfit) = (0, 0, BTreeMap::<&str, usize>::new());
        let (mut partly, mut partly_agree) = (0, 0);
        for path in &data {
            // The data graph and the ontology, as the Python test gives them to pySHACL.
            let mut builder = GraphBuilder::new();
            for g in std::iter::once(&turtle(path)).chain(&ontology) {
                for (s, p, o) in g.triples() {
                    builder.add(s.clone(), p.clone(), o.clone());
                }
            }
            let graph = builder.build();
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            for (id, outcome) in run(&fixed, &shapes, &graph) {
                match outcome {
                    Outcome::Ran(accepted, conforms, false) => {
                        fit += 1;
                        if accepted == conforms {
                            agree += 1;
                        } else {
                            disagree.push(format!(
                                "{name}/{file} {id}: accepted {accepted}, no Violation {conforms}"
                            ));
                        }
                    }
                    Outcome::Ran(accepted, conforms, true) => {
                        partly += 1;
                        if accepted == conforms {
                            partly_agree += 1;
                        } else {
                            partly_disagree.push(format!(
                                "{name}/{file} {id}: accepted {accepted}, no Violation {conforms}"
                            ));
                        }
                    }
                    Outcome::Unfit(reason) => *unfit.entry(reason).or_default() += 1,
                }
            }
        }
        summary.push(format!(
            "{name}: {} classes; {fit} instances written whole by the create, {agree} agree; {partly} \
             written partly before, {partly_agree} agree; not fitting: {unfit:#?}",
            fixed.classes().len()
        ));
        totals.0 += fit;
        totals.1 += partly;
    }
    eprintln!(
        "{}\ndisagreeing: {disagree:#?}\ndisagreeing, partly written before: {partly_disagree:#?}",
        summary.join("\n")
    );
    // 30 and 66 when this test was written, 95 and 124 once blank nodes were tool values: more
    // may fit as the compiler accepts more.
    assert!(totals.0 >= 95 && totals.1 >= 124, "only {totals:?} instances fit");
    assert!(disagree.is_empty(), "writes disagree with the validator: {disagree:#?}");
}
