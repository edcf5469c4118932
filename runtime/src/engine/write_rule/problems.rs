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
    let mut entry = Problem::new(property, problem);
    entry.received = result["value"].as_str().map(|v| format!("value {v}"));
    entry.fix = Some(fix(&constraint).to_string());
    entry.constraint = Some(constraint);
    entry.focus_node = Some(focus);
    entry
}

/// What to do about a result of `constraint` (`sh:MinCountConstraintComponent`), in words.
fn fix(constraint: &str) -> &'static str {
    let name = constraint
        .strip_prefix("sh:")
        .and_then(|c| c.strip_suffix("ConstraintComponent"))
        .unwrap_or(constraint);
    match name {
        "Class" => "refer to an instance of the class the shape names",
        "Datatype" => "give a value of the datatype the shape names",
        "NodeKind" => "give an IRI or a literal, as the shape says",
        "MinCount" => "add values until there are enough",
        "MaxCount" => "remove values until there are few enough",
        "MinExclusive" | "MinInclusive" | "MaxExclusive" | "MaxInclusive" => "give a value within the allowed range",
        "MinLength" | "MaxLength" => "give a text of an allowed length",
        "Pattern" => "give a text that matches the pattern",
        "LanguageIn" => "give a text in one of the allowed languages",
        "UniqueLang" => "keep at most one value per language",
        "Equals" => "make both properties hold exactly the same values",
        "Disjoint" => "remove the values the two properties share",
        "LessThan" => "make each value less than every value of the other property",
        "LessThanOrEquals" => "make each value at most every value of the other property",
        "Not" => "change the value so that it no longer matches the shape sh:not forbids",
        "And" => "change the values so that they conform to every shape of the list",
        "Or" => "change the values so that they conform to at least one shape of the list",
        "Xone" => "change the values so that they conform to exactly one shape of the list",
        "Node" => "change the value (or the node it refers to) so that it conforms to the named shape",
        "QualifiedMinCount" => "add values that conform to the qualified shape",
        "QualifiedMaxCount" => "remove values that conform to the qualified shape",
        "Closed" => "remove the properties the shape does not declare",
        "HasValue" => "include the required value",
        "In" => "use one of the allowed values",
        _ => "change the data so that it conforms to the shape",
    }
}
