//! `chat-server`: an MCP server for the chat DNA (channels and messages), compiled in by build.rs.
//!
//! `chat-server` speaks MCP over stdio; `chat-server --http` serves streamable HTTP at
//! `http://127.0.0.1:3001/mcp`. `chat-server --help` lists the flags.

use std::process::ExitCode;

/// The generated module: `chat::Dna`, `chat::Channel`, `chat::Message` and their tool arguments.
pub mod chat {
    shacl_mcp::include_dna!(chat);
}

fn main() -> ExitCode {
    shacl_mcp::serve::<chat::Dna>(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
}
