//! The one place names are made: class and property names to tool names and Rust
//! identifiers. Everything that prints a tool name or an identifier calls this module.

use heck::{ToSnakeCase, ToUpperCamelCase};

/// MCP's limit on tool names (the 2025-11-25 specification: 1 to 128 characters of
/// `A-Z a-z 0-9 _ - .`).
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// snake_case as tool names use it: `TodoItem` → `todo_item`, `dueDate` → `due_date`.
pub fn snake(name: &str) -> String {
    name.to_snake_case()
}

/// The tool prefix of a class: `TodoItem` → `todo_item`.
pub fn class_prefix(class_name: &str) -> String {
    snake(class_name)
}

/// A per-class tool name: `class_tool("TodoItem", "create")` → `todo_item_create`.
pub fn class_tool(class_name: &str, verb: &str) -> String {
    format!("{}_{verb}", class_prefix(class_name))
}

/// A per-property tool name: `property_tool("Task", "set", "dueDate")` → `task_set_due_date`.
pub fn property_tool(class_name: &str, verb: &str, property: &str) -> String {
    format!("{}_{verb}_{}", class_prefix(class_name), snake(property))
}

/// Why `name` cannot be an MCP tool name, if it cannot.
pub fn tool_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("is empty".to_string());
    }
    if name.len() > MAX_TOOL_NAME_LEN {
        return Some(format!(
            "is {} characters long (MCP allows at most {MAX_TOOL_NAME_LEN})",
            name.len()
        ));
    }
    let bad: String = name
        .chars()
        .filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .collect();
    if !bad.is_empty() {
        return Some(format!(
            "contains characters MCP does not allow in tool names: {bad:?} (allowed: A-Z a-z 0-9 _ - .)"
        ));
    }
    None
}

/// Rust's strict and reserved keywords (2024 edition), which need `r#`.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false", "fn", "for", "gen",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct",
    "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Keywords that cannot be raw identifiers; they get a `_` suffix instead.
const NOT_RAW: &[&str] = &["self", "Self", "crate", "super"];

/// A Rust field or function identifier for a property: snake_case, `r#` for keywords,
/// `_` suffix for `self`/`Self`/`crate`/`super`, `_` prefix when it would start with a digit.
pub fn field_ident(name: &str) -> String {
    escape(&snake(name))
}

/// A Rust type identifier for a class: UpperCamelCase with the same escaping.
pub fn type_ident(name: &str) -> String {
    escape(&name.to_upper_camel_case())
}

/// Any text as the characters of a Rust identifier: ASCII letters, digits and `_`.
pub fn rust_safe(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect()
}

fn escape(ident: &str) -> String {
    let ident = rust_safe(ident);
    let ident = if ident.is_empty() || ident.chars().all(|c| c == '_') {
        format!("_{ident}")
    } else {
        ident
    };
    let ident = if ident.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{ident}")
    } else {
        ident
    };
    if NOT_RAW.contains(&ident.as_str()) {
        format!("{ident}_")
    } else if KEYWORDS.contains(&ident.as_str()) {
        format!("r#{ident}")
    } else {
        ident
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_table() {
        let table = [
            // (input, tool prefix, field ident, type ident)
            ("Channel", "channel", "channel", "Channel"),
            ("TodoItem", "todo_item", "todo_item", "TodoItem"),
            ("dueDate", "due_date", "due_date", "DueDate"),
            ("isPinned", "is_pinned", "is_pinned", "IsPinned"),
            ("HTTPServer", "http_server", "http_server", "HttpServer"),
            ("type", "type", "r#type", "Type"),
            ("self", "self", "self_", "Self_"),
            ("Self", "self", "self_", "Self_"),
            ("crate", "crate", "crate_", "Crate"),
            ("super", "super", "super_", "Super"),
            ("match", "match", "r#match", "Match"),
            ("2fa", "2fa", "_2fa", "_2fa"),
            ("weight_kg", "weight_kg", "weight_kg", "WeightKg"),
            ("nom d'usage", "nom_d_usage", "nom_d_usage", "NomDUsage"),
            ("Café", "café", "caf_", "Caf_"),
        ];
        for (input, prefix, field, ty) in table {
            assert_eq!(class_prefix(input), prefix, "prefix of {input}");
            assert_eq!(field_ident(input), field, "field of {input}");
            assert_eq!(type_ident(input), ty, "type of {input}");
        }
    }

    #[test]
    fn tool_names() {
        assert_eq!(class_tool("TodoItem", "create"), "todo_item_create");
        assert_eq!(property_tool("Task", "set", "dueDate"), "task_set_due_date");
        assert_eq!(property_tool("Channel", "add", "members"), "channel_add_members");
    }

    #[test]
    fn tool_name_limits() {
        assert_eq!(tool_name_problem("channel_create"), None);
        assert!(tool_name_problem("").is_some());
        assert!(tool_name_problem(&"a".repeat(129)).unwrap().contains("129"));
        assert!(tool_name_problem(&"a".repeat(128)).is_none());
        assert!(tool_name_problem("café_create").unwrap().contains('é'));
    }
}
