//! What generated code calls (`::shacl_mcp::__private`). Not a public API: generated code and
//! this module change together. Everything a generated item needs is here, so a class named
//! `String` or `Option` cannot break it.

use std::sync::OnceLock;

use regex::Regex;
pub use serde;
pub use serde::{Deserialize, Serialize};

use crate::types::ValueError;

/// A pattern of the DNA, compiled on first use (it was checked to compile at build time).
pub struct Pattern {
    source: &'static str,
    regex: OnceLock<Option<Regex>>,
}

impl Pattern {
    pub const fn new(source: &'static str) -> Pattern {
        Pattern {
            source,
            regex: OnceLock::new(),
        }
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.regex
            .get_or_init(|| Regex::new(self.source).ok())
            .as_ref()
            .is_none_or(|r| r.is_match(text))
    }
}

/// The variant of a generated `sh:in` enum spelled `text`, or the shape's refusal.
pub fn choose<T: Copy>(text: &str, all: &[T], spelling: fn(T) -> &'static str, refusal: &str) -> Result<T, ValueError> {
    all.iter()
        .copied()
        .find(|v| spelling(*v) == text)
        .ok_or_else(|| ValueError(vec![refusal.to_string()]))
}
