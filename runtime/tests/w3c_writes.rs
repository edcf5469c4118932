//! The W3C SHACL core tests (tests/w3c-shacl-core) run as writes (docs/validation.md): a test's
//! shapes graph becomes the fixed DNA, its data graph is loaded through the tools, and the
//! writes are accepted exactly when the test expects the data to conform.
//!
//! Loading: every data node that is an instance of a class of the DNA (`rdf:type` its target
//! class) is created with `instance_create` (its IRI as `base_uri`, each triple whose predicate
//! a property of the class reads as that property's value); every other triple is written first
//! with `add_link`, the unvalidated path, as data the tools did not write. Creates that are
//! refused are tried again after the others (a reference needs its target to exist first) until
//! a round changes nothing. A test *fits* when its DNA serves at least one class, every focus
//! node of its expected results is such an instance, and each of its values fits its property
//! (a blank node is written as `_:label` where the node kind allows one); the others are counted
//! with their reason. Language-tagged values are JSON-LD
//! value objects for `rdf:langString` properties, `literal:lang:` links otherwise.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use common::rdf_data::{self, RDF_TYPE};
use common::*;
use shacl_mcp::clock::{FixedClock, SeededIds};
use shacl_mcp::compiler::parse::Format;
use shacl_mcp::engine::{Engine, FixedDna};
use shacl_mcp_compiler::model::Class;
use shacl_mcp_compiler::shacl::{Graph, MemoryGraph, Term};
const SH: &str = "http://www.w3.org/ns/shacl#";
const SHT: &str = "http://www.w3.org/ns/shacl-test#";
const MF: &str = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#";

enum Outcome {
    /// The writes were accepted (`true`) or not, and the test expects conformance (second).
    Ran(bool, bool),
    Unfit(&'static str),
}

fn run(file: &Path) -> Vec<(String, Outcome)> {
    // The files name themselves `<>`: a base IRI for both readers.
    let text = format!("@base <urn:w3c-test:> .\n{}", std::fs::read_to_string(file).unwrap());
    let graph = MemoryGraph::read_turtle(text.as_bytes(), None).unwrap();
    let mut out = Vec::new();
    for test in graph.subjects(RDF_TYPE, &Term::iri(&format!("{SHT}Validate"))) {
        let name = format!("{}", file.display());
        let action = graph.objects(&test, &format!("{MF}action"));
        let data = action.first().map(|a| graph.objects(a, &format!("{SHT}dataGraph")));
        let shapes = action.first().map(|a| graph.objects(a, &format!("{SHT}shapesGraph")));
        if data != shapes {
            out.push((name, Outcome::Unfit("data and shapes in different files")));
            continue;
        }
        let result = graph.objects(&test, &format!("{MF}result"));
        let Some(report) = result.first() else { continue };
        let conforms = graph
            .objects(report, &format!("{SH}conforms"))
            .first()
            .is_some_and(|c| matches!(c, Term::Literal(l) if l.lexical == "true"));
        let foci: Vec<Term> = graph
            .objects(report, &format!("{SH}result"))
            .iter()
            .flat_map(|r| graph.objects(r, &format!("{SH}focusNode")))
            .collect();
        out.push((name, one(&text, file, &graph, conforms, &foci)));
    }
    out
}

fn one(text: &str, file: &Path, graph: &MemoryGraph, conforms: bool, foci: &[Term]) -> Outcome {
    let source = [(text.to_string(), file.display().to_string(), Format::Turtle)];
    let Ok((fixed, _)) = FixedDna::from_sources(&source) else {
        return Outcome::Unfit("the shapes graph does not load as a DNA");
    };
    let classes: Vec<Arc<Class>> = fixed.classes().to_vec();
    if classes.is_empty() {
        return Outcome::Unfit("no class: the shapes target nodes, subjects or objects only");
    }
    // The data: every triple but the shapes, the test manifest, labels and the shapes' lists.
    let is_shapes_node = |s: &Term| {
        graph.outgoing(s).iter().any(|(p, o)| {
            p.as_iri()
                .is_some_and(|p| p.starts_with(SH) || p.starts_with(MF) || p.starts_with(SHT))
                || o.as_iri().is_some_and(|o| o.starts_with(SH) || o.starts_with(SHT))
        })
    };
    let data = graph.triples().filter(|(s, p, _)| {
        let shapes = is_shapes_node(s)
            || graph.subjects(&format!("{SH}path"), s).len() + graph.subjects(&format!("{MF}action"), s).len() > 0;
        let p = p.as_iri().unwrap_or_default();
        let list = p.ends_with("22-rdf-syntax-ns#first") || p.ends_with("22-rdf-syntax-ns#rest");
        let vocabulary =
            p.starts_with(SH) || p.starts_with("http://www.w3.org/2000/01/rdf-schema#") && !p.ends_with("subClassOf");
        !(shapes || list || vocabulary)
    });
    let plan = match rdf_data::plan(graph, data, &classes) {
        Ok(plan) => plan,
        Err(unfit) => return Outcome::Unfit(unfit),
    };
    if plan.creates.is_empty()
        || foci
            .iter()
            .any(|f| !f.as_iri().is_some_and(|f| plan.creates.contains_key(f)))
    {
        return Outcome::Unfit("a result on a node that is no instance of a class (the tools do not write it)");
    }
    let clock = Arc::new(FixedClock::at("2026-12-24T10:00:00Z").unwrap());
    let engine = Engine::new(fresh_store(clock).links, fixed, Arc::new(SeededIds::new(SEED)));
    let p = engine.add_perspective("W3C").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let outcome = plan.run(&engine, &p);
    Outcome::Ran(outcome.values().all(Result::is_ok), conforms)
}

#[test]
fn w3c_core_tests_as_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/w3c-shacl-core");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).into_iter().flatten())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ttl") && !p.ends_with("manifest.ttl"))
        .collect();
    files.sort();
    let (mut fit, mut agree, mut unfit) = (0, Vec::new(), BTreeMap::new());
    let mut disagree = Vec::new();
    for file in &files {
        for (name, outcome) in run(file) {
            match outcome {
                Outcome::Ran(accepted, conforms) => {
                    fit += 1;
                    if accepted == conforms {
                        agree.push(name);
                    } else {
                        disagree.push(format!("{name}: accepted {accepted}, expected conforms {conforms}"));
                    }
                }
                Outcome::Unfit(reason) => unfit.entry(reason).or_insert_with(Vec::new).push(name),
            }
        }
    }
    eprintln!(
        "{fit} tests fit, {} agree: {agree:#?}\nnot fitting: {unfit:#?}",
        agree.len()
    );
    // 21 of the 98 since properties the shapes say nothing of take any term, IRIs as
    // {"@id": …} (docs/dna-format.md): more may fit as the compiler accepts more, never fewer.
    assert!(fit >= 21, "only {fit} W3C tests run as writes");
    assert!(disagree.is_empty(), "writes disagree with the suite: {disagree:#?}");
}
