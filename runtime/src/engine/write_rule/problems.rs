//! A SHACL result that a write would add, as one entry of the validation envelope
//! (docs/errors.md, Problems the engine finds): the property, what is wrong (on which node,
//! when not the written one), the constraint component and the fix in words.

use std::sync::Arc;

use serde_json::Value;
use shacl_mcp_compiler::model::Class;

use crate::engine::error::Problem;

/// The envelope entry of one validation result (as `validate_perspective` writes it).
pub(super) fn from_result(result: &Value, written: &str, classes: &[Arc<Class>]) -> Problem {
    let text = |key: &str| result[key].as_str().unwrap_or_default().to_string();
    let path = text("path");
    let focus = text("focus_node");
    let property = if path.is_empty() {
        "(instance)".to_string()
    } else {
        classes
            .iter()
            .flat_map(|c| c.visible_properties())
            .find(|p| p.path == path)
            .map_or(path, |p| p.name.clone())
    };
    let mut problem = if focus == written {
        text("message")
    } else {
        format!("{} (on {focus}, which this write affects)", text("message"))
    };
    if problem.is_empty() {
        problem = "breaks the shape".to_string();
    }
    let constraint = text("constraint");
    let mut entry = Problem::new(property, problem).breaks(&constraint);
    entry.received = result["value"].as_str().map(|v| format!("value {v}"));
    entry.focus_node = Some(focus);
    entry
}
