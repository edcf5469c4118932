//! The W3C SHACL core test suite (`tests/w3c-shacl-core`), run from its
//! manifests: every `sht:Validate` test's data graph is validated against its shapes graph and
//! the report compared with the expected one as the suite's harness defines it: the same
//! `sh:conforms`, and the same results, each compared on `sh:focusNode`, `sh:resultPath`,
//! `sh:value`, `sh:resultSeverity`, `sh:sourceConstraintComponent`, `sh:sourceShape` and, where
//! the expected result has one, `sh:resultMessage`. Results are a multiset (a report may hold
//! two equal results, as `validation-reports/shared` expects). Blank nodes are compared by
//! identity when they come from the same file as the expected report, else by their
//! structure; result paths are compared as paths.

use std::collections::HashMap;
use std::path::{Path as FsPath, PathBuf};
use std::rc::Rc;

use shacl_mcp_compiler::shacl::{Graph, MemoryGraph, Path, Shapes, Term, validate};

const MF: &str = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#";
const SHT: &str = "http://www.w3.org/ns/shacl-test#";
const SH: &str = "http://www.w3.org/ns/shacl#";

fn mf(local: &str) -> String {
    format!("{MF}{local}")
}

fn sht(local: &str) -> String {
    format!("{SHT}{local}")
}

fn sh(local: &str) -> String {
    format!("{SH}{local}")
}

/// A parsed file: graphs are read once, so a test whose data, shapes and expected report
/// share a file shares its blank nodes too.
struct Loaded {
    path: PathBuf,
    graph: MemoryGraph,
}

#[derive(Default)]
struct Files {
    cache: HashMap<PathBuf, Rc<Loaded>>,
}

impl Files {
    fn load(&mut self, path: &FsPath) -> Result<Rc<Loaded>, String> {
        if let Some(found) = self.cache.get(path) {
            return Ok(found.clone());
        }
        let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let base = format!("file://{}", path.display());
        let graph = MemoryGraph::read_turtle(&text, Some(&base)).map_err(|e| format!("{}: {e:?}", path.display()))?;
        let loaded = Rc::new(Loaded {
            path: path.to_path_buf(),
            graph,
        });
        self.cache.insert(path.to_path_buf(), loaded.clone());
        Ok(loaded)
    }
}

fn file_of(term: &Term) -> Result<PathBuf, String> {
    term.as_iri()
        .and_then(|iri| iri.strip_prefix("file://"))
        .map(PathBuf::from)
        .ok_or_else(|| format!("{term} is not a file IRI"))
}

fn list(graph: &MemoryGraph, head: &Term) -> Vec<Term> {
    shacl_mcp_compiler::shacl::path::read_list(graph, head).unwrap_or_default()
}

fn first(graph: &MemoryGraph, node: &Term, predicate: &str) -> Option<Term> {
    graph.objects(node, predicate).into_iter().next()
}

struct Test {
    name: String,
    manifest: Rc<Loaded>,
    entry: Term,
}

/// Every test entry of the manifest at `path` and of those it includes, in order.
fn collect(files: &mut Files, path: &FsPath, tests: &mut Vec<Test>) -> Result<(), String> {
    let loaded = files.load(path)?;
    let g = &loaded.graph;
    let root = Term::iri(&format!("file://{}", path.display()));
    for include in g.objects(&root, &mf("include")) {
        collect(files, &file_of(&include)?, tests)?;
    }
    for entries in g.objects(&root, &mf("entries")) {
        for entry in list(g, &entries) {
            let name = entry.as_iri().unwrap_or_default().to_string();
            tests.push(Test {
                name,
                manifest: loaded.clone(),
                entry,
            });
        }
    }
    Ok(())
}

/// One result as the harness compares it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    focus: String,
    path: Option<String>,
    value: Option<String>,
    severity: String,
    component: String,
    shape: String,
}

/// A term of `graph` (the data or the shapes graph) for comparison with the expected report
/// in `manifest`: a blank node by its label when both are one file, else by its structure.
fn canonical(term: &Term, graph: &Loaded, manifest: &Loaded) -> String {
    if term.is_blank() && graph.path != manifest.path {
        structure(term, &graph.graph, 0)
    } else {
        term.to_string()
    }
}

/// The same for a term of the expected report, whose counterpart comes from `graph`.
fn canonical_expected(term: &Term, graph: &Loaded, manifest: &Loaded) -> String {
    canonical(term, manifest, graph)
}

fn structure(term: &Term, graph: &MemoryGraph, depth: usize) -> String {
    if !term.is_blank() {
        return term.to_string();
    }
    if depth > 8 {
        return "[…]".to_string();
    }
    let mut parts: Vec<String> = graph
        .outgoing(term)
        .iter()
        .map(|(p, o)| format!("{p} {}", structure(o, graph, depth + 1)))
        .collect();
    parts.sort();
    format!("[{}]", parts.join("; "))
}

