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

    /// A tool the way rmcp's `#[tool]` methods are written: its argument and result types give
    /// the inputSchema and outputSchema (their `schemars::JsonSchema`, through rmcp's own
    /// schema functions), the arguments are deserialized into `A` before the call and the
    /// result serialized after. Derive `JsonSchema` and `Deserialize` on `A` with
    /// `#[serde(deny_unknown_fields)]` for a strict inputSchema, and doc comments on its fields
    /// for the parameters' descriptions.
    ///
    /// # Panics
    ///
    /// When `A`'s schema is not an object schema: a programming error, met when the server is
    /// built, as with rmcp's `#[tool]`.
    pub fn typed<A, R>(
        name: &str,
        title: &str,
        description: &str,
        annotations: shacl_mcp_compiler::surface::ToolAnnotations,
        call: impl Fn(&crate::engine::Engine, A) -> Result<R, crate::engine::ToolError> + Send + Sync + 'static,
    ) -> Self
    where
        A: serde::de::DeserializeOwned + rmcp::schemars::JsonSchema + 'static,
        R: serde::Serialize + rmcp::schemars::JsonSchema + 'static,
    {
        use rmcp::handler::server::common::{schema_for_input, schema_for_output};
        let input =
            schema_for_input::<A>().unwrap_or_else(|e| panic!("the arguments of {name} are not an object: {e}"));
        // Listed like every other tool's: without the dialect, which MCP fixes (2020-12).
        let listed = |schema: &rmcp::model::JsonObject| {
            let mut schema = schema.clone();
            schema.remove("$schema");
            serde_json::Value::Object(schema)
        };
        let spec = shacl_mcp_compiler::ToolSpec {
            name: name.to_string(),
            title: title.to_string(),
            description: description.to_string(),
            input_schema: listed(&input),
            output_schema: listed(&schema_for_output::<R>()),
            annotations,
        };
        let tool = name.to_string();
        CustomTool::new(spec, move |engine, arguments| {
            let args: A = serde_json::from_value(serde_json::Value::Object(arguments.clone())).map_err(|e| {
                crate::engine::ToolError::Internal(format!("{tool}: arguments passed the schema but not serde: {e}"))
            })?;
            let result = call(engine, args)?;
            serde_json::to_value(result).map_err(|e| crate::engine::ToolError::Internal(e.to_string()))
        })
    }
}
