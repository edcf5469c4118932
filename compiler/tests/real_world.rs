//! The published shapes graphs under `tests/real-world-shapes` (their SOURCE.txt names origin,
//! commit and licence) are DNAs: no error, a class for every class they target, and their
//! coverage says where every constraint went. Their data against pySHACL: tests/python.

use std::collections::BTreeSet;
use std::path::Path;

use shacl_mcp_compiler::coverage::coverage;
use shacl_mcp_compiler::load;
use shacl_mcp_compiler::model::local_name;
use shacl_mcp_compiler::shacl::{Graph, MemoryGraph, Term};

/// `(class IRI, local name)` of every class a shape targets.
fn class_targets(path: &Path) -> BTreeSet<(String, String)> {
    let text = std::fs::read(path).unwrap();
    let base = shacl_mcp_compiler::parse::file_base(path);
    let graph = MemoryGraph::read_turtle(&text, base.as_deref()).unwrap();
    let mut out = BTreeSet::new();
    for s in graph.subjects_with("http://www.w3.org/ns/shacl#targetClass") {
        let deactivated = graph
            .objects(&s, "http://www.w3.org/ns/shacl#deactivated")
            .iter()
            .any(Term::is_true);
        let property_shape = !graph.objects(&s, "http://www.w3.org/ns/shacl#path").is_empty();
        if deactivated || property_shape {
            continue;
        }
        for t in graph.objects(&s, "http://www.w3.org/ns/shacl#targetClass") {
            let iri = t.as_iri().unwrap();
            out.insert((iri.to_string(), local_name(iri).to_string()));
        }
    }
    out
}

#[test]
fn public_shapes_graphs_are_dnas() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/real-world-shapes");
    let mut sources: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path().join("shapes.ttl"))
        .filter(|p| p.is_file())
        .collect();
    sources.sort();
    assert!(sources.len() >= 3, "{sources:?}");
    for path in &sources {
        let file = path.display();
        let (dna, diags) = load(path);
        assert!(!diags.has_errors(), "{file}:\n{diags}");
        let dna = dna.unwrap_or_else(|| panic!("{file}: no DNA"));
        let classes: BTreeSet<String> = dna.classes.iter().map(|c| c.name.clone()).collect();
        let names: BTreeSet<String> = class_targets(path).into_iter().map(|(_, name)| name).collect();
        assert_eq!(
            classes.len(),
            class_targets(path).len(),
            "{file}: one class per class target"
        );
        assert!(
            classes.iter().all(|c| names.iter().any(|n| c.ends_with(n.as_str()))),
            "{file}"
        );
        let accounts = coverage(&dna);
        let typed: usize = accounts.iter().map(|(_, c)| c.typed).sum();
        assert!(typed > 0, "{file}: nothing typed");
        eprintln!("{file}:\n{diags}\n{}", shacl_mcp_compiler::coverage::text(&dna));
    }
}
