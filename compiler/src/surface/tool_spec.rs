//! One MCP tool as the server lists it.

use serde_json::{Map, Value, json};

/// A tool: name, description, strict input schema, output schema, annotations.
/// The same value is produced at build time (codegen) and at run time (interpreted DNA),
/// so `tools/list` is byte-identical on both paths.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    /// A short human title (`annotations.title` and `title` in tools/list).
    pub title: String,
    pub description: String,
    pub input_schema: Value,
    pub output_schema: Value,
    pub annotations: ToolAnnotations,
}

/// MCP tool annotations (hints for clients; the server never relies on them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// The tool does not modify anything.
    pub read_only: bool,
    /// The tool may delete or overwrite data (only meaningful when not read-only).
    pub destructive: bool,
    /// Calling it again with the same arguments has no further effect.
    pub idempotent: bool,
}

impl ToolAnnotations {
    pub const READ: ToolAnnotations = ToolAnnotations {
        read_only: true,
        destructive: false,
        idempotent: true,
    };
    pub const WRITE: ToolAnnotations = ToolAnnotations {
        read_only: false,
        destructive: false,
        idempotent: false,
    };
    pub const OVERWRITE: ToolAnnotations = ToolAnnotations {
        read_only: false,
        destructive: true,
        idempotent: true,
    };
    pub const DELETE: ToolAnnotations = ToolAnnotations {
        read_only: false,
        destructive: true,
        idempotent: false,
    };
}

impl ToolSpec {
    /// A tool from its [`ToolSpec::to_json`] form (compiled tool specs are stored that way).
    pub fn from_json(value: &Value) -> Option<ToolSpec> {
        let text = |key: &str| value.get(key)?.as_str().map(str::to_string);
        let hint = |key: &str| value["annotations"].get(key).and_then(Value::as_bool).unwrap_or(false);
        Some(ToolSpec {
            name: text("name")?,
            title: text("title")?,
            description: text("description")?,
            input_schema: value.get("inputSchema")?.clone(),
            output_schema: value.get("outputSchema")?.clone(),
            annotations: ToolAnnotations {
                read_only: hint("readOnlyHint"),
                destructive: hint("destructiveHint"),
                idempotent: hint("idempotentHint"),
            },
        })
    }

    /// The tool as one entry of a `tools/list` result, keys in a fixed order.
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("name".into(), self.name.clone().into());
        o.insert("title".into(), self.title.clone().into());
        o.insert("description".into(), self.description.clone().into());
        o.insert("inputSchema".into(), self.input_schema.clone());
        o.insert("outputSchema".into(), self.output_schema.clone());
        o.insert(
            "annotations".into(),
            json!({
                "title": self.title,
                "readOnlyHint": self.annotations.read_only,
                "destructiveHint": self.annotations.destructive,
                "idempotentHint": self.annotations.idempotent,
                "openWorldHint": false,
            }),
        );
        Value::Object(o)
    }
}
