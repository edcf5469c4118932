//! The public shapes graphs under `tests/real-world` (their SOURCE.txt names origin, commit and
//! licence) are DNAs: no error, a class for every class they target, and their coverage says
//! where every constraint went. (`riverbench/category.ttl` and `task.ttl` target nodes only: no
//! class; their data is compared with pySHACL alone.) pySHACL comparisons of their data: tests/python.

use std::collections::BTreeSet;
use std::path::Path;

use shacl_mcp_compiler::coverage::coverage;
use shacl_mcp_compiler::load;
use shacl_mcp_compiler::model::local_name;
use shacl_mcp_compiler::shacl::{Graph, MemoryGraph, Term};

const GRAPHS: &[&str] = &["dcat-ap/dcat-ap.ttl", "cube-link/shapes.ttl", "riverbench/profile.ttl"];

fn class_targets(path: &Path) -> BTreeSet<String> {
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
            out.insert(local_name(t.as_iri().unwrap()).to_string());
        }
    }
    out
}

#[test]
fn public_shapes_graphs_are_dnas() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/real-world");
    for file in GRAPHS {
        let path = root.join(file);
        let (dna, diags) = load(&path);
        assert!(!diags.has_errors(), "{file}:\n{diags}");
        let dna = dna.unwrap_or_else(|| panic!("{file}: no DNA"));
        let classes: BTreeSet<String> = dna.classes.iter().map(|c| c.name.clone()).collect();
        assert_eq!(classes, class_targets(&path), "{file}");
        let accounts = coverage(&dna);
        let typed: usize = accounts.iter().map(|(_, c)| c.typed).sum();
        assert!(typed > 0, "{file}: nothing typed");
        eprintln!("{file}:\n{diags}\n{}", shacl_mcp_compiler::coverage::text(&dna));
    }
}
