//! MCP's logging utility (`logging/setLevel`, `notifications/message`) for clients of the
//! legacy lifecycle that ask for it: once a session sets a level, each of its tool calls is
//! reported to it as one message at or above that level.
//!
//! - `debug`: a call that succeeded (`{ tool, outcome: "ok", elapsed_us }`);
//! - `notice`: a call refused (the validation envelope, a refusal): fixable by the model;
//! - `error`: an internal failure (nothing was written; the details stay in the server's log).
//!
//! Nothing is sent before a `logging/setLevel`, so the protocol stays as quiet as it was; the
//! server's own log still goes to stderr. The level lives with the session: on stateless HTTP,
//! where every request is a server of its own, it lasts for that request alone. MCP 2026-07-28
//! deprecates the utility (SEP-2577), which is why rmcp marks its types deprecated.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};

use rmcp::model::{CallToolResult, ErrorCode, ErrorData, LoggingLevel, LoggingMessageNotificationParam};
use rmcp::{Peer, RoleServer};
use serde_json::json;

/// How a tool call ended, as its answer says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A result.
    Ok,
    /// A tool result with `isError` (the validation envelope, a refusal), or a JSON-RPC
    /// invalid-params error: something the caller can fix.
    Refused,
    /// An internal failure: nothing was written.
    Internal,
}

impl Outcome {
    pub fn of(answer: &Result<CallToolResult, ErrorData>) -> Outcome {
        match answer {
            Ok(result) if result.is_error == Some(true) => Outcome::Refused,
            Ok(_) => Outcome::Ok,
            Err(e) if e.code == ErrorCode::INTERNAL_ERROR => Outcome::Internal,
            Err(_) => Outcome::Refused,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Refused => "refused",
            Outcome::Internal => "internal",
        }
    }

    fn level(self) -> LoggingLevel {
        match self {
            Outcome::Ok => LoggingLevel::Debug,
            Outcome::Refused => LoggingLevel::Notice,
            Outcome::Internal => LoggingLevel::Error,
        }
    }
}

/// A session's level: `None` until the client sets one.
#[derive(Clone, Default)]
pub struct SessionLevel(Arc<Mutex<Option<LoggingLevel>>>);

impl SessionLevel {
    pub fn set(&self, level: LoggingLevel) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(level);
    }

    /// Tells `peer` of one tool call when the session's level lets the message through.
    pub async fn tool_call(&self, peer: &Peer<RoleServer>, tool: &str, outcome: Outcome, elapsed_us: u64) {
        let wanted = *self.0.lock().unwrap_or_else(|e| e.into_inner());
        let Some(wanted) = wanted else { return };
        if rank(outcome.level()) < rank(wanted) {
            return;
        }
        let data = json!({ "tool": tool, "outcome": outcome.name(), "elapsed_us": elapsed_us });
        let message = LoggingMessageNotificationParam::new(outcome.level(), data).with_logger("tools/call");
        // A peer that went away has nobody left to tell.
        let _ = peer.notify_logging_message(message).await;
    }
}

/// RFC 5424's order, least severe first, as MCP's levels follow it.
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_ordered_as_rfc_5424() {
        assert!(rank(LoggingLevel::Debug) < rank(LoggingLevel::Notice));
        assert!(rank(LoggingLevel::Notice) < rank(LoggingLevel::Error));
        assert!(rank(Outcome::Refused.level()) >= rank(LoggingLevel::Info));
        assert!(rank(Outcome::Ok.level()) < rank(LoggingLevel::Info));
    }
}
