//! Streamable HTTP at `/mcp`: rmcp's `StreamableHttpService` behind the checks of docs/errors.md
//! (HTTP column), in this order: `Host`/`Origin` (403), body size (413), framing (400),
//! `Accept` (406). The handler identifies the caller itself from the `Authorization` header,
//! which reaches it in the request's `http::request::Parts`.
//!
//! Answers: a client that accepts `application/json` gets JSON where rmcp can answer so
//! (stateless requests without notifications before the result); a client that accepts
//! `text/event-stream` only gets SSE; a client that accepts JSON only gets the JSON-RPC
//! response out of rmcp's SSE stream when rmcp answers with one (sessions, notifications).

mod direct;
mod guard;
mod sessions;
mod sse;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use http::{HeaderValue, Method, StatusCode, header};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use self::guard::{Accepts, Guard, Refused, json_response};
use self::sessions::BoundedSessions;
use super::McpServer;
use super::auth::ClientAddr;
use super::framing::{self, INVALID_REQUEST};

/// How the HTTP transport listens and what it lets through.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Legacy-lifecycle sessions (`Mcp-Session-Id`); off by default: every request stands alone.
    pub sessions: bool,
    /// Largest request body in bytes (413 past it).
    pub max_body: usize,
    /// `Host` values accepted besides the bound address and localhost, 127.0.0.1 and [::1]
    /// with the bound port: `host` (any port) or `host:port`.
    pub allowed_hosts: Vec<String>,
    /// `Origin` values accepted besides http://localhost, http://127.0.0.1 and http://[::1]
    /// with the bound port: `scheme://host[:port]` (the scheme's port when none is given),
    /// `scheme://host:*` for any port, or `null`.
    pub allowed_origins: Vec<String>,
    /// With sessions: how many may be open at once (503 for another `initialize`).
    pub max_sessions: usize,
    /// With sessions: a session without traffic for this long is closed.
    pub session_idle: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            addr: SocketAddr::from(([127, 0, 0, 1], 3001)),
            sessions: false,
            max_body: framing::MAX_HTTP_BODY,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_sessions: 1024,
            session_idle: Duration::from_secs(300),
        }
    }
}

/// Binds `options.addr` and serves until `shutdown` is cancelled. Refuses (Err with a clear
/// message) to bind a non-loopback address without an admin credential in
/// `server.options().admin_credential`.
pub async fn serve_http(server: McpServer, options: HttpOptions, shutdown: CancellationToken) -> io::Result<()> {
    refuse_open_bind(options.addr, &server)?;
    let listener = TcpListener::bind(options.addr).await?;
    serve_listener(server, listener, options, shutdown).await
}

/// Serves on a listener already bound (tests bind port 0); `options.addr` is replaced by the
/// listener's address. The same refusal as [`serve_http`] applies.
pub async fn serve_listener(
    server: McpServer,
    listener: TcpListener,
    mut options: HttpOptions,
    shutdown: CancellationToken,
) -> io::Result<()> {
    options.addr = listener.local_addr()?;
    refuse_open_bind(options.addr, &server)?;
    let app = router(server, &options, shutdown.child_token());
    tracing::info!(kind = "listen", addr = %options.addr, sessions = options.sessions, "MCP over HTTP at http://{}/mcp", options.addr);
    // The peer's address reaches the handler (rate limits of multi-user mode) as ConnectInfo.
    axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await
}

fn refuse_open_bind(addr: SocketAddr, server: &McpServer) -> io::Result<()> {
    if addr.ip().to_canonical().is_loopback() || server.options().admin_credential.is_some() {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "refusing to listen on {addr} without an admin credential: anyone who can reach that address could call \
             every tool. Set {} (or pass a credential), or listen on 127.0.0.1",
            crate::config::CREDENTIAL_ENV
        ),
    ))
}

type Service = StreamableHttpService<McpServer, BoundedSessions>;

struct Shared {
    guard: Guard,
    /// The server the direct route calls (`direct`).
    server: McpServer,
    /// Prefers JSON answers (`json_response`); used unless the client accepts SSE only.
    json: Service,
    /// Always SSE answers.
    sse: Service,
    /// `Some` with sessions on.
    sessions: Option<Arc<BoundedSessions>>,
}

