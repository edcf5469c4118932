//! The MCP server: one handler for the static and per-class tools on rmcp, with the framing
//! layers of docs/errors.md in front of it on stdio ([`stdio`]) and HTTP ([`http`]).

mod account_tools;
mod arguments;
pub mod auth;
mod completions;
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
    /// Reads of one instance (`instance_get`, `*_get`) run on the async worker that received
    /// them instead of the blocking pool: for a store that reads local files (SQLite), never
    /// one that waits on a network (PostgreSQL).
    pub inline_reads: bool,
}

impl std::fmt::Debug for CustomTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CustomTool")
            .field("name", &self.spec.name)
            .finish_non_exhaustive()
    }
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
            inline_reads: true,
        }
    }
}

/// A hand-written tool's body: the engine and the arguments (checked against the spec's
/// inputSchema first), returning the result JSON or a tool error.
pub type CustomCall = std::sync::Arc<
    dyn Fn(
            &crate::engine::Engine,
            &serde_json::Map<String, serde_json::Value>,
        ) -> Result<serde_json::Value, crate::engine::ToolError>
        + Send
        + Sync,
>;

/// A tool written by hand, served beside the static and generated ones (listed after the
/// static tools). Its spec is checked like any other: strict inputSchema, outputSchema.
#[derive(Clone)]
pub struct CustomTool {
    pub spec: shacl_mcp_compiler::ToolSpec,
    pub call: CustomCall,
}

impl CustomTool {
    pub fn new(
        spec: shacl_mcp_compiler::ToolSpec,
        call: impl Fn(
            &crate::engine::Engine,
            &serde_json::Map<String, serde_json::Value>,
        ) -> Result<serde_json::Value, crate::engine::ToolError>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        CustomTool {
            spec,
            call: std::sync::Arc::new(call),
        }
    }
}
