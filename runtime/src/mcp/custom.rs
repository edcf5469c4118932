//! Hand-written tools, served beside the static and generated ones in one tool table: a plain
//! function of the engine and the arguments ([`CustomTool::new`], [`CustomTool::typed`]), or
//! rmcp's own `#[tool]` methods, taken from the `ToolRouter` that `#[tool_router]` builds
//! ([`CustomTool::router`]).

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{IntoCallToolResult, ToolCallContext};
use rmcp::model::{CallToolRequestParams, CallToolResponse, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Map, Value};
use shacl_mcp_compiler::ToolSpec;
use shacl_mcp_compiler::surface::ToolAnnotations;

use crate::engine::{Engine, ToolError};

/// A plain tool's body: the engine and the arguments (checked against the spec's inputSchema
/// first), returning the result JSON or a tool error.
pub type PlainCall = dyn Fn(&Engine, &Map<String, Value>) -> Result<Value, ToolError> + Send + Sync;

/// A hand-written tool's body.
#[derive(Clone)]
pub enum CustomCall {
    /// Run on the blocking pool (or inline) like the generated tools.
    Plain(Arc<PlainCall>),
    /// A route of an rmcp `ToolRouter`: called with the request's context, whose extensions
    /// carry the caller's engine as an `Arc<Engine>`.
    Routed(Arc<dyn Route>),
}

/// One call of a routed tool, on a thread that may block (the engine's calls do).
pub trait Route: Send + Sync {
    fn call(
        &self,
        context: RequestContext<RoleServer>,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResponse, ErrorData>;
}

/// A tool written by hand, served beside the static and generated ones (listed after the
/// static tools). Its spec is checked like any other: strict inputSchema, outputSchema.
#[derive(Clone)]
pub struct CustomTool {
    pub spec: ToolSpec,
    pub call: CustomCall,
}

impl std::fmt::Debug for CustomTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CustomTool")
            .field("name", &self.spec.name)
            .finish_non_exhaustive()
    }
}

impl CustomTool {
    pub fn new(
        spec: ToolSpec,
        call: impl Fn(&Engine, &Map<String, Value>) -> Result<Value, ToolError> + Send + Sync + 'static,
    ) -> Self {
        CustomTool {
            spec,
            call: CustomCall::Plain(Arc::new(call)),
        }
    }

    /// A plain function as a tool: its argument and result types give the inputSchema and
    /// outputSchema (their `schemars::JsonSchema`, through rmcp's own schema functions), the
    /// arguments are deserialized into `A` before the call and the result serialized after.
    /// Derive `JsonSchema` and `Deserialize` on `A` with `#[serde(deny_unknown_fields)]` for a
    /// strict inputSchema, and doc comments on its fields for the parameters' descriptions.
    ///
    /// # Panics
    ///
    /// When `A`'s schema is not an object schema: a programming error, met when the server is
    /// built, as with rmcp's `#[tool]`.
    pub fn typed<A, R>(
        name: &str,
        title: &str,
        description: &str,
        annotations: ToolAnnotations,
        call: impl Fn(&Engine, A) -> Result<R, ToolError> + Send + Sync + 'static,
    ) -> Self
    where
        A: serde::de::DeserializeOwned + rmcp::schemars::JsonSchema + 'static,
        R: serde::Serialize + rmcp::schemars::JsonSchema + 'static,
    {
        use rmcp::handler::server::common::{schema_for_input, schema_for_output};
        let input =
            schema_for_input::<A>().unwrap_or_else(|e| panic!("the arguments of {name} are not an object: {e}"));
        let spec = ToolSpec {
            name: name.to_string(),
            title: title.to_string(),
            description: description.to_string(),
            input_schema: listed(&input),
            output_schema: listed(&schema_for_output::<R>()),
            annotations,
        };
        let tool = name.to_string();
        CustomTool::new(spec, move |engine, arguments| {
            let args: A = serde_json::from_value(Value::Object(arguments.clone()))
                .map_err(|e| ToolError::Internal(format!("{tool}: arguments passed the schema but not serde: {e}")))?;
            let result = call(engine, args)?;
            serde_json::to_value(result).map_err(|e| ToolError::Internal(e.to_string()))
        })
    }

    /// Every tool of an rmcp `ToolRouter` (what `#[tool_router]` generates for an `impl` of
    /// `#[tool]` methods), in name order, served by `service`. A method reaches the store
    /// through `Extension<Arc<Engine>>` (the caller's engine: in multi-user mode, the user's
    /// view); its `Parameters<A>` and `Json<R>` types give the schemas, its doc comment the
    /// description, `#[tool(annotations(..))]` the hints. It runs on the blocking pool, as the
    /// generated tools do, so it may call the engine directly. A `ToolError` it returns is
    /// answered as the generated tools answer theirs (a refusal as an `isError` result with the
    /// envelope of docs/errors.md, an internal error as JSON-RPC -32603, its text only in the
    /// log). Differences from the generated tools, by rmcp's design: input requests (MRTR) are
    /// not relayed, and the tools are served only to MCP requests, not through
    /// [`crate::mcp::McpServer::call`].
    ///
    /// # Panics
    ///
    /// When a route has no outputSchema (its method does not return `Json<R>`): every tool of
    /// this server declares one.
    pub fn router<S: Send + Sync + 'static>(service: S, router: ToolRouter<S>) -> Vec<CustomTool> {
        let tools = router.list_all();
        let routed: Arc<dyn Route> = Arc::new(Routed { service, router });
        tools
            .into_iter()
            .map(|tool| CustomTool {
                spec: routed_spec(&tool),
                call: CustomCall::Routed(routed.clone()),
            })
            .collect()
    }
}

/// A schema as tools/list shows every tool's: without the dialect, which MCP fixes (2020-12).
fn listed(schema: &JsonObject) -> Value {
    let mut schema = schema.clone();
    schema.remove("$schema");
    Value::Object(schema)
}

/// An rmcp tool's listing as a spec of the table. Hints it leaves out take MCP's defaults.
fn routed_spec(tool: &rmcp::model::Tool) -> ToolSpec {
    let output = tool
        .output_schema
        .as_deref()
        .unwrap_or_else(|| panic!("the tool {} has no outputSchema: return Json<R>", tool.name));
    let hints = tool.annotations.clone().unwrap_or_default();
    let read_only = hints.read_only_hint.unwrap_or(false);
    ToolSpec {
        name: tool.name.to_string(),
        title: tool
            .title
            .clone()
            .or(hints.title.clone())
            .unwrap_or_else(|| tool.name.to_string()),
        description: tool.description.as_deref().unwrap_or_default().to_string(),
        input_schema: listed(&tool.input_schema),
        output_schema: listed(output),
        annotations: ToolAnnotations {
            read_only,
            destructive: !read_only && hints.destructive_hint.unwrap_or(true),
            idempotent: hints.idempotent_hint.unwrap_or(false),
        },
    }
}

struct Routed<S> {
    service: S,
    router: ToolRouter<S>,
}

impl<S: Send + Sync + 'static> Route for Routed<S> {
    fn call(
        &self,
        context: RequestContext<RoleServer>,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResponse, ErrorData> {
        let request = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        let call = self.router.call(ToolCallContext::new(&self.service, request, context));
        tokio::runtime::Handle::current().block_on(call)
    }
}

/// A routed tool's `Err(ToolError)` answered as the table answers the generated tools' errors.
impl IntoCallToolResult for ToolError {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        super::handler::tool_error(None, self).map(Into::into)
    }
}