/// The axum Router (for tests and embedding): `/mcp` with the guard in front of rmcp, and one
/// log line per request. `ct` ends rmcp's sessions and streams (for a graceful shutdown).
pub fn router(server: McpServer, options: &HttpOptions, ct: CancellationToken) -> Router {
    let sessions = Arc::new(BoundedSessions::new(options.max_sessions, options.session_idle));
    // The guard checks Host and Origin before rmcp sees the request, so rmcp's own checks
    // (which answer in plain text) are off rather than kept in step.
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(options.sessions)
        .with_max_request_body_bytes(options.max_body)
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_cancellation_token(ct);
    let service = |json: bool| {
        let server = server.clone();
        StreamableHttpService::new(
            // Each session (or stateless request) gets a server with its own session slot.
            move || Ok(server.for_session()),
            sessions.clone(),
            config.clone().with_json_response(json),
        )
    };
    let shared = Shared {
        server: server.clone(),
        guard: Guard::new(
            options.addr,
            &options.allowed_hosts,
            &options.allowed_origins,
            options.max_body,
        ),
        json: service(true),
        sse: service(false),
        sessions: options.sessions.then(|| sessions.clone()),
    };
    Router::new()
        .route("/mcp", any(mcp))
        .with_state(Arc::new(shared))
        .layer(middleware::from_fn(log))
}

/// One line per request: method, path, status, elapsed time. Never a header: the
/// `Authorization` header carries the credential.
async fn log(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    tracing::info!(
        kind = "http",
        method = %method,
        path,
        status = response.status().as_u16(),
        elapsed_us = started.elapsed().as_micros() as u64
    );
    response
}

/// The peer's address, for the handler's rate limits (absent when the router is served without
/// connect info).
fn add_client_addr(parts: &mut http::request::Parts) {
    let peer = parts
        .extensions
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip());
    if let Some(ip) = peer {
        parts.extensions.insert(ClientAddr(ip));
    }
}

async fn mcp(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    if let Err(refused) = shared.guard.check_origin(request.headers()) {
        return refused.into_response();
    }
    if request.method() != Method::POST {
        // GET (the session's SSE stream) and DELETE (end a session): rmcp answers, 405 when
        // stateless.
        return shared.json.handle(request).await.map(Body::new);
    }
    let (mut parts, body) = request.into_parts();
    let bytes = match shared.guard.read_body(&parts.headers, body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused.into_response(),
    };
    let message = match framing::parse(&bytes) {
        Ok(message) => message,
        Err(refusal) => return Refused::framing(&refusal).into_response(),
    };
    let accepts = Accepts::of(&parts.headers);
    if !accepts.json && !accepts.sse {
        let why = "Not Acceptable: the Accept header must name application/json or text/event-stream";
        return Refused::new(StatusCode::NOT_ACCEPTABLE, INVALID_REQUEST, why).into_response();
    }
    if let Some(sessions) = &shared.sessions
        && message.method() == Some("initialize")
        && !parts.headers.contains_key("mcp-session-id")
        && sessions.is_full().await
    {
        let error = json!({ "code": -32603, "message": format!("too many open sessions (at most {}): try again later", sessions.max()) });
        let id = message.value().get("id").cloned().unwrap_or_default();
        let body = json!({ "jsonrpc": "2.0", "id": id, "error": error });
        return json_response(StatusCode::SERVICE_UNAVAILABLE, &body);
    }
    add_client_addr(&mut parts);
    // Stateless: a tool call that qualifies is answered without rmcp's per-request service.
    if shared.sessions.is_none()
        && accepts.json
        && direct::headers_allow(&parts.headers)
        && let Ok(call) = message.into_tool_call()
        && direct::call_allows(&shared.server, &call)
    {
        return direct::answer(&shared.server, call, &parts).await;
    }
    // rmcp insists on both types; the answer's type was chosen above by picking the service.
    parts.headers.remove(header::ACCEPT);
    parts.headers.insert(
        header::ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    let request = Request::from_parts(parts, Body::from(bytes));
    let service = if accepts.json { &shared.json } else { &shared.sse };
    let response = service.handle(request).await.map(Body::new);
    if !accepts.sse && sse::is_sse(&response) {
        return sse::collapse(response).await;
    }
    response
}
