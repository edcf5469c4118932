//! shacl-mcp: typed MCP servers from SHACL shapes.
//!
//! - [`store`]: the link store trait and its SQLite implementation, the embedded default;
//! - [`engine`]: instances, validation and queries over any class of the model;
//! - [`cli`]: the `shacl-mcp` command (feature `cli`).

pub use shacl_mcp_compiler as compiler;

pub mod clock;
pub mod config;
pub mod engine;
pub mod mcp;
pub mod run;
pub mod store;

#[cfg(feature = "cli")]
pub mod cli;
