//! The MCP server: one handler for the static and per-class tools on rmcp, with the framing
//! layers of errors.md in front of it on stdio ([`stdio`]) and HTTP ([`http`]).

mod arguments;
pub mod auth;
mod dispatch;
pub mod framing;
mod handler;
pub mod http;
pub mod stdio;
mod table;

pub use auth::Secret;
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
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            class_tools: false,
            jsonrpc_validation_errors: false,
            admin_credential: None,
            server_name: env!("CARGO_PKG_NAME").to_string(),
            server_version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}
