//! Stateless `tools/call` answered from the handler itself, without rmcp's per-request service.
//!
//! In stateless mode rmcp answers a POST by parsing the body again (trying every request type in
//! turn), building a service for the request, spawning it and waiting on a channel for its one
//! message. A tool call that needs none of that (no notification can come before its answer, no
//! rmcp request context is read) is answered here instead: the framing layer's parse is taken
//! apart ([`ToolCall`]), the handler runs the call as rmcp would have had it run, and the answer
//! is the JSON-RPC response rmcp would have written, byte for byte (tests/http_guard.rs sends
//! each call both ways and compares the bodies).
//!
//! Everything else goes to rmcp as before: sessions, clients that take SSE only, any request
//! with `_meta` beyond a progress token (the 2026-07-28 lifecycle), an `MCP-Protocol-Version` that is
//! not one of the handshake-era versions rmcp reads without per-request metadata, and the tools
//! whose call notifies or needs rmcp's context ([`McpServer::answers_without_context`]).

use axum::body::Body;
use axum::response::Response;
use http::{HeaderMap, StatusCode, header};
use rmcp::model::{ServerJsonRpcMessage, ServerResult};

use super::super::McpServer;
use super::super::framing::ToolCall;

/// The `MCP-Protocol-Version` values of the handshake lifecycle: rmcp serves a request naming one
/// (or none: 2025-03-26 is assumed) without per-request metadata or standard headers.
const HANDSHAKE_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Whether a stateless request with these headers may be answered here (given a tool call
/// that qualifies).
pub(super) fn headers_allow(headers: &HeaderMap) -> bool {
    let mut versions = headers.get_all("mcp-protocol-version").iter();
    match (versions.next(), versions.next()) {
        (None, _) => true,
        (Some(version), None) => version.to_str().is_ok_and(|v| HANDSHAKE_VERSIONS.contains(&v)),
        (Some(_), Some(_)) => false,
    }
}

/// Whether `call` may be answered here: a tool that needs no request context, and no `_meta`
/// but a progress token (which clients such as rmcp's send with every call; no tool of this
/// server reports progress, and a stateless answer could carry it only as SSE).
pub(super) fn call_allows(server: &McpServer, call: &ToolCall) -> bool {
    let plain_meta = call.meta.as_ref().is_none_or(|meta| {
        meta.iter()
            .all(|(key, value)| key == "progressToken" && (value.is_string() || value.as_i64().is_some()))
    });
    plain_meta && server.answers_without_context(&call.name)
}

/// The answer to `call` as rmcp's stateless JSON answer reads: status 200 and the JSON-RPC
/// response (or error) as its body.
pub(super) async fn answer(server: &McpServer, call: ToolCall, parts: &http::request::Parts) -> Response {
    let ToolCall {
        id, name, arguments, ..
    } = call;
    let message = match server.call_request(&name, arguments, Some(parts)).await {
        Ok(result) => {
            // As rmcp's handler answers a peer of a handshake-era version.
            let mut result = ServerResult::CallToolResult(result);
            result.strip_result_type_for_legacy_peer();
            result.strip_non_object_output_for_legacy_peer();
            ServerJsonRpcMessage::response(result, id)
        }
        Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
    };
    match serde_json::to_vec(&message) {
        Ok(body) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body))
            .unwrap_or_default(),
        Err(e) => {
            tracing::error!(kind = "internal", error = %e, "an answer could not be written");
            Response::builder()
                .status(StatusCode::INTERNAL_SERVER_ERROR)
                .body(Body::empty())
                .unwrap_or_default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(versions: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for v in versions {
            headers.append("mcp-protocol-version", v.parse().unwrap());
        }
        headers
    }

    #[test]
    fn only_handshake_era_versions_are_answered_here() {
        assert!(headers_allow(&headers(&[])));
        assert!(headers_allow(&headers(&["2025-06-18"])));
        assert!(headers_allow(&headers(&["2025-11-25"])));
        // Per-request metadata and standard headers: rmcp's checks apply.
        assert!(!headers_allow(&headers(&["2026-07-28"])));
        // Unknown (rmcp answers 400) and repeated values.
        assert!(!headers_allow(&headers(&["1999-01-01"])));
        assert!(!headers_allow(&headers(&["2025-06-18", "2025-06-18"])));
    }
}
