//! `tasks-server`: an MCP server for the tasks DNA, with one hand-written tool, `task_summary`,
//! served beside the generated ones.
//!
//! `tasks-server` speaks MCP over stdio; `tasks-server --http` serves streamable HTTP at
//! `http://127.0.0.1:3001/mcp`. `tasks-server --help` lists the flags.

use std::process::ExitCode;

use shacl_mcp::shacl_model;

mod summary;

/// The generated module: `tasks::Dna`, `tasks::Task`, `tasks::TodoList` and their tool arguments,
/// expanded from `dna/tasks.json` (relative to this crate; editing it rebuilds).
#[shacl_model(path = "dna/tasks.json")]
pub mod tasks {}

fn main() -> ExitCode {
    shacl_mcp::serve_with::<tasks::Dna>(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"), summary::tools())
}
