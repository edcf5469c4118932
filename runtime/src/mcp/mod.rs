//! The MCP server: one handler for the static and per-class tools on rmcp, with the framing
//! layers of docs/errors.md in front of it on stdio ([`stdio`]) and HTTP ([`http`]).

mod account_tools;
mod arguments;
pub mod auth;
mod completions;
mod custom;
mod dispatch;
mod documentation;
pub mod framing;
mod handler;
pub mod http;
mod logging;
mod prompts;
mod resources;
pub mod stdio;
mod subscriptions;
mod table;

pub use auth::Secret;
pub use custom::{CustomCall, CustomTool};
pub use handler::McpServer;

/// How the server behaves; the CLI, the config file and generated binaries fill it in.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Per-class tools (`--dynamic-class-tools`).
    pub class_tools: bool,
    /// Schema and shape failures as JSON-RPC -32602 instead of tool results.
    pub jsonrpc_validation_errors: bool,
    /// The admin credential for HTTP (`SHACL_MCP_ADMIN_CREDENTIAL`).
    pub admin_credential: Option<Secret>,
    /// `serverInfo`: the crate that serves, never rmcp's own name.
    pub server_name: String,
    pub server_version: String,
    /// Hand-written tools served beside the others.
    pub custom_tools: Vec<CustomTool>,
    /// Multi-user mode (`--multi-user`): the accounts; `None` is single-user mode.
    pub accounts: Option<std::sync::Arc<crate::accounts::Accounts>>,
    /// The store reads and writes local files (SQLite), never a network (PostgreSQL): reads of
    /// one instance (`instance_get`, `*_get`), and any engine call that finds no other under
    /// way, run on the async worker that received them instead of the blocking pool (its two
    /// thread switches cost more than such a call). A call that may wait on another, as writes
    /// queued for the writer do, goes to the blocking pool.
    pub local_store: bool,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            class_tools: false,
            jsonrpc_validation_errors: false,
            admin_credential: None,
            server_name: env!("CARGO_PKG_NAME").to_string(),
            server_version: env!("CARGO_PKG_VERSION").to_string(),
            custom_tools: Vec::new(),
            accounts: None,
            local_store: true,
        }
    }
}
