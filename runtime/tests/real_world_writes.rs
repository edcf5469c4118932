//! Published shapes graphs and their data (tests/real-world-shapes) re-created through the
//! tools: each `shapes.ttl` is the fixed DNA, each data graph is loaded into a perspective with
//! the validated `instance_create` (common/rdf_data.rs), and every instance must be accepted
//! exactly when the SHACL Core validator reports no Violation whose focus node it is. The
//! validator's reports on these very files equal pySHACL's result by result
//! (tests/python/test_real_world_shapes.py), so pySHACL is the oracle here too.
//!
//! A data graph the tools cannot write whole (blank nodes, language-tagged values, …) is
//! counted with its reason; the test fails if fewer graphs fit than when it was written.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::rdf_data;
use common::*;
use shacl_mcp::clock::{FixedClock, SeededIds};
use shacl_mcp::engine::{Engine, FixedDna};
use shacl_mcp_compiler::shacl::{MemoryGraph, Shapes, Term, validate};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/real-world-shapes")
}

fn ttl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ttl"))
        .collect();
    files.sort();
    files
}

/// A data graph as the Python test reads it: the file, then the folder's ontology files.
fn data_graph(file: &Path, ontology: &[PathBuf]) -> MemoryGraph {
    let mut text = std::fs::read_to_string(file).unwrap();
    for extra in ontology {
        text.push('\n');
        text.push_str(&std::fs::read_to_string(extra).unwrap());
    }
    let base = format!("file://{}", file.display());
    MemoryGraph::read_turtle(text.as_bytes(), Some(&base)).unwrap_or_else(|e| panic!("{}: {e:?}", file.display()))
}

/// The focus nodes of every Violation of `data` against the shapes graph.
fn violating(data: &MemoryGraph, shapes: &Shapes) -> BTreeSet<Term> {
    let violation = Term::iri("http://www.w3.org/ns/shacl#Violation");
    validate(data, shapes)
        .results
        .into_iter()
        .filter(|r| r.severity == violation)
        .map(|r| r.focus)
        .collect()
}

/// What became of one data graph: how many instances agreed, and each that did not.
enum Outcome {
    Ran {
        instances: usize,
        refused: usize,
        disagree: Vec<String>,
    },
    Unfit(&'static str),
}

fn one(fixed: &FixedDna, shapes: &Shapes, data: &MemoryGraph) -> Outcome {
    let classes = fixed.classes().to_vec();
    let plan = match rdf_data::plan(data, data.triples(), &classes) {
        Ok(plan) if !plan.creates.is_empty() => plan,
        Ok(_) => return Outcome::Unfit("no instance of a class of the DNA"),
        Err(unfit) => return Outcome::Unfit(unfit),
    };
    let expected = violating(data, shapes);
    let clock = Arc::new(FixedClock::at("2026-12-24T10:00:00Z").unwrap());
    let engine = Engine::new(fresh_store(clock).links, fixed.clone(), Arc::new(SeededIds::new(SEED)));
    let p = engine.add_perspective("published data").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let outcome = plan.run(&engine, &p);
    let disagree = outcome
        .iter()
        .filter(|(id, done)| done.is_ok() == expected.contains(&Term::iri(id)))
        .map(|(id, done)| match done {
            Ok(()) => format!("{id}: accepted, but the validator reports a Violation on it"),
            Err(refusal) => format!("{id}: refused with no Violation on it: {refusal}"),
        })
        .collect();
    Outcome::Ran {
        instances: outcome.len(),
        refused: outcome.values().filter(|done| done.is_err()).count(),
        disagree,
    }
}

#[test]
fn published_instances_recreated_through_the_tools_are_refused_where_the_validator_finds_violations() {
    let (mut fit, mut instances, mut refused, mut disagree) = (0, 0, 0, Vec::new());
    let mut unfit: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for source in ["dcat-ap", "cube-link", "ids"] {
        let dir = root().join(source);
        let (fixed, _) = FixedDna::load(&[dir.join("shapes.ttl")]).unwrap_or_else(|d| panic!("{source}: {d}"));
        let shapes_text = std::fs::read_to_string(dir.join("shapes.ttl")).unwrap();
        let shapes_base = format!("file://{}", dir.join("shapes.ttl").display());
        let shapes_graph = MemoryGraph::read_turtle(shapes_text.as_bytes(), Some(&shapes_base)).unwrap();
        let shapes = Shapes::from_graph(&shapes_graph).unwrap_or_else(|e| panic!("{source}: {e:?}"));
        let ontology = ttl_files(&dir.join("ontology"));
        for file in ttl_files(&dir.join("data")) {
            let name = format!("{source}/{}", file.file_name().unwrap().to_string_lossy());
            match one(&fixed, &shapes, &data_graph(&file, &ontology)) {
                Outcome::Ran {
                    instances: n,
                    refused: r,
                    disagree: d,
                } => {
                    fit += 1;
                    instances += n;
                    refused += r;
                    disagree.extend(d.into_iter().map(|d| format!("{name}: {d}")));
                }
                Outcome::Unfit(reason) => unfit.entry(reason).or_default().push(name),
            }
        }
    }
    eprintln!("{fit} data graphs fit ({instances} instances, {refused} refused); not fitting: {unfit:#?}");
    assert!(
        disagree.is_empty(),
        "the tools and the validator disagree: {disagree:#?}"
    );
    // 13 (all of DCAT-AP's) when this test was written: more may fit as the tools write more.
    assert!(fit >= 13, "only {fit} published data graphs load through the tools");
}
