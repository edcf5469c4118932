//! Diagnostics: every problem in a DNA, with where it is and what would be right.

use std::fmt;

use crate::shape::Origin;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One problem. `code` is a stable kebab-case identifier (`unknown-key`, `reserved-name`, ...)
/// that tests and tools can match on; `message` says what is wrong and `help` what would be right.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    /// The source file as the caller named it (`<input>` for text without a file).
    pub file: String,
    pub origin: Origin,
    pub class: Option<String>,
    pub property: Option<String>,
    pub message: String,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: &'static str, origin: Origin, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            code,
            file: String::new(),
            origin,
            class: None,
            property: None,
            message: message.into(),
            help: None,
        }
    }

    pub fn error(code: &'static str, origin: Origin, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, origin, message)
    }

    pub fn note(code: &'static str, origin: Origin, message: impl Into<String>) -> Self {
        Self::new(Severity::Note, code, origin, message)
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn class(mut self, class: impl Into<String>) -> Self {
        self.class = Some(class.into());
        self
    }

    pub fn property(mut self, property: impl Into<String>) -> Self {
        self.property = Some(property.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `file:line:column`, or `file` alone, then the JSON pointer or the Turtle shape and path.
    pub fn location(&self) -> String {
        let mut at = self.file.clone();
        if let Some(line) = self.origin.line {
            at.push_str(&format!(":{line}"));
            if let Some(column) = self.origin.column {
                at.push_str(&format!(":{column}"));
            }
        }
        let mut within = Vec::new();
        if let Some(pointer) = &self.origin.pointer {
            within.push(if pointer.is_empty() {
                "/".to_string()
            } else {
                pointer.clone()
            });
        }
        if let Some(shape) = &self.origin.shape {
            within.push(format!("shape <{shape}>"));
        }
        if let Some(path) = &self.origin.path {
            within.push(format!("path <{path}>"));
        }
        if !within.is_empty() {
            at.push_str(&format!(" ({})", within.join(", ")));
        }
        at
    }

    /// The diagnostic as a JSON object (`shacl-mcp check --format json`), keys in a fixed order.
    pub fn to_json(&self) -> serde_json::Value {
        let mut o = serde_json::Map::new();
        o.insert("severity".into(), self.severity.as_str().into());
        o.insert("code".into(), self.code.into());
        o.insert("file".into(), self.file.clone().into());
        let opt = |v: &Option<String>| v.clone().map_or(serde_json::Value::Null, Into::into);
        let num = |v: Option<u32>| v.map_or(serde_json::Value::Null, Into::into);
        o.insert("line".into(), num(self.origin.line));
        o.insert("column".into(), num(self.origin.column));
        o.insert("pointer".into(), opt(&self.origin.pointer));
        o.insert("shape".into(), opt(&self.origin.shape));
        o.insert("path".into(), opt(&self.origin.path));
        o.insert("class".into(), opt(&self.class));
        o.insert("property".into(), opt(&self.property));
        o.insert("message".into(), self.message.clone().into());
        o.insert("help".into(), opt(&self.help));
        serde_json::Value::Object(o)
    }
}

/// Rendered like rustc: a headline, the location, then the class, property and help lines.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}[{}]: {}", self.severity.as_str(), self.code, self.message)?;
        write!(f, "  --> {}", self.location())?;
        match (&self.class, &self.property) {
            (Some(c), Some(p)) => write!(f, "\n   = in class `{c}`, property `{p}`")?,
            (Some(c), None) => write!(f, "\n   = in class `{c}`")?,
            _ => {}
        }
        if let Some(help) = &self.help {
            write!(f, "\n   = help: {help}")?;
        }
        Ok(())
    }
}

/// Diagnostics for one run, in the order they were found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    pub fn errors(&self) -> usize {
        self.0.iter().filter(|d| d.is_error()).count()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    /// Sets the file on every diagnostic that has none yet.
    pub fn in_file(mut self, file: &str) -> Self {
        for d in &mut self.0 {
            if d.file.is_empty() {
                d.file = file.to_string();
            }
        }
        self
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}\n")?;
        }
        let count = |severity: Severity| self.0.iter().filter(|d| d.severity == severity).count();
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        write!(f, "{}", plural(count(Severity::Error), "error"))?;
        for (severity, word) in [(Severity::Warning, "warning"), (Severity::Note, "note")] {
            let n = count(severity);
            if n > 0 {
                write!(f, ", {}", plural(n, word))?;
            }
        }
        Ok(())
    }
}
