//! The two front ends. Each turns source text into a [`ShapeDocument`] plus diagnostics
//! for what it could not read; neither resolves anything (that is [`crate::check`]).

pub mod json;
mod json_locate;
pub mod turtle;

use std::path::Path;

use crate::diagnostic::Diagnostics;
use crate::shacl::MemoryGraph;
use crate::shape::ShapeDocument;

/// The source language of a DNA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// AD4M's SHACL JSON: one shape, an array of shapes, or a DNA document.
    Json,
    /// Standard SHACL in Turtle.
    Turtle,
}

impl Format {
    /// `.ttl` files are Turtle; everything else is read as SHACL JSON.
    pub fn from_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("ttl") => Format::Turtle,
            _ => Format::Json,
        }
    }
}

/// Parses `text`; `None` when it could not be read at all (a syntax error).
pub fn parse(text: &str, format: Format) -> (Option<ShapeDocument>, Diagnostics) {
    parse_at(text, format, None)
}

/// [`parse`] with relative IRIs (Turtle) resolved against `base`, the file's URL.
pub fn parse_at(text: &str, format: Format, base: Option<&str>) -> (Option<ShapeDocument>, Diagnostics) {
    let (document, diagnostics, _) = parse_with_graph_at(text, format, base);
    (document, diagnostics)
}

/// [`parse_at`], also handing back the graph a Turtle text was read into (`None` for JSON and
/// on a syntax error), for the engine's shapes reader: the text is parsed once.
pub fn parse_with_graph_at(
    text: &str,
    format: Format,
    base: Option<&str>,
) -> (Option<ShapeDocument>, Diagnostics, Option<MemoryGraph>) {
    match format {
        Format::Json => {
            let (document, diagnostics) = json::parse_json(text);
            (document, diagnostics, None)
        }
        Format::Turtle => turtle::parse_turtle_graph(text, base),
    }
}

/// `file://` + the absolute path: the base relative IRIs in a file resolve against.
pub fn file_base(path: &Path) -> Option<String> {
    let absolute = std::fs::canonicalize(path).ok()?;
    Some(format!("file://{}", absolute.display()))
}

/// Adds line and column to diagnostics that carry only a JSON pointer.
pub(crate) fn locate(diagnostics: Diagnostics, text: &str, format: Format) -> Diagnostics {
    match format {
        Format::Json => json_locate::add_lines(diagnostics, text),
        Format::Turtle => diagnostics,
    }
}
