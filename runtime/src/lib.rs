//! shacl-mcp: typed MCP servers from SHACL shapes.
//!
//! - [`store`]: the link store trait and its SQLite implementation, the embedded default;
//! - [`engine`]: instances, validation and queries over any class of the model;
//! - [`accounts`]: multi-user mode's accounts, tokens and email verification;
//! - [`cli`]: the `shacl-mcp` command (feature `cli`).

pub use rmcp;
pub use serde_json;
pub use shacl_mcp_compiler as compiler;
#[cfg(feature = "macros")]
pub use shacl_mcp_macros::shacl_model;

pub mod accounts;
pub mod binary;
pub mod clock;
pub mod compiled;
pub mod config;
pub mod engine;
pub mod mcp;
pub mod run;
pub mod store;
pub mod temporal;
pub mod typed;
pub mod types;
pub mod value_key;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use binary::{serve, serve_with};
pub use compiled::CompiledDna;
pub use mcp::CustomTool;
pub use types::{AnyOfValue, Date, DateTime, InstanceMeta, Iri, LangString, Time, ValueError};

#[cfg(feature = "cli")]
pub mod cli;

/// Includes the module a build.rs `shacl_mcp_compiler::Builder` wrote to
/// `$OUT_DIR/<name>.rs`, like prost's `include_proto!`.
///
/// ```rust,ignore
/// // build.rs (with `shacl-mcp-compiler` in [build-dependencies])
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     println!("cargo:rerun-if-changed=build.rs");
///     shacl_mcp_compiler::Builder::new().dna("dna/chat.json").compile()?;
///     Ok(())
/// }
///
/// // src/main.rs
/// pub mod chat {
///     shacl_mcp::include_dna!(chat);
/// }
/// ```
#[macro_export]
macro_rules! include_dna {
    ($name:ident) => {
        include!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".rs"));
    };
}
