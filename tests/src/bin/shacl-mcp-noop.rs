//! The protocol floor of the load driver (`shacl-mcp-bench`): a plain rmcp server whose one tool
//! does nothing, served the way rmcp's own examples serve (its stdio transport; its streamable
//! HTTP service, stateless with JSON answers, under axum). Whatever a `shacl-mcp` call costs
//! above this server's `noop` call is ours: framing, routing, the engine, the store.
//!
//! ```text
//! shacl-mcp-noop [serve] --stdio
//! shacl-mcp-noop [serve] --http 127.0.0.1:PORT
//! ```
//!
//! The answer is a structured result like a `shacl-mcp` tool's (`CallToolResult::structured`:
//! the value and its JSON text), so both pay for the same result shape.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::json;

#[derive(Clone)]
struct Noop {
    tool_router: ToolRouter<Noop>,
}

#[tool_router]
impl Noop {
    fn new() -> Noop {
        Noop {
            tool_router: Self::tool_router(),
        }
    }

    /// Does nothing and answers with an empty object.
    #[tool]
    fn noop(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::structured(json!({})))
    }
}

// The router built once, as rmcp's examples keep it (the macro's default builds it per call).
#[tool_handler(router = self.tool_router)]
impl ServerHandler for Noop {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = args.iter().position(|a| a == "--http").and_then(|i| args.get(i + 1));
    match http {
        None => {
            let running = Noop::new()
                .serve(rmcp::transport::stdio())
                .await
                .expect("the stdio session starts");
            let _ = running.waiting().await;
        }
        Some(addr) => {
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(false)
                .with_json_response(true)
                .disable_allowed_hosts()
                .disable_allowed_origins();
            let service =
                StreamableHttpService::new(|| Ok(Noop::new()), Arc::new(LocalSessionManager::default()), config);
            let router = axum::Router::new().route_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
            axum::serve(listener, router).await.expect("serve");
        }
    }
}
