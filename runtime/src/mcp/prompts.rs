//! MCP prompts: a few starting points an agent (or the person driving it) can pick from a
//! client's menu. Each is a user message naming the tools to call, in order, with the
//! arguments filled in; none reads data itself, so a prompt never shows what its caller may not
//! see.

use rmcp::model::{ErrorData, GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage, Role};
use serde_json::{Map, Value, json};

/// A prompt: its name, what it is for, its arguments (name, description, required) and the
/// text, in which `{argument}` stands for the argument's value.
struct Template {
    name: &'static str,
    description: &'static str,
    arguments: &'static [(&'static str, &'static str, bool)],
    text: &'static str,
}

const PROMPTS: &[Template] = &[
    Template {
        name: "explore_perspective",
        description: "Learn what a perspective holds: its classes, their properties and a few instances of each.",
        arguments: &[(
            "perspective_id",
            "The perspective to explore (list_perspectives gives the ids).",
            true,
        )],
        text: "Explore the perspective {perspective_id}. First call describe_perspective with perspective_id \
               \"{perspective_id}\" to learn its classes, their properties, types and constraints. Then, for each \
               class, call instance_query with that class_name and limit 5 to see a few instances. Finish with a \
               short summary: each class, what it is for, how many instances it has (total_count), and how the \
               classes refer to one another.",
    },
    Template {
        name: "model_a_class",
        description: "Write a new class as a SHACL shape and add it to a perspective with add_model.",
        arguments: &[
            ("perspective_id", "The perspective that gets the class.", true),
            ("description", "What the class should describe, in plain words.", true),
        ],
        text: "Add a class to the perspective {perspective_id} for this: {description}\n\n\
               1. Call describe_perspective (perspective_id \"{perspective_id}\") to see the classes already there; \
               reuse their naming style and refer to them where a property points at another class.\n\
               2. Write the class as one SHACL JSON class shape: `target_class` (an IRI such as \"app://Book\"; its \
               last segment is the class name), and `properties`, each with `path` (an IRI), `name`, `datatype` \
               (xsd:string, xsd:integer, xsd:decimal, xsd:boolean, xsd:dateTime, xsd:date, …) or `class` for a \
               reference, `min_count`/`max_count` (max_count 1 for a single value, none for a collection), and \
               constraints (`in`, `pattern`, `min_length`, `max_length`, `min_inclusive`, `max_inclusive`) where \
               they help.\n\
               3. Call add_model with perspective_id \"{perspective_id}\", the class_name and the shape as \
               shacl_json. If it is refused, read every problem in the answer, fix them all and call again.\n\
               4. Call describe_perspective again to confirm the class and its tools.",
    },
    Template {
        name: "check_conformance",
        description: "Validate a perspective against its shapes and repair what does not conform.",
        arguments: &[("perspective_id", "The perspective to check.", true)],
        text: "Check the perspective {perspective_id} against its SHACL shapes. Call validate_perspective with \
               perspective_id \"{perspective_id}\". If it conforms, say so. Otherwise group the results by focus \
               node, and for each one explain in a sentence what is wrong (the constraint and the value) and which \
               tool call would repair it (instance_update, the per-class setters, or instance_remove). Ask before \
               changing anything.",
    },
    Template {
        name: "summarise_changes",
        description: "Summarise what changed in a perspective since a cursor of changes_since.",
        arguments: &[
            ("perspective_id", "The perspective whose changes to summarise.", true),
            (
                "cursor",
                "Where to start: a cursor changes_since answered earlier (call it without one for the current end).",
                true,
            ),
        ],
        text: "Summarise what changed in the perspective {perspective_id} since the cursor {cursor}. Call \
               changes_since with perspective_id \"{perspective_id}\" and cursor \"{cursor}\"; while its answer says \
               has_more, call it again with the cursor it answered. Each entry is one instance: its base_uri, \
               class_names, kind (created, updated or removed), when and by whom. For created and updated ones, \
               call instance_get with the class_name and base_uri to see what they hold now. Then summarise by \
               class: what was created, what changed, what was removed, and who did it. End with the last cursor, \
               so that the next summary starts there.",
    },
];

