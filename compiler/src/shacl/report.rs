//! The validation report in three forms: the standard report graph in Turtle, JSON
//! (`{ conforms, result_count, results: [..] }`, the `validate_perspective` result), and text
//! that reads like a compiler's errors.

use serde_json::{Value, json};

use super::graph::Graph;
use super::path::Path;
use super::term::{Term, write_iri};
use super::validator::{Report, ValidationResult};
use super::vocab::{SH, compact};

impl ValidationResult {
    /// The first message's text.
    pub fn message(&self) -> &str {
        self.messages.iter().find_map(Term::text).unwrap_or_default()
    }

    /// `error` for `sh:Violation`, `warning`, `info`, or the local name of another severity.
    pub fn severity_word(&self) -> String {
        match self.severity.as_iri().and_then(|s| s.strip_prefix(SH)) {
            Some("Violation") => "error".to_string(),
            Some("Warning") => "warning".to_string(),
            Some("Info") => "info".to_string(),
            _ => {
                let iri = self.severity.text().unwrap_or_default();
                crate::model::local_name(iri).to_ascii_lowercase()
            }
        }
    }
}

/// A path for people: the predicate as the graph shows terms, else SPARQL path syntax.
fn path_text(path: &Path, graph: &dyn Graph) -> String {
    match path {
        Path::Predicate(p) => graph.show(p),
        other => other.to_string(),
    }
}

impl Report {
    /// `{ conforms, result_count, results: [{ focus_node, path, value, constraint, severity,
    /// message, shape }] }`, terms written as `graph` shows them.
    pub fn to_json(&self, graph: &dyn Graph) -> Value {
        let results: Vec<Value> = self
            .results
            .iter()
            .map(|r| {
                json!({
                    "focus_node": graph.show(&r.focus),
                    "path": r.path.as_ref().map(|p| path_text(p, graph)),
                    "value": r.value.as_ref().map(|v| graph.show(v)),
                    "constraint": r.component.short(),
                    "severity": compact(r.severity.text().unwrap_or_default()),
                    "message": r.message(),
                    "shape": graph.show(&r.source_shape),
                })
            })
            .collect();
        json!({
            "conforms": self.conforms(),
            "result_count": self.results.len(),
            "results": results,
        })
    }

    /// The standard validation report graph (`sh:ValidationReport`) in Turtle.
    pub fn to_turtle(&self) -> String {
        let mut out = String::from(
            "@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n\n",
        );
        out.push_str("[] a sh:ValidationReport ;\n");
        out.push_str(&format!("\tsh:conforms {}", self.conforms()));
        for (i, r) in self.results.iter().enumerate() {
            out.push_str(if i == 0 { " ;\n\tsh:result [\n" } else { " , [\n" });
            out.push_str("\t\ta sh:ValidationResult ;\n");
            out.push_str(&format!("\t\tsh:focusNode {} ;\n", r.focus));
            if let Some(path) = &r.path {
                out.push_str(&format!("\t\tsh:resultPath {} ;\n", path.turtle()));
            }
            if let Some(value) = &r.value {
                out.push_str(&format!("\t\tsh:value {value} ;\n"));
            }
            out.push_str(&format!("\t\tsh:resultSeverity {} ;\n", turtle_iri(&r.severity)));
            out.push_str(&format!(
                "\t\tsh:sourceConstraintComponent sh:{}ConstraintComponent ;\n",
                r.component.name()
            ));
            out.push_str(&format!("\t\tsh:sourceShape {}", r.source_shape));
            for m in &r.messages {
                out.push_str(&format!(" ;\n\t\tsh:resultMessage {m}"));
            }
            out.push_str("\n\t]");
        }
        out.push_str(" .\n");
        out
    }

    /// One block per result, like a compiler's errors (`source` names the data; IRIs are
    /// written with `prefixes` where one fits), then a summary line.
    pub fn to_text(&self, source: &str, prefixes: &[(String, String)]) -> String {
        let term = |t: &Term| prefixed(t, prefixes);
        let mut out = String::new();
        for r in &self.results {
            let message = prefixed_text(r.message(), prefixes);
            out.push_str(&format!("{}[{}]: {message}\n", r.severity_word(), r.component.short()));
            out.push_str(&format!("  --> {source}: {}", term(&r.focus)));
            if let Some(path) = &r.path {
                out.push_str(&format!(" {}", path.sparql(&term)));
            }
            out.push('\n');
            if let Some(value) = &r.value {
                out.push_str(&format!("   = value: {}\n", term(value)));
            }
            let inline = if r.source_shape.is_blank() {
                " (an inline shape)"
            } else {
                ""
            };
            out.push_str(&format!("   = shape: {}{inline}\n\n", term(&r.source_shape)));
        }
        out.push_str(&self.summary());
        out.push('\n');
        out
    }

    /// `conforms`, or `does not conform: 2 errors, 1 warning`.
    pub fn summary(&self) -> String {
        if self.conforms() {
            return "conforms: no validation results".to_string();
        }
        let mut words: Vec<(String, usize)> = Vec::new();
        for r in &self.results {
            let w = r.severity_word();
            match words.iter_mut().find(|(x, _)| *x == w) {
                Some((_, n)) => *n += 1,
                None => words.push((w, 1)),
            }
        }
        let parts: Vec<String> = words
            .iter()
            .map(|(w, n)| format!("{n} {w}{}", if *n == 1 { "" } else { "s" }))
            .collect();
        format!("does not conform: {}", parts.join(", "))
    }
}

/// `ex:Alice` for an IRI in a declared namespace (with a local name Turtle can write as is),
/// `xsd:` datatypes for literals, the Turtle form otherwise.
pub fn prefixed(term: &Term, prefixes: &[(String, String)]) -> String {
    let Some(iri) = term.as_iri() else {
        return term.to_string();
    };
    prefixes
        .iter()
        .filter(|(_, ns)| !ns.is_empty())
        .find_map(|(p, ns)| {
            let local = iri.strip_prefix(ns.as_str())?;
            let simple = local.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-') && !local.starts_with('-');
            simple.then(|| format!("{p}:{local}"))
        })
        .unwrap_or_else(|| term.to_string())
}

/// `text` with every `<iri>` in it written as [`prefixed`] writes it.
fn prefixed_text(text: &str, prefixes: &[(String, String)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest[open..].find('>').map(|c| open + c) else {
            break;
        };
        let iri = &rest[open + 1..close];
        out.push_str(&rest[..open]);
        if iri.contains(char::is_whitespace) {
            out.push_str(&rest[open..=close]);
        } else {
            out.push_str(&prefixed(&Term::iri(iri), prefixes));
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// `sh:Violation` for a SHACL IRI, `<iri>` otherwise.
fn turtle_iri(term: &Term) -> String {
    match term.as_iri() {
        Some(iri) => match iri.strip_prefix(SH) {
            Some(local) if !local.is_empty() && local.chars().all(|c| c.is_ascii_alphanumeric()) => {
                format!("sh:{local}")
            }
            _ => {
                let mut s = String::new();
                let _ = write_iri(&mut s, iri);
                s
            }
        },
        None => term.to_string(),
    }
}
