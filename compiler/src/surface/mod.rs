//! The tool surface of `docs/tools.md`, derived from the model: the static tools, then the
//! per-class tools, each with name, description and strict input and output schemas.

mod class_tools;
mod static_tools;
mod tool_spec;
mod value_schema;

pub use class_tools::{ClassTool, ClassToolKind, class_tools, plan};
pub use static_tools::{DOCUMENTATION_TOPICS, static_tools};
pub use tool_spec::{ToolAnnotations, ToolSpec};
pub use value_schema::{
    IRI_PATTERN, LANGUAGE_TAG_PATTERN, example_value, parameter_description, property_schema, property_value_schema,
    setter_value_schema, summary,
};

use crate::model::Dna;

/// What the server lists beside the static tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SurfaceOptions {
    /// Per-class tools (`--dynamic-class-tools true`).
    pub class_tools: bool,
    /// Multi-user mode: the account tools (`signup`, `login_email`, ...) are listed.
    pub multi_user: bool,
}

/// The exact `tools/list` of a server for this DNA: static tools in the order of
/// docs/tools.md, then per-class tools by class declaration order.
pub fn tool_list(dna: &Dna, options: SurfaceOptions) -> Vec<ToolSpec> {
    let mut tools = static_tools(options);
    if options.class_tools {
        for class in &dna.classes {
            tools.extend(class_tools(class));
        }
    }
    tools
}