/// `prompts/list`.
pub fn list() -> ListPromptsResult {
    ListPromptsResult::with_all_items(PROMPTS.iter().map(prompt).collect())
}

/// `prompts/get`: the prompt's message with the arguments filled in; an unknown prompt or a
/// missing required argument is -32602 (invalid params), naming what is wrong.
pub fn get(name: &str, arguments: Option<&Map<String, Value>>) -> Result<GetPromptResult, ErrorData> {
    let Some(template) = PROMPTS.iter().find(|t| t.name == name) else {
        let names: Vec<&str> = PROMPTS.iter().map(|t| t.name).collect();
        return Err(ErrorData::invalid_params(
            format!("unknown prompt '{name}'"),
            Some(json!({ "prompt": name, "prompts": names })),
        ));
    };
    let empty = Map::new();
    let arguments = arguments.unwrap_or(&empty);
    let missing: Vec<&str> = template
        .arguments
        .iter()
        .filter(|(arg, _, required)| *required && arguments.get(*arg).and_then(Value::as_str).is_none_or(str::is_empty))
        .map(|(arg, _, _)| *arg)
        .collect();
    if !missing.is_empty() {
        return Err(ErrorData::invalid_params(
            format!("prompt '{name}' needs: {}", missing.join(", ")),
            Some(json!({ "prompt": name, "missing": missing })),
        ));
    }
    let mut text = template.text.to_string();
    for (arg, _, _) in template.arguments {
        let value = arguments.get(*arg).and_then(Value::as_str).unwrap_or_default();
        text = text.replace(&format!("{{{arg}}}"), value);
    }
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).with_description(template.description))
}

/// The argument names of the prompt `name` (`None`: no such prompt).
pub fn argument_names(name: &str) -> Option<Vec<&'static str>> {
    let template = PROMPTS.iter().find(|t| t.name == name)?;
    Some(template.arguments.iter().map(|(arg, _, _)| *arg).collect())
}

fn prompt(template: &Template) -> Prompt {
    let arguments = template
        .arguments
        .iter()
        .map(|(name, description, required)| {
            PromptArgument::new(*name)
                .with_description(*description)
                .with_required(*required)
        })
        .collect();
    Prompt::new(template.name, Some(template.description), Some(arguments))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tool a prompt names is a static tool of the server, so a prompt never sends an
    /// agent to a tool that does not exist.
    #[test]
    fn prompts_name_only_real_tools() {
        let options = shacl_mcp_compiler::surface::SurfaceOptions::default();
        let tools: Vec<String> = shacl_mcp_compiler::surface::static_tools(options)
            .iter()
            .map(|t| t.name.clone())
            .collect();
        for template in PROMPTS {
            for word in template.text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                let looks_like_a_tool = word.contains('_') && word.chars().all(|c| c.is_ascii_lowercase() || c == '_');
                let is_an_argument = template.arguments.iter().any(|(a, _, _)| *a == word)
                    || [
                        "class_name",
                        "shacl_json",
                        "target_class",
                        "total_count",
                        "class_names",
                        "has_more",
                        "base_uri",
                    ]
                    .contains(&word)
                    || word.starts_with("min_")
                    || word.starts_with("max_");
                if looks_like_a_tool && !is_an_argument {
                    assert!(tools.iter().any(|t| t == word), "{}: no tool {word}", template.name);
                }
            }
        }
    }

    #[test]
    fn arguments_are_filled_in_and_missing_ones_named() {
        let args = json!({ "perspective_id": "p-1" });
        let result = get("explore_perspective", args.as_object()).unwrap();
        let text = serde_json::to_value(&result.messages[0]).unwrap()["content"]["text"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(text.contains("perspective_id \"p-1\"") && !text.contains('{'), "{text}");

        let error = get("model_a_class", args.as_object()).unwrap_err();
        assert!(error.message.contains("description"), "{}", error.message);
        assert!(get("nothing", None).unwrap_err().message.contains("unknown prompt"));
    }
}
