//! The bad DNAs under `tests/bad-dna`: each file gives exactly its diagnostics, all in one
//! run, asserted as snapshots (`cargo insta review` to accept a deliberate change).

use std::path::Path;

use shacl_mcp_compiler::load_str;
use shacl_mcp_compiler::parse::Format;

/// Codes a file must report beyond the one its name spells.
const ALSO_EXPECTED: &[(&str, &[&str])] = &[
    (
        "unknown-vocabulary",
        &["unknown-node-kind", "unknown-relation-kind", "unknown-action"],
    ),
    ("not-a-dna", &["invalid-type"]),
    ("turtle-syntax", &["syntax"]),
    ("engine-enforced-path", &["engine-enforced"]),
    (
        "flow-problems",
        &[
            "unknown-state",
            "duplicate-action",
            "unknown-class",
            "unknown-property",
            "invalid-filter",
            "invalid-action-name",
            "unreachable-state",
            "duplicate-state",
            "invalid-state-name",
        ],
    ),
];

/// Files whose diagnostics are notes or warnings: the DNA still loads.
const LOADS_ANYWAY: &[&str] = &[
    "no-marker",
    "not-core",
    "unknown-term",
    "no-classes",
    "untargeted-shape",
    "unreachable-state",
];

#[test]
fn every_bad_dna_gives_its_diagnostics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/bad-dna");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/bad-dna")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 15, "at least 15 bad DNAs, found {}", files.len());
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let (dna, diags) = load_str(&text, &format!("tests/bad-dna/{name}"), Format::from_path(&path));
        let codes: Vec<&str> = diags.iter().map(|d| d.code).collect();
        let expected: Vec<&str> = match ALSO_EXPECTED.iter().find(|(s, _)| *s == stem) {
            Some((_, codes)) => codes.to_vec(),
            None => vec![stem.as_str()],
        };
        for code in expected {
            assert!(
                codes.contains(&code),
                "{name}: expected a `{code}` diagnostic, got {codes:?}"
            );
        }
        if LOADS_ANYWAY.contains(&stem.as_str()) {
            assert!(
                dna.is_some() && !diags.has_errors(),
                "{name}: notes and warnings are not errors"
            );
        } else {
            assert!(dna.is_none() && diags.has_errors(), "{name}: must not produce a model");
        }
        insta::assert_snapshot!(stem, diags.to_string());
    }
}
