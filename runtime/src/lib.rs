//! shacl-mcp: typed MCP servers from SHACL shapes.
pub use shacl_mcp_compiler as compiler;
