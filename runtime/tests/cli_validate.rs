//! `shacl-mcp validate` as a user runs it: exit 0 when the data conforms, 1 when it does not,
//! 2 on bad input; text, JSON and Turtle reports.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn suite(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/w3c-shacl-core")
        .join(file)
}

fn validate(shapes: &Path, data: &Path, format: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_shacl-mcp"));
    command
        .arg("validate")
        .arg("--shapes")
        .arg(shapes)
        .arg("--data")
        .arg(data);
    if let Some(format) = format {
        command.args(["--format", format]);
    }
    command.output().expect("runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}

/// A scratch file, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, content: &str) -> Scratch {
        let path = std::env::temp_dir().join(format!("shacl-mcp-validate-{}-{name}", std::process::id()));
        std::fs::write(&path, content).unwrap();
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn conforming_data_exits_0() {
    let shapes = suite("property/uniqueLang-002-shapes.ttl");
    let data = suite("property/uniqueLang-002-data.ttl");
    let out = validate(&shapes, &data, None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "conforms: no validation results\n");
    let out = validate(&shapes, &data, Some("json"));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json,
        serde_json::json!({ "conforms": true, "result_count": 0, "results": [] })
    );
}

#[test]
fn violations_exit_1_in_every_format() {
    let file = suite("complex/personexample.ttl");
    let out = validate(&file, &file, None);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(
        report.contains(
            "error[sh:PatternConstraintComponent]: does not match the pattern ^\\d{3}-\\d{2}-\\d{4}$\n  --> "
        ),
        "{report}"
    );
    assert!(
        report.contains(": ex:Alice ex:ssn\n   = value: \"987-65-432A\"\n"),
        "{report}"
    );
    assert!(report.ends_with("does not conform: 4 errors\n"), "{report}");

    let out = validate(&file, &file, Some("json"));
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["conforms"], false);
    assert_eq!(json["result_count"], 4);

    let out = validate(&file, &file, Some("turtle"));
    assert_eq!(out.status.code(), Some(1));
    let turtle = text(&out.stdout);
    assert!(
        turtle.contains("[] a sh:ValidationReport ;\n\tsh:conforms false ;"),
        "{turtle}"
    );
    assert_eq!(turtle.matches("a sh:ValidationResult").count(), 4);
}

#[test]
fn bad_input_exits_2_with_positions() {
    let broken = Scratch::new("broken.ttl", "@prefix ex: <http://ex/> .\nex:a ex:p .\n");
    let fine = suite("property/uniqueLang-002-data.ttl");
    let out = validate(&broken.0, &fine, None);
    assert_eq!(out.status.code(), Some(2));
    let errors = text(&out.stderr);
    assert!(
        errors.contains("error[syntax]: Turtle syntax error: ")
            && errors.contains(&format!("{}:2:", broken.0.display())),
        "{errors}"
    );
    assert!(out.stdout.is_empty());

    let missing = validate(Path::new("/nonexistent/shapes.ttl"), &fine, None);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("error[unreadable-file]"));

    let ill_formed = Scratch::new(
        "ill-formed.ttl",
        "@prefix ex: <http://ex/> .\n@prefix sh: <http://www.w3.org/ns/shacl#> .\nex:S sh:targetNode ex:a ; sh:minLength \"many\" .\n",
    );
    let out = validate(&ill_formed.0, &fine, None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(
            "error[ill-formed-shape]: shape <http://ex/S>: sh:minLength \"many\" is not a non-negative integer"
        ),
        "{}",
        text(&out.stderr)
    );

    let usage = Command::new(env!("CARGO_BIN_EXE_shacl-mcp"))
        .args(["validate", "--format", "xml"])
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
}
