//! Per-class tools.
use super::ToolSpec;
use crate::model::Class;

pub fn class_tools(_class: &Class) -> Vec<ToolSpec> {
    Vec::new()
}
