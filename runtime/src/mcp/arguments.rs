//! Step 7 of docs/errors.md: a tool's fixed arguments against its inputSchema, every problem at
//! once, in the words of the validation envelope.

use serde_json::Value;

use super::table::TableTool;
use crate::engine::Problem;

/// The problems of `arguments` against the tool's schema, ordered by the schema's argument
/// order (unknown arguments last).
pub fn check(tool: &TableTool, arguments: &Value) -> Vec<Problem> {
    // Valid arguments (the usual case) without building an error iterator.
    if tool.arguments.is_valid(arguments) {
        return Vec::new();
    }
    let mut problems: Vec<(usize, Problem)> = tool
        .arguments
        .iter_errors(arguments)
        .flat_map(|error| {
            let path = error.instance_path().to_string();
            let value = error.instance().clone().into_owned();
            texts(error.kind(), &path, &value)
                .into_iter()
                .map(|(name, text, received)| {
                    let top = name.split(['[', '.']).next().unwrap_or_default().to_string();
                    let rank = tool.argument_order.iter().position(|a| *a == top).unwrap_or(usize::MAX);
                    let mut p = Problem::new(name, text);
                    if let Some(r) = received {
                        p = p.received(&r);
                    }
                    (rank, p)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    problems.sort_by_key(|(rank, _)| *rank);
    problems.into_iter().map(|(_, p)| p).collect()
}

/// `/commands/0/action` → `commands[0].action`
fn display_path(pointer: &str) -> String {
    let mut out = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if segment.chars().all(|c| c.is_ascii_digit()) && !segment.is_empty() {
            out.push_str(&format!("[{segment}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&segment);
        }
    }
    out
}

type Text = (String, String, Option<Value>);

fn texts(kind: &jsonschema::error::ValidationErrorKind, path: &str, value: &Value) -> Vec<Text> {
    use jsonschema::error::ValidationErrorKind as K;
    let here = display_path(path);
    let at = |name: &str| {
        if here.is_empty() {
            name.to_string()
        } else {
            format!("{here}.{name}")
        }
    };
    match kind {
        K::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            vec![(at(name), "missing required argument".to_string(), None)]
        }
        K::AdditionalProperties { unexpected } => unexpected
            .iter()
            .map(|name| {
                let received = value.get(name).cloned();
                (at(name), "unknown argument".to_string(), received)
            })
            .collect(),
        K::Type { kind } => {
            let expected = format!("{kind:?}").to_lowercase();
            let text = type_text(&expected);
            vec![(here, text, Some(value.clone()))]
        }
        K::Enum { options } => {
            let list: Vec<String> = options
                .as_array()
                .map(|a| a.iter().map(Value::to_string).collect())
                .unwrap_or_default();
            vec![(
                here,
                format!("not one of the allowed values: {}", list.join(", ")),
                Some(value.clone()),
            )]
        }
        K::Minimum { limit } => vec![(here, format!("out of range: must be >= {limit}"), Some(value.clone()))],
        K::Maximum { limit } => vec![(here, format!("out of range: must be <= {limit}"), Some(value.clone()))],
        K::ExclusiveMinimum { limit } => vec![(here, format!("out of range: must be > {limit}"), Some(value.clone()))],
        K::ExclusiveMaximum { limit } => vec![(here, format!("out of range: must be < {limit}"), Some(value.clone()))],
        K::MinItems { limit } => vec![(here, format!("too few values: at least {limit}"), Some(value.clone()))],
        K::MaxItems { limit } => vec![(here, format!("too many values: at most {limit}"), Some(value.clone()))],
        K::MinLength { limit } => vec![(
            here,
            format!("too short: at least {limit} characters"),
            Some(value.clone()),
        )],
        K::MaxLength { limit } => vec![(
            here,
            format!("too long: at most {limit} characters"),
            Some(value.clone()),
        )],
        K::Pattern { pattern } => vec![(
            here,
            format!("does not match the pattern {pattern}"),
            Some(value.clone()),
        )],
        K::Constant { expected_value } => vec![(here, format!("must be {expected_value}"), Some(value.clone()))],
        K::Format { format } => vec![(here, format!("expects a {format}"), Some(value.clone()))],
        other => vec![(here, format!("invalid: {other:?}"), Some(value.clone()))],
    }
}

fn type_text(expected: &str) -> String {
    let mut words = Vec::new();
    for t in ["string", "integer", "number", "boolean", "object", "array", "null"] {
        if expected.contains(t) {
            words.push(match t {
                "string" => "a string",
                "integer" => "a whole number",
                "number" => "a number",
                "boolean" => "true or false",
                "object" => "an object",
                "array" => "an array",
                _ => "null",
            });
        }
    }
    if words.contains(&"a whole number") {
        words.retain(|w| *w != "a number");
    }
    if words.is_empty() {
        "has the wrong type".to_string()
    } else {
        format!("expects {}", words.join(" or "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_like_the_envelope() {
        assert_eq!(display_path(""), "");
        assert_eq!(display_path("/limit"), "limit");
        assert_eq!(display_path("/commands/0/action"), "commands[0].action");
        assert_eq!(display_path("/link/a~1b"), "link.a/b");
    }

    #[test]
    fn type_words() {
        assert_eq!(type_text("string"), "expects a string");
        assert_eq!(type_text("integer"), "expects a whole number");
        assert_eq!(type_text("multiple([string, object])"), "expects a string or an object");
    }
}
