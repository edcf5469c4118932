//! get_documentation: the pages of `docs/`, embedded in the binary (the runtime package reaches
//! them through its `docs` link to the repository's folder, and `cargo package` copies them in),
//! so an agent can read the manual of the server it talks to, whichever build it is.

use serde_json::{Map, Value, json};
use shacl_mcp_compiler::surface::DOCUMENTATION_TOPICS;

use crate::engine::{Problem, ToolError};

/// The index, whose `- [page.md](page.md): summary` lines give each topic its summary.
const INDEX: &str = include_str!("../../docs/README.md");

/// Each topic's page.
const PAGES: &[(&str, &str)] = &[
    ("design", include_str!("../../docs/design.md")),
    ("dna-format", include_str!("../../docs/dna-format.md")),
    ("data-model", include_str!("../../docs/data-model.md")),
    ("tools", include_str!("../../docs/tools.md")),
    ("errors", include_str!("../../docs/errors.md")),
    ("flows", include_str!("../../docs/flows.md")),
    ("sparql", include_str!("../../docs/sparql.md")),
];

/// The answer to `get_documentation(arguments)` (already checked against the input schema).
pub fn answer(arguments: &Map<String, Value>) -> Result<Value, ToolError> {
    let Some(topic) = arguments.get("topic").and_then(Value::as_str) else {
        return Ok(json!({ "topics": PAGES.iter().map(|(topic, page)| listing(topic, page)).collect::<Vec<_>>() }));
    };
    let page = PAGES
        .iter()
        .find(|(name, _)| *name == topic)
        .map(|(_, page)| *page)
        .ok_or_else(|| {
            invalid(
                "topic",
                format!("no topic '{topic}': one of {}", DOCUMENTATION_TOPICS.join(", ")),
            )
        })?;
    let sections = headings(page);
    let text = match arguments.get("section").and_then(Value::as_str) {
        None => page.to_string(),
        Some(wanted) => section(page, wanted).ok_or_else(|| {
            invalid(
                "section",
                format!("no section '{wanted}' in {topic}: one of {}", sections.join(", ")),
            )
        })?,
    };
    Ok(json!({ "topic": topic, "title": title(page), "text": text, "sections": sections }))
}

fn listing(topic: &str, page: &str) -> Value {
    let link = format!("- [{topic}.md]({topic}.md): ");
    let summary = INDEX
        .lines()
        .find_map(|line| line.strip_prefix(&link))
        .unwrap_or_default();
    json!({ "topic": topic, "title": title(page), "summary": summary })
}

/// The page's `# ` heading.
fn title(page: &str) -> &str {
    page.lines()
        .find_map(|l| l.strip_prefix("# "))
        .unwrap_or_default()
        .trim()
}

/// The level (number of `#`) and text of a Markdown heading line below the title; fenced code
/// is not looked into by the callers, whose pages keep `#` lines out of code blocks.
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    let text = line.get(level..)?.strip_prefix(' ')?;
    (level >= 2).then_some((level, text.trim()))
}

fn headings(page: &str) -> Vec<&str> {
    outside_code(page).filter_map(heading).map(|(_, text)| text).collect()
}

/// From the heading `wanted` (case does not matter) to the next heading of the same or a
/// higher level.
fn section(page: &str, wanted: &str) -> Option<String> {
    let mut lines = outside_code_marked(page);
    let (level, first) = lines.find_map(|(line, in_code)| {
        let (level, text) = heading(line).filter(|_| !in_code)?;
        text.eq_ignore_ascii_case(wanted.trim()).then_some((level, line))
    })?;
    let mut out = vec![first];
    for (line, in_code) in lines {
        if !in_code && heading(line).is_some_and(|(l, _)| l <= level) {
            break;
        }
        out.push(line);
    }
    Some(out.join("\n").trim_end().to_string())
}

/// Lines not inside a fenced code block.
fn outside_code(page: &str) -> impl Iterator<Item = &str> {
    outside_code_marked(page)
        .filter(|(_, in_code)| !in_code)
        .map(|(line, _)| line)
}

/// Every line, with whether it is inside a fenced code block (the fences count as inside).
fn outside_code_marked(page: &str) -> impl Iterator<Item = (&str, bool)> {
    let mut in_code = false;
    page.lines().map(move |line| {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            return (line, true);
        }
        (line, in_code)
    })
}

fn invalid(key: &str, text: String) -> ToolError {
    ToolError::invalid_arguments("get_documentation", vec![Problem::new(key, text)])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tool's schema and the embedded pages name the same topics, and every page has a
    /// title and a summary in the index.
    #[test]
    fn every_topic_has_a_page_a_title_and_a_summary() {
        let embedded: Vec<&str> = PAGES.iter().map(|(t, _)| *t).collect();
        assert_eq!(embedded, DOCUMENTATION_TOPICS);
        let listed = answer(&Map::new()).unwrap();
        for topic in listed["topics"].as_array().unwrap() {
            assert!(!topic["title"].as_str().unwrap().is_empty(), "{topic}");
            assert!(!topic["summary"].as_str().unwrap().is_empty(), "{topic}");
        }
    }

    #[test]
    fn a_section_runs_to_the_next_heading_of_its_level() {
        let args = json!({ "topic": "errors", "section": "the validation envelope" });
        let found = answer(args.as_object().unwrap()).unwrap();
        let text = found["text"].as_str().unwrap();
        assert!(text.starts_with("## The validation envelope"), "{text}");
        assert!(!text[3..].contains("\n## "), "stops before the next section: {text}");
        let sections = found["sections"].as_array().unwrap();
        assert!(sections.contains(&json!("The validation envelope")));

        let page = "# T\n\n## A\na\n```\n## not a heading\n```\n### A1\nx\n## B\nb\n";
        assert_eq!(
            section(page, "A").unwrap(),
            "## A\na\n```\n## not a heading\n```\n### A1\nx"
        );
        assert_eq!(headings(page), ["A", "A1", "B"]);
    }

    #[test]
    fn unknown_topics_and_sections_name_the_choices() {
        let error = |args: Value| match answer(args.as_object().unwrap()) {
            Err(e) => e.to_json().unwrap().to_string(),
            Ok(v) => panic!("answered {v}"),
        };
        assert!(error(json!({ "topic": "nope" })).contains("design, dna-format"));
        assert!(error(json!({ "topic": "nope" })).contains("sparql"));
        assert!(error(json!({ "topic": "tools", "section": "nope" })).contains("Per-class tools"));
    }
}
