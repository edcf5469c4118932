//! What generated code hands the runtime, and the one type it is called back with.
//!
//! A compiled DNA is its embedded sources (the runtime loads the model from them, so the
//! compiled and the interpreted paths share one model, one tool surface and one set of
//! property facts) and, per class, the checks of its constrained properties with the
//! shape's constants compiled in. Everything else a value's check needs (its type, its node
//! kind, the instance a reference names) the runtime does from the model for both paths
//! (`engine::validate`). See `shacl_mcp_compiler::codegen`.

use serde_json::Value;
use shacl_mcp_compiler::problems as words;

/// A DNA compiled by build.rs or `#[shacl_model]`: serve it with the runtime's server.
pub trait CompiledDna: 'static {
    /// The DNA's name.
    const NAME: &'static str;
    /// The sources it was compiled from (the model is loaded from them).
    const SOURCES: &'static [Source];
    /// Every class, in declaration order.
    const CLASSES: &'static [CompiledClass];
}

/// One DNA source file, embedded.
#[derive(Debug)]
pub struct Source {
    pub file: &'static str,
    pub text: &'static str,
    pub turtle: bool,
}

/// The checks of a property the shape constrains no further than its type: none.
pub fn unchecked(_: &mut Item<'_>) {}

/// One compiled class.
pub struct CompiledClass {
    pub name: &'static str,
    /// The compiled checks of one value of each visible property, in property order, run
    /// after its type check held; [`unchecked`] for a property without constraints beyond its
    /// type.
    pub checks: &'static [fn(&mut Item<'_>)],
}

impl std::fmt::Debug for CompiledClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledClass")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// One value being checked: the checks record what they find here (the engine makes each
/// finding a problem of the validation envelope, with the property's words).
pub struct Item<'a> {
    pub value: &'a Value,
    pub(crate) found: Vec<Finding>,
}

/// A broken constraint of one value: its SHACL constraint component and the problem in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub component: &'static str,
    pub text: String,
}

impl<'a> Item<'a> {
    pub(crate) fn new(value: &'a Value) -> Self {
        Item {
            value,
            found: Vec::new(),
        }
    }

    /// Records that the value breaks the SHACL constraint `component`, said as `text`.
    pub fn problem(&mut self, component: &'static str, text: impl Into<String>) {
        self.found.push(Finding {
            component,
            text: text.into(),
        });
    }

    /// The value's text: a string, or a language-tagged string's text (its pattern and lengths
    /// are of the text). Empty for other values, which the type check has refused already.
    pub fn text(&self) -> &'a str {
        let value: &'a Value = self.value;
        value
            .as_str()
            .or_else(|| shacl_mcp_compiler::literal::lang_value(value).map(|(text, _)| text))
            .unwrap_or_default()
    }

    /// The value as a number (0 for other values, which the type check has refused already).
    pub fn number(&self) -> f64 {
        self.value.as_f64().unwrap_or_default()
    }

    /// The value as a boolean (`false` for other values, which the type check has refused).
    pub fn flag(&self) -> bool {
        self.value.as_bool().unwrap_or_default()
    }

    /// sh:minLength (generated checks).
    pub fn min_length(&mut self, min: u64) {
        self.length_within(Some(min), None);
    }

    /// sh:maxLength (generated checks).
    pub fn max_length(&mut self, max: u64) {
        self.length_within(None, Some(max));
    }

    /// Records the length problems of the text, with the shape's bounds.
    pub fn length_within(&mut self, min: Option<u64>, max: Option<u64>) {
        let length = self.text().chars().count() as u64;
        if let Some(min) = min
            && length < min
        {
            self.problem(words::component::MIN_LENGTH, words::too_short(min));
        }
        if let Some(max) = max
            && length > max
        {
            self.problem(words::component::MAX_LENGTH, words::too_long(max));
        }
    }

    /// Records `out of range` for the bounds that do not hold: `(op, bound as text, holds)`.
    /// sh:in of strings (generated checks): the text is one of `allowed`, or the shape's
    /// refusal, worded from them when it is needed.
    pub fn in_texts(&mut self, allowed: &[&str]) {
        if !allowed.contains(&self.text()) {
            let values: Vec<Value> = allowed.iter().map(|v| Value::from(*v)).collect();
            self.problem(words::component::IN, words::in_text(&values));
        }
    }

    pub fn out_of_range(&mut self, bounds: &[(&str, &str, bool)]) {
        let broken: Vec<(&str, &str)> = bounds.iter().filter(|b| !b.2).map(|b| (b.0, b.1)).collect();
        if let Some((op, _)) = broken.first() {
            self.problem(words::bound_component(op), words::range_text(broken));
        }
    }
}
