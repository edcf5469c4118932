//! The reference in `docs/` kept true to the code and to the checkout:
//! - the tool table of `docs/tools.md` is rendered here from the output of
//!   `shacl-mcp tools dna/chat.json --multi-user` (the command itself, so the table is exactly
//!   what a server lists); after a deliberate change to the tool surface, rewrite it with
//!   `UPDATE_DOCS=1 cargo test -p shacl-mcp --test docs`;
//! - the repository stands alone (docs/design.md invariant 8): no file points outside the
//!   checkout, every `docs/<page>.md` a file cites exists, and the sections, steps, rules and
//!   invariants that code cites by name or number are there.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const BEGIN: &str = "<!-- generated:tools:begin -->";
const END: &str = "<!-- generated:tools:end -->";
const UPDATE: &str = "UPDATE_DOCS=1 cargo test -p shacl-mcp --test docs";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("the repository root")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// `shacl-mcp tools dna/chat.json --multi-user`, run from the repository root.
fn chat_tools() -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_shacl-mcp"))
        .args(["tools", "dna/chat.json", "--multi-user"])
        .current_dir(repo())
        .output()
        .expect("shacl-mcp runs");
    assert!(
        out.status.success(),
        "shacl-mcp tools failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("shacl-mcp tools prints JSON")
}

/// The description's first sentence: up to the first `.` that ends a sentence outside
/// parentheses and code spans, on its first line.
fn first_sentence(description: &str) -> String {
    let line = description.lines().next().unwrap_or_default();
    let (mut depth, mut code) = (0i32, false);
    let chars: Vec<char> = line.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        match c {
            '`' => code = !code,
            '(' if !code => depth += 1,
            ')' if !code => depth -= 1,
            '.' if !code && depth <= 0 && chars.get(i + 1).is_none_or(|n| n.is_whitespace()) => {
                return chars[..=i].iter().collect();
            }
            _ => {}
        }
    }
    line.trim_end().to_string()
}

/// A table cell: one line, pipes escaped.
fn cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|")
}

