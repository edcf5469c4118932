//! Turtle text into a [`MemoryGraph`]: the one Turtle loader of the compiler, for the
//! validator's shapes and data graphs and for the DNA front end. The parser is fed one line at
//! a time, so that each triple comes out with the line it was read on (oxttl gives positions
//! only for syntax errors): the DNA front end's diagnostics name those lines.

use std::sync::Arc;

use oxttl::TurtleParser;

use super::graph::{GraphBuilder, MemoryGraph};
use super::term::Term;

/// A Turtle syntax error, 1-based.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub line: u32,
    pub column: u32,
}

/// At most this many syntax errors are reported for one data or shapes graph.
const MAX_SYNTAX_ERRORS: usize = 20;

impl MemoryGraph {
    /// Reads a Turtle document; relative IRIs resolve against `base` (e.g. the file's URL).
    /// `Err`: the first syntax errors (at most 20).
    pub fn read_turtle(text: &[u8], base: Option<&str>) -> Result<MemoryGraph, Vec<SyntaxError>> {
        read(text, base, MAX_SYNTAX_ERRORS)
    }

    /// [`MemoryGraph::read_turtle`] reporting every syntax error: a DNA's author fixes them all.
    pub fn read_turtle_every_error(text: &[u8], base: Option<&str>) -> Result<MemoryGraph, Vec<SyntaxError>> {
        read(text, base, usize::MAX)
    }
}

fn read(text: &[u8], base: Option<&str>, max_errors: usize) -> Result<MemoryGraph, Vec<SyntaxError>> {
    let mut parser = TurtleParser::new();
    if let Some(base) = base
        && let Ok(with_base) = parser.clone().with_base_iri(base)
    {
        parser = with_base;
    }
    let mut parser = parser.low_level();
    let mut builder = GraphBuilder::new();
    let mut errors = Vec::new();
    let mut chunks = text.split_inclusive(|&b| b == b'\n');
    let mut line: u32 = 0;
    let mut ended = false;
    loop {
        while let Some(result) = parser.parse_next() {
            match result {
                Ok(t) => builder.add_read(
                    Term::from_subject(t.subject),
                    Term::Iri(Arc::from(t.predicate.into_string())),
                    Term::from_oxrdf(t.object),
                    line.max(1),
                ),
                Err(e) => {
                    errors.push(syntax_error(&e));
                    if errors.len() >= max_errors {
                        return Err(errors);
                    }
                }
            }
        }
        if ended || parser.is_end() {
            break;
        }
        match chunks.next() {
            Some(chunk) => {
                line = line.saturating_add(1);
                parser.extend_from_slice(chunk);
            }
            None => {
                parser.end();
                ended = true;
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut graph = builder.build();
    graph.prefixes = parser
        .prefixes()
        .map(|(p, ns)| (p.to_string(), ns.to_string()))
        .collect();
    Ok(graph)
}

fn syntax_error(e: &oxttl::TurtleSyntaxError) -> SyntaxError {
    let at = e.location().start;
    SyntaxError {
        message: e.message().to_string(),
        line: u32::try_from(at.line.saturating_add(1)).unwrap_or(u32::MAX),
        column: u32::try_from(at.column.saturating_add(1)).unwrap_or(u32::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_have_positions() {
        let errors = MemoryGraph::read_turtle(b"@prefix ex: <http://ex/> .\nex:a ex:p .\n", None)
            .err()
            .unwrap();
        assert_eq!(errors[0].line, 2, "{errors:?}");
        assert!(errors[0].column > 1, "{errors:?}");
    }

    #[test]
    fn triples_keep_the_order_and_line_they_were_read_in() {
        let text = "@prefix ex: <http://ex/> .\nex:b ex:p ex:z .\nex:a ex:p ex:y ,\n  ex:x .\nex:b ex:p ex:z .\n";
        let graph = MemoryGraph::read_turtle(text.as_bytes(), None).unwrap();
        let read: Vec<(String, u32)> = graph
            .triples_as_read()
            .map(|((_, _, o), line)| (o.to_string(), line))
            .collect();
        let expected = [("<http://ex/z>", 2), ("<http://ex/y>", 3), ("<http://ex/x>", 4)];
        assert_eq!(read, expected.map(|(o, l)| (o.to_string(), l)));
    }
}
