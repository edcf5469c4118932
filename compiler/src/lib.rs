//! The shacl-mcp compiler: SHACL shapes in, one model out, with every diagnostic at once.
//!
//! ```text
//! SHACL JSON ─┐                          ┌─► surface ─► ToolSpec (tools/list)
//!             ├─► parse ─► ShapeDocument ─► check ─► Dna (model)
//! Turtle ─────┘                          └─► codegen (feature `codegen`)
//! ```
//!
//! [`load`] does the whole front end for a file; [`parse`] and [`check`] are the two halves.

#[cfg(feature = "codegen")]
mod builder;
pub mod check;
#[cfg(feature = "codegen")]
pub mod codegen;
pub mod coverage;
pub mod describe;
pub mod diagnostic;
pub mod literal;
pub mod model;
pub mod naming;
pub mod parse;
pub mod problems;
pub mod shacl;
pub mod shape;
pub mod surface;

#[cfg(feature = "codegen")]
pub use builder::{BuildError, Builder};
pub use diagnostic::{Diagnostic, Diagnostics, Severity};
pub use model::Dna;
pub use surface::{SurfaceOptions, ToolSpec};

use std::path::Path;

/// Reads, parses and checks one DNA file (`.ttl` is Turtle, anything else SHACL JSON).
/// Returns the model when there is no error, and every diagnostic (notes too) either way.
pub fn load(path: &Path) -> (Option<Dna>, Diagnostics) {
    let file = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => load_at(
            &text,
            &file,
            parse::Format::from_path(path),
            parse::file_base(path).as_deref(),
        ),
        Err(e) => {
            let d = Diagnostic::error(
                "unreadable-file",
                shape::Origin::default(),
                format!("cannot read the file: {e}"),
            )
            .help("check the path and its permissions");
            (None, Diagnostics(vec![d]).in_file(&file))
        }
    }
}

/// [`load`] for text in memory; `file` names it in diagnostics and, for bare shapes and
/// arrays, gives the DNA its name (the file stem).
pub fn load_str(text: &str, file: &str, format: parse::Format) -> (Option<Dna>, Diagnostics) {
    load_at(text, file, format, None)
}

/// [`load_str`] with relative IRIs resolved against `base` (the file's URL).
pub fn load_at(text: &str, file: &str, format: parse::Format, base: Option<&str>) -> (Option<Dna>, Diagnostics) {
    let (document, mut diagnostics, graph) = parse::parse_with_graph_at(text, format, base);
    let fallback_name = Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "dna".to_string());
    let dna = document.and_then(|document| {
        let (dna, more) = check::check(&document, &fallback_name);
        diagnostics.extend(more);
        dna
    });
    if let Some(graph) = graph
        && !diagnostics.has_errors()
    {
        // The engine reads the same graph for its shapes: what it cannot read (a property
        // shape with no path that a class's shape reaches, ...) is an error here too, not
        // when the server starts.
        if let Err(errors) = shacl::DnaGraph::from_graphs(&[graph]) {
            for e in errors {
                diagnostics.push(
                    Diagnostic::error("shapes-graph", shape::Origin::default(), e)
                        .help("fix the shape: SHACL calls it ill-formed, so no validator can run it"),
                );
            }
        }
    }
    let mut diagnostics = parse::locate(diagnostics, text, format).in_file(file);
    // Checks run pass by pass; the reader wants them in the order of the file.
    diagnostics
        .0
        .sort_by_key(|d| (d.origin.line.is_none(), d.origin.line, d.origin.column));
    let dna = if diagnostics.has_errors() { None } else { dna };
    (dna, diagnostics)
}