/// One row per tool: name, read-only or writes, parameters (required in bold), first sentence.
fn render_table(list: &Value) -> String {
    let mut table =
        String::from("| tool | access | parameters (required in bold) | what it does |\n|---|---|---|---|\n");
    for tool in list["tools"].as_array().expect("a tools array") {
        let name = tool["name"].as_str().expect("a name");
        let access = if tool["annotations"]["readOnlyHint"] == Value::Bool(true) {
            "read-only"
        } else {
            "writes"
        };
        let schema = &tool["inputSchema"];
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let parameters: Vec<String> = schema["properties"]
            .as_object()
            .map(|p| {
                p.keys()
                    .map(|k| match required.contains(&k.as_str()) {
                        true => format!("**`{k}`**"),
                        false => format!("`{k}`"),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let parameters = if parameters.is_empty() {
            "—".to_string()
        } else {
            parameters.join(", ")
        };
        let description = first_sentence(tool["description"].as_str().unwrap_or_default());
        table.push_str(&format!(
            "| `{name}` | {access} | {parameters} | {} |\n",
            cell(&description)
        ));
    }
    table
}

/// The text between the markers (both included) and its byte range in `page`.
fn generated_block(page: &str) -> std::ops::Range<usize> {
    let start = page
        .find(BEGIN)
        .unwrap_or_else(|| panic!("docs/tools.md has no `{BEGIN}` marker"));
    let end = page[start..]
        .find(END)
        .map(|i| start + i + END.len())
        .unwrap_or_else(|| panic!("docs/tools.md has no `{END}` marker after `{BEGIN}`"));
    start..end
}

#[test]
fn the_tool_table_is_current() {
    let path = repo().join("docs/tools.md");
    let page = read(&path);
    let range = generated_block(&page);
    let wanted = format!("{BEGIN}\n{}{END}", render_table(&chat_tools()));
    if page[range.clone()] == wanted {
        return;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        let mut updated = page.clone();
        updated.replace_range(range, &wanted);
        std::fs::write(&path, updated).expect("docs/tools.md is writable");
        return;
    }
    let have = &page[range];
    let first_difference = have
        .lines()
        .zip(wanted.lines())
        .find(|(a, b)| a != b)
        .map(|(a, b)| format!("\n  in docs/tools.md: {a}\n  generated:        {b}"))
        .unwrap_or_else(|| "\n  (the two differ in length)".to_string());
    panic!(
        "the tool table in docs/tools.md is not the output of `shacl-mcp tools dna/chat.json --multi-user`.\n\
         Run `{UPDATE}` and commit docs/tools.md.{first_difference}"
    );
}

#[test]
fn the_table_renders_parameters_and_first_sentences() {
    assert_eq!(
        first_sentence("Set `a.b` of a C (x. y). More.\nExample"),
        "Set `a.b` of a C (x. y)."
    );
    assert_eq!(first_sentence("No full stop"), "No full stop");
    assert_eq!(cell("a|b\nc"), "a\\|b c");
    let list = serde_json::json!({ "tools": [{
        "name": "t",
        "description": "Does a thing. Then more.",
        "inputSchema": { "type": "object", "properties": { "a": {}, "b": {} }, "required": ["a"] },
        "annotations": { "readOnlyHint": true },
    }] });
    assert!(render_table(&list).ends_with("| `t` | read-only | **`a`**, `b` | Does a thing. |\n"));
}

/// Every text file of the repository that can cite a document: sources, tests, scripts, docs.
fn repository_files() -> Vec<PathBuf> {
    const SKIP: &[&str] = &["target", ".git", ".tools", "node_modules", "__pycache__", "corpus"];
    const TEXT: &[&str] = &["rs", "py", "md", "yml", "yaml", "toml", "sh", "template"];
    let mut files = Vec::new();
    let mut pending = vec![repo()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable folder").flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if path.is_dir() {
                if !SKIP.contains(&name.as_str()) {
                    pending.push(path);
                }
                continue;
            }
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
            let script = dir.ends_with("scripts") || dir.ends_with(".ci");
            if TEXT.contains(&ext) || script {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The `docs/<page>.md` names cited in `text`.
fn cited_pages(text: &str) -> Vec<String> {
    let mut pages = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("docs/") {
        rest = &rest[i + 5..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            .collect();
        if let Some(page) = name.strip_suffix('.').unwrap_or(&name).strip_suffix(".md") {
            pages.push(format!("{page}.md"));
        }
    }
    pages
}

#[test]
fn the_repository_stands_alone() {
    let root = repo();
    // Spelt in two halves, so that this file does not cite itself.
    let outside = [concat!("..", "/shared"), concat!("shared", "/spec/")];
    let mut problems = Vec::new();
    for file in repository_files() {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let shown = file.strip_prefix(&root).unwrap_or(&file).display().to_string();
        for (n, line) in text.lines().enumerate() {
            if outside.iter().any(|o| line.contains(o)) {
                problems.push(format!(
                    "{shown}:{}: points outside the checkout: {}",
                    n + 1,
                    line.trim()
                ));
            }
            for page in cited_pages(line) {
                if !root.join("docs").join(&page).is_file() {
                    problems.push(format!("{shown}:{}: cites docs/{page}, which does not exist", n + 1));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The headings of a page, without their `#`s.
fn headings(page: &str) -> Vec<String> {
    page.lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .collect()
}

/// The numbers of the numbered items in the section under `heading` (up to the next heading).
fn numbered_after(page: &str, heading: &str) -> Vec<u32> {
    let start = page
        .lines()
        .position(|l| l.starts_with('#') && l.trim_start_matches('#').trim() == heading)
        .unwrap_or_else(|| panic!("no heading `{heading}`"));
    page.lines()
        .skip(start + 1)
        .take_while(|l| !l.starts_with('#'))
        .filter_map(|l| l.trim_start().split_once(". ").and_then(|(n, _)| n.parse().ok()))
        .collect()
}

#[test]
fn what_the_code_cites_is_in_the_docs() {
    let root = repo();
    let page = |path: &str| read(&root.join(path));
    let cited = [
        ("docs/data-model.md", "Links and values"),
        ("docs/data-model.md", "What makes a node an instance"),
        ("docs/data-model.md", "Precedence rules"),
        ("docs/data-model.md", "Filters"),
        ("docs/data-model.md", "Determinism"),
        ("docs/data-model.md", "Classes and perspectives"),
        ("docs/tools.md", "Static tools"),
        ("docs/tools.md", "Per-class tools"),
        ("docs/tools.md", "Erasure attestation"),
        ("docs/errors.md", "The order of checks"),
        ("docs/errors.md", "The validation envelope"),
        ("docs/design.md", "Invariants"),
        ("docs/design.md", "Protocol"),
        ("docs/design.md", "Known traps on these machines"),
        ("docs/dna-format.md", "Actions"),
        ("docs/dna-format.md", "Standard SHACL in Turtle"),
    ];
    for (name, heading) in cited {
        assert!(
            headings(&page(name)).iter().any(|h| h == heading),
            "{name} has no section `{heading}`, which the code cites"
        );
    }
    let numbered = [
        ("docs/errors.md", "The order of checks", 11),
        ("docs/data-model.md", "Precedence rules", 5),
        ("docs/design.md", "Invariants", 8),
    ];
    for (name, heading, count) in numbered {
        let numbers = numbered_after(&page(name), heading);
        for n in 1..=count {
            assert!(numbers.contains(&n), "{name}, `{heading}`: no item {n}");
        }
    }
    assert!(
        page("docs/errors.md").contains("| HTTP column |"),
        "docs/errors.md has no HTTP column"
    );
}