/// Runs one test; `Ok` with the number of results compared.
fn run(files: &mut Files, test: &Test) -> Result<usize, String> {
    let m = &test.manifest.graph;
    let action = first(m, &test.entry, &mf("action")).ok_or("no mf:action")?;
    let data_file = first(m, &action, &sht("dataGraph")).ok_or("no sht:dataGraph")?;
    let shapes_file = first(m, &action, &sht("shapesGraph")).ok_or("no sht:shapesGraph")?;
    let data = files.load(&file_of(&data_file)?)?;
    let shapes_graph = files.load(&file_of(&shapes_file)?)?;
    let shapes = Shapes::from_graph(&shapes_graph.graph).map_err(|e| format!("shapes refused: {e:?}"))?;
    let report = validate(&data.graph, &shapes);

    let expected = first(m, &test.entry, &mf("result")).ok_or("no mf:result")?;
    let conforms = first(m, &expected, &sh("conforms")).is_some_and(|c| c.is_true());
    let mut problems = Vec::new();
    if conforms != report.conforms() {
        problems.push(format!("sh:conforms: expected {conforms}, got {}", report.conforms()));
    }
    let manifest = &*test.manifest;
    let mut matched = 0;
    let mut actual: Vec<(Key, Vec<String>)> = report
        .results
        .iter()
        .map(|r| {
            let key = Key {
                focus: canonical(&r.focus, &data, manifest),
                path: r.path.as_ref().map(Path::to_string),
                value: r.value.as_ref().map(|v| canonical(v, &data, manifest)),
                severity: r.severity.to_string(),
                component: Term::iri(&r.component.iri()).to_string(),
                shape: canonical(&r.source_shape, &shapes_graph, manifest),
            };
            let mut messages: Vec<String> = r.messages.iter().map(Term::to_string).collect();
            messages.sort();
            (key, messages)
        })
        .collect();
    for node in m.objects(&expected, &sh("result")) {
        let get = |local: &str| first(m, &node, &sh(local));
        let path = match get("resultPath") {
            Some(p) => Some(
                Path::parse(m, &p)
                    .map_err(|e| format!("expected resultPath: {e}"))?
                    .to_string(),
            ),
            None => None,
        };
        let text = |local: &str| get(local).map(|t| t.to_string()).unwrap_or_default();
        let key = Key {
            focus: get("focusNode")
                .map(|t| canonical_expected(&t, &data, manifest))
                .unwrap_or_default(),
            path,
            value: get("value").map(|t| canonical_expected(&t, &data, manifest)),
            severity: text("resultSeverity"),
            component: text("sourceConstraintComponent"),
            shape: get("sourceShape")
                .map(|t| canonical_expected(&t, &shapes_graph, manifest))
                .unwrap_or_default(),
        };
        let mut messages: Vec<String> = m
            .objects(&node, &sh("resultMessage"))
            .iter()
            .map(Term::to_string)
            .collect();
        messages.sort();
        let found = actual
            .iter()
            .position(|(k, got)| *k == key && (messages.is_empty() || *got == messages));
        match found {
            Some(i) => {
                actual.remove(i);
                matched += 1;
            }
            None => problems.push(format!("missing result: {key:?} {messages:?}")),
        }
    }
    for (key, messages) in actual {
        problems.push(format!("unexpected result: {key:?} {messages:?}"));
    }
    if problems.is_empty() {
        Ok(matched)
    } else {
        Err(problems.join("\n    "))
    }
}

#[test]
fn w3c_shacl_core_suite() {
    let root = FsPath::new(env!("CARGO_MANIFEST_DIR")).join("../tests/w3c-shacl-core");
    let root = root.canonicalize().expect("the suite at tests/w3c-shacl-core");
    let mut files = Files::default();
    let mut tests = Vec::new();
    collect(&mut files, &root.join("manifest.ttl"), &mut tests).expect("manifests");
    let mut passed = 0;
    let mut results = 0;
    let mut failed = Vec::new();
    let mut skipped = Vec::new();
    for test in &tests {
        let m = &test.manifest.graph;
        let short = test
            .name
            .rsplit("w3c-shacl-core/")
            .next()
            .unwrap_or(&test.name)
            .to_string();
        let validate_test = m.contains(
            &test.entry,
            "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
            &Term::iri(&sht("Validate")),
        );
        let approved = first(m, &test.entry, &mf("status")) == Some(Term::iri(&sht("approved")));
        if !validate_test || !approved {
            skipped.push(short);
            continue;
        }
        match run(&mut files, test) {
            Ok(n) => {
                passed += 1;
                results += n;
            }
            Err(e) => failed.push(format!("{short}:\n    {e}")),
        }
    }
    let total = passed + failed.len();
    println!("W3C SHACL core suite: {passed} passed of {total} ({results} expected results matched)");
    for f in &failed {
        println!("FAILED {f}");
    }
    for s in &skipped {
        println!("skipped (not an approved sht:Validate test): {s}");
    }
    assert_eq!(total, 98, "the suite has 98 approved tests");
    assert!(
        failed.is_empty(),
        "{} of {total} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
