//! From shapes to the model.
use crate::diagnostic::Diagnostics;
use crate::model::Dna;
use crate::shape::ShapeDocument;

pub fn check(_document: &ShapeDocument, _fallback_name: &str) -> (Option<Dna>, Diagnostics) {
    (None, Diagnostics::default())
}
