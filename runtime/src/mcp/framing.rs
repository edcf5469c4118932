//! The framing checks of docs/errors.md (steps 1 to 3), shared by stdio and HTTP: bytes →
//! UTF-8 → JSON (at most 128 deep) → a JSON-RPC envelope → a method this server serves. rmcp
//! drops what it cannot parse without an answer, so only messages that pass reach it.

use serde_json::{Value, json};

/// Largest message on stdio (docs/errors.md).
pub const MAX_STDIO_MESSAGE: usize = 16 * 1024 * 1024;
/// Largest request body on HTTP unless configured (docs/errors.md).
pub const MAX_HTTP_BODY: usize = 4 * 1024 * 1024;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const INVALID_PARAMS: i64 = -32602;
pub const METHOD_NOT_FOUND: i64 = -32601;

/// The requests this server answers; any other request gets -32601 here, the same on stdio and
/// HTTP (rmcp would answer an unknown 2026-07-28 method with HTTP 404).
const SERVED: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "subscriptions/listen",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// A message refused before rmcp sees it, with the JSON-RPC error that answers it.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub code: i64,
    pub message: String,
    /// The request id when one could be read; `null` otherwise.
    pub id: Value,
}

impl Refusal {
    fn new(code: i64, message: impl Into<String>, id: Value) -> Self {
        Refusal {
            code,
            message: message.into(),
            id,
        }
    }

    pub fn too_large(max: usize) -> Self {
        Refusal::new(INVALID_REQUEST, format!("message larger than {max} bytes"), Value::Null)
    }

    /// The JSON-RPC error response.
    pub fn to_json(&self) -> Value {
        json!({ "jsonrpc": "2.0", "id": self.id, "error": { "code": self.code, "message": self.message } })
    }

    /// HTTP status for this refusal (docs/errors.md: 400 for framing and envelope problems).
    pub fn http_status(&self) -> u16 {
        match self.code {
            INVALID_PARAMS | METHOD_NOT_FOUND => 200,
            _ => 400,
        }
    }
}

/// Checks one message: `Ok` with the parsed message to hand to rmcp, or `Err` with the answer
/// to send instead (a malformed message is answered with `id: null` when no id can be read).
pub fn check(bytes: &[u8]) -> Result<Value, Refusal> {
    let text =
        std::str::from_utf8(bytes).map_err(|_| Refusal::new(PARSE_ERROR, "Parse error: not UTF-8", Value::Null))?;
    // serde_json refuses nesting deeper than 128 with an error: the Parse error of docs/errors.md.
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let what = if e.to_string().contains("recursion limit") {
            "Parse error: JSON nested deeper than 128 levels".to_string()
        } else {
            format!("Parse error: {e}")
        };
        Refusal::new(PARSE_ERROR, what, Value::Null)
    })?;
    let object = match &value {
        Value::Array(_) => {
            return Err(Refusal::new(
                INVALID_REQUEST,
                "Invalid Request: batches are not supported",
                Value::Null,
            ));
        }
        Value::Object(o) => o,
        _ => {
            return Err(Refusal::new(
                INVALID_REQUEST,
                "Invalid Request: a message is a JSON object",
                Value::Null,
            ));
        }
    };
    let id = object.get("id").cloned();
    let readable_id = match &id {
        Some(v @ Value::String(_)) => v.clone(),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Value::Number(n.clone()),
        _ => Value::Null,
    };
    let invalid = |why: &str| Refusal::new(INVALID_REQUEST, format!("Invalid Request: {why}"), readable_id.clone());
    if object.get("jsonrpc") != Some(&Value::from("2.0")) {
        return Err(invalid("jsonrpc must be \"2.0\""));
    }
    if id.is_some() && readable_id.is_null() {
        return Err(invalid("id must be a string or an integer"));
    }
    match object.get("method") {
        Some(Value::String(method)) => {
            if id.is_some() && !SERVED.contains(&method.as_str()) {
                return Err(Refusal::new(
                    METHOD_NOT_FOUND,
                    format!("Method not found: {method}"),
                    readable_id,
                ));
            }
            if method == "tools/call"
                && let Some(params) = object.get("params")
            {
                let name = params.get("name").and_then(Value::as_str);
                let Some(name) = name else {
                    return Err(Refusal::new(
                        INVALID_PARAMS,
                        "Invalid params: tools/call needs a tool name",
                        readable_id,
                    ));
                };
                if params.get("arguments").is_some_and(|a| !a.is_object() && !a.is_null()) {
                    return Err(Refusal::new(
                        INVALID_PARAMS,
                        format!("Invalid params: arguments of tool '{name}' must be an object"),
                        readable_id,
                    ));
                }
            }
            Ok(value)
        }
        Some(_) => Err(invalid("method must be a string")),
        // A response from the client (to a server request) passes; anything else is malformed.
        None if id.is_some() && (object.contains_key("result") || object.contains_key("error")) => Ok(value),
        None => Err(invalid("method is missing")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(bytes: &[u8]) -> (i64, Value) {
        let r = check(bytes).expect_err("refused");
        (r.code, r.id)
    }

    #[test]
    fn the_order_of_checks() {
        assert_eq!(refusal(b"\xff\xfe"), (PARSE_ERROR, Value::Null));
        assert_eq!(refusal(b"{\"jsonrpc\":"), (PARSE_ERROR, Value::Null));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(refusal(deep.as_bytes()), (PARSE_ERROR, Value::Null));
        assert_eq!(
            refusal(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"),
            (INVALID_REQUEST, Value::Null)
        );
        assert_eq!(
            refusal(b"{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}"),
            (INVALID_REQUEST, json!(7))
        );
        assert_eq!(
            refusal(b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}"),
            (INVALID_REQUEST, Value::Null)
        );
        assert_eq!(
            refusal(b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":5}"),
            (INVALID_REQUEST, json!("a"))
        );
        assert_eq!(
            refusal(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":[1]}}"#),
            (INVALID_PARAMS, json!(3))
        );
        assert!(check(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_ok());
        assert_eq!(
            refusal(br#"{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage"}"#),
            (METHOD_NOT_FOUND, json!(9))
        );
        assert!(check(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_ok());
    }

    #[test]
    fn nesting_up_to_the_limit_passes() {
        let ok = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"_meta":{}1{}}}}}"#,
            "[".repeat(100),
            "]".repeat(100)
        );
        assert!(check(ok.as_bytes()).is_ok());
    }
}
