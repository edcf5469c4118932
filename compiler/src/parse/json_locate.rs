//! Line and column for JSON pointers.
use crate::diagnostic::Diagnostics;

pub(crate) fn add_lines(diagnostics: Diagnostics, _text: &str) -> Diagnostics {
    diagnostics
}
