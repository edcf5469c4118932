//! get_documentation: the repository's own docs, served to an agent that wants the manual.

use serde_json::json;

use super::fragments::{array_of, closed_object, described, string, tool, typed};
use crate::surface::{ToolAnnotations, ToolSpec};

/// The topics, in the order they are listed: each one page of `docs/` (the runtime embeds the
/// pages and checks in a test that it has one for every topic).
pub const DOCUMENTATION_TOPICS: &[&str] = &[
    "design",
    "dna-format",
    "data-model",
    "tools",
    "errors",
    "flows",
    "sparql",
];

pub(super) fn get_documentation() -> ToolSpec {
    tool(
        "get_documentation",
        "Read the documentation",
        ToolAnnotations::READ,
        concat!(
            "Read this server's manual. Without topic: the topics, each with its title and what it covers. With ",
            "topic: that page as Markdown, and the headings of its sections; with section too (one of those ",
            "headings), only that section. Needs no credential. Read tools when unsure what a tool answers, ",
            "data-model for how values are stored and filtered, errors for what a refusal means, dna-format for how ",
            "to write a class for add_model, flows for the flow tools, sparql for sparql_query.\n",
            r#"Example: get_documentation({"topic": "errors", "section": "The validation envelope"}) → "#,
            r#"{"topic": "errors", "title": "Errors", "text": "(the section, Markdown)", "sections": ["…"]}"#,
        ),
        closed_object(
            json!({
                "topic": {
                    "type": "string",
                    "enum": DOCUMENTATION_TOPICS,
                    "description": "The page to read; absent: list the topics.",
                },
                "section": string("A heading of the page (as `sections` lists them): only that section."),
            }),
            &[],
        ),
        closed_object(
            json!({
                "topics": array_of(closed_object(
                    json!({
                        "topic": typed("string"),
                        "title": typed("string"),
                        "summary": described("What the page covers.", typed("string")),
                    }),
                    &["topic", "title", "summary"],
                )),
                "topic": typed("string"),
                "title": typed("string"),
                "text": described("The page (or the section) as Markdown.", typed("string")),
                "sections": described("The headings of the page's sections.", array_of(typed("string"))),
            }),
            &[],
        ),
    )
}
