//! For a client whose `Accept` names only `application/json`: rmcp answers with an SSE stream
//! when it must (sessions; a notification before the result), so the stream is read up to the
//! JSON-RPC response, which becomes the whole answer. Notifications on the way are dropped:
//! such a client asked for one JSON document.

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use http::{StatusCode, header};
use serde_json::Value;

use super::guard::{Refused, json_response};
use crate::mcp::framing::MAX_STDIO_MESSAGE;

/// Internal error: the stream ended without a response.
const INTERNAL_ERROR: i64 = -32603;

pub(super) fn is_sse(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
}

/// The JSON-RPC response carried by an SSE answer, as an `application/json` answer with the
/// same status and headers (`Mcp-Session-Id` among them).
pub(super) async fn collapse(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let Some(message) = first_response(body).await else {
        let why = "Internal error: the answer ended without a response";
        return Refused::new(StatusCode::INTERNAL_SERVER_ERROR, INTERNAL_ERROR, why).into_response();
    };
    for name in [header::CONTENT_TYPE, header::CONTENT_LENGTH, header::CACHE_CONTROL] {
        parts.headers.remove(name);
    }
    parts.headers.remove("x-accel-buffering");
    let mut answer = json_response(parts.status, &message);
    answer.headers_mut().extend(parts.headers);
    answer
}

/// Reads events until one carries a JSON-RPC response (an `id` with `result` or `error`).
async fn first_response(body: Body) -> Option<Value> {
    let mut stream = body.into_data_stream();
    let mut pending: Vec<u8> = Vec::new();
    while let Some(Ok(chunk)) = stream.next().await {
        pending.extend_from_slice(&chunk);
        while let Some(end) = event_end(&pending) {
            let event: Vec<u8> = pending.drain(..end.0 + end.1).collect();
            if let Some(message) = response_in(&event[..end.0]) {
                return Some(message);
            }
        }
        if pending.len() > MAX_STDIO_MESSAGE {
            tracing::warn!(kind = "http", "an SSE event is larger than {MAX_STDIO_MESSAGE} bytes");
            return None;
        }
    }
    None
}

/// Where the first event ends: its length and the length of the blank line after it.
fn event_end(bytes: &[u8]) -> Option<(usize, usize)> {
    let lf = bytes.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2));
    let crlf = bytes.windows(4).position(|w| w == b"\r\n\r\n").map(|i| (i, 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

fn response_in(event: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(event).ok()?;
    let data: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|d| d.strip_prefix(' ').unwrap_or(d))
        .collect();
    let message: Value = serde_json::from_str(&data.join("\n")).ok()?;
    let is_response =
        message.get("id").is_some() && (message.get("result").is_some() || message.get("error").is_some());
    is_response.then_some(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_response_after_a_notification() {
        let body = "data:\nid: 0\nretry: 3000\n\n:\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n\
                    data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n";
        let response = Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .header("mcp-session-id", "abc")
            .body(Body::from(body))
            .unwrap();
        assert!(is_sse(&response));
        let answer = collapse(response).await;
        assert_eq!(answer.headers()["content-type"], "application/json");
        assert_eq!(answer.headers()["mcp-session-id"], "abc");
        let bytes = axum::body::to_bytes(answer.into_body(), 1 << 20).await.unwrap();
        assert_eq!(bytes.as_ref(), br#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    }
}
