//! `shacl-mcp validate --shapes SHAPES.ttl --data DATA.ttl [--format text|json|turtle]`: a
//! SHACL Core validation report. Exits 0 when the data conforms, 1 when it does not, 2 on bad
//! input (an unreadable file, a Turtle syntax error with its line and column, an ill-formed
//! shapes graph).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

use clap::{Args, ValueEnum};
use shacl_mcp_compiler::parse;
use shacl_mcp_compiler::shacl::{MemoryGraph, Shapes, validate};
use shacl_mcp_compiler::shape::Origin;
use shacl_mcp_compiler::{Diagnostic, Diagnostics};

#[derive(Args)]
pub struct ValidateArgs {
    /// The shapes graph (Turtle).
    #[arg(long, value_name = "SHAPES.ttl")]
    shapes: PathBuf,
    /// The data graph (Turtle).
    #[arg(long, value_name = "DATA.ttl")]
    data: PathBuf,
    /// text: one block per result, like a compiler's errors; json: `{ conforms, result_count,
    /// results }`; turtle: the standard sh:ValidationReport graph.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    Text,
    Json,
    Turtle,
}

pub fn run(args: ValidateArgs) -> ExitCode {
    let mut problems = Diagnostics::default();
    let shapes_graph = read(&args.shapes, &mut problems);
    let same_file = same(&args.shapes, &args.data);
    let data = match (&shapes_graph, same_file) {
        (Some(g), true) => Some(g.clone()),
        _ => read(&args.data, &mut problems),
    };
    let (Some(shapes_graph), Some(data)) = (shapes_graph, data) else {
        return bad_input(problems);
    };
    let shapes = match Shapes::from_graph(&*shapes_graph) {
        Ok(shapes) => shapes,
        Err(errors) => {
            for e in errors {
                let d = Diagnostic::error("ill-formed-shape", Origin::default(), e)
                    .help("fix the shape so that it follows the SHACL syntax rules (SHACL §2, §4)");
                problems.push(d);
            }
            return bad_input(problems.in_file(&args.shapes.display().to_string()));
        }
    };
    let report = validate(&*data, &shapes);
    let text = match args.format {
        ReportFormat::Text => {
            let prefixes: Vec<(String, String)> =
                data.prefixes().iter().chain(shapes_graph.prefixes()).cloned().collect();
            report.to_text(&args.data.display().to_string(), &prefixes)
        }
        ReportFormat::Json => {
            let mut text = serde_json::to_string_pretty(&report.to_json(&*data)).unwrap_or_default();
            text.push('\n');
            text
        }
        ReportFormat::Turtle => report.to_turtle(),
    };
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    if report.conforms() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// [`read`] for a command that only needs the graph: its problems as the text to print.
pub(super) fn read_turtle(path: &Path) -> Result<Rc<MemoryGraph>, String> {
    let mut problems = Diagnostics::default();
    read(path, &mut problems).ok_or_else(|| problems.to_string())
}

/// Reads and parses one Turtle file; relative IRIs resolve against the file's URL.
fn read(path: &Path, problems: &mut Diagnostics) -> Option<Rc<MemoryGraph>> {
    let file = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            let d = Diagnostic::error(
                "unreadable-file",
                Origin::default(),
                format!("cannot read the file: {e}"),
            )
            .help("check the path and its permissions");
            problems.extend(Diagnostics(vec![d]).in_file(&file));
            return None;
        }
    };
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let base = format!("file://{}", absolute.display());
    match MemoryGraph::read_turtle(&bytes, Some(&base)) {
        Ok(graph) => Some(Rc::new(graph)),
        Err(errors) => {
            let found = errors.iter().map(parse::turtle::syntax_error).collect();
            problems.extend(Diagnostics(found).in_file(&file));
            None
        }
    }
}

fn same(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn bad_input(problems: Diagnostics) -> ExitCode {
    eprintln!("{problems}");
    ExitCode::from(2)
}
