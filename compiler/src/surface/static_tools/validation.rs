//! validate_perspective: a SHACL validation report over a whole perspective.

use serde_json::{Value, json};

use super::fragments::{array_of, closed_object, count, described, perspective_id, string, tool, typed};
use crate::surface::{ToolAnnotations, ToolSpec};

pub(super) fn validate_perspective() -> ToolSpec {
    tool(
        "validate_perspective",
        "Validate perspective",
        ToolAnnotations::READ,
        concat!(
            "Validate everything in a perspective against its classes' SHACL shapes (the fixed DNA and the ",
            "models added with add_model), links written with add_link included, and return the standard ",
            "validation report: conforms, and one result per problem with the focus node (an instance), ",
            "the path (predicate), the value as the link holds it, the constraint component, severity, ",
            "message and source shape. class_name limits it to that class's instances. Reads only.\n",
            r#"Example: validate_perspective({"perspective_id": "<P>", "class_name": "Task"}) → "#,
            r#"{"conforms": false, "result_count": 1, "results": [{"focus_node": "<T>", "path": "todo://priority", "#,
            r#""value": "literal:number:9", "constraint": "sh:MaxInclusiveConstraintComponent", "#,
            r#""severity": "sh:Violation", "message": "out of range: must be <= 5", "#,
            r#""shape": "todo://TaskShape#priority"}]}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "class_name": string(
                    "Only this class's instances (a name describe_perspective lists); every class when absent.",
                ),
            }),
            &["perspective_id"],
        ),
        closed_object(
            json!({
                "conforms": described("true when there is no result at all.", typed("boolean")),
                "result_count": count(),
                "results": array_of(result()),
            }),
            &["conforms", "result_count", "results"],
        ),
    )
}

/// One validation result.
fn result() -> Value {
    closed_object(
        json!({
            "focus_node": described("The node validated: an instance id.", typed("string")),
            "path": described("The property path (a predicate IRI), or null.", nullable_string()),
            "value": described(
                "The offending value as the link holds it (an IRI or literal:…), or null.",
                nullable_string(),
            ),
            "constraint": described("The SHACL constraint component, e.g. sh:MinCountConstraintComponent.", typed("string")),
            "severity": described("sh:Violation, sh:Warning or sh:Info.", typed("string")),
            "message": typed("string"),
            "shape": described("The shape the result comes from.", typed("string")),
        }),
        &[
            "focus_node",
            "path",
            "value",
            "constraint",
            "severity",
            "message",
            "shape",
        ],
    )
}

fn nullable_string() -> Value {
    json!({ "type": ["string", "null"] })
}
