//! shacl-mcp: typed MCP servers from SHACL shapes.
//!
//! This release holds the `shacl-mcp` command's front-end commands (`check`, `describe`,
//! `tools`) over [`shacl_mcp_compiler`]; the store, the engine and the MCP server come next.

pub use shacl_mcp_compiler as compiler;

#[cfg(feature = "cli")]
pub mod cli;
