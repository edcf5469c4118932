//! The framing checks of docs/errors.md (steps 1 to 3), shared by stdio and HTTP: bytes →
//! UTF-8 → JSON (at most 128 deep) → a JSON-RPC envelope → a method this server serves. rmcp
//! drops what it cannot parse without an answer, so only messages that pass reach it.

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, Extensions, RequestId, RequestMetaObject};
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value, json};

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
    parse(bytes).map(Message::into_value)
}

/// [`check`], keeping what the one parse learnt: the message and whether any key of it (or of
/// its `params`) came twice.
pub fn parse(bytes: &[u8]) -> Result<Message, Refusal> {
    let text =
        std::str::from_utf8(bytes).map_err(|_| Refusal::new(PARSE_ERROR, "Parse error: not UTF-8", Value::Null))?;
    // serde_json refuses nesting deeper than 128 with an error: the Parse error of docs/errors.md.
    let Tracked { value, repeated } = serde_json::from_str(text).map_err(|e| {
        let what = if e.to_string().contains("recursion limit") {
            "Parse error: JSON nested deeper than 128 levels".to_string()
        } else {
            format!("Parse error: {e}")
        };
        Refusal::new(PARSE_ERROR, what, Value::Null)
    })?;
    envelope(&value)?;
    Ok(Message { value, repeated })
}

/// Steps 2 and 3 of docs/errors.md on a parsed message.
fn envelope(value: &Value) -> Result<(), Refusal> {
    let object = match value {
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
    let id = object.get("id");
    let readable_id = match id {
        Some(v @ Value::String(_)) => v.clone(),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Value::Number(n.clone()),
        _ => Value::Null,
    };
    let invalid = |why: &str| Refusal::new(INVALID_REQUEST, format!("Invalid Request: {why}"), readable_id.clone());
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
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
            Ok(())
        }
        Some(_) => Err(invalid("method must be a string")),
        // A response from the client (to a server request) passes; anything else is malformed.
        None if id.is_some() && (object.contains_key("result") || object.contains_key("error")) => Ok(()),
        None => Err(invalid("method is missing")),
    }
}

/// A message that passed the framing checks, parsed once.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    value: Value,
    /// A key of the message or of its `params` came twice: serde_json keeps the last, rmcp
    /// refuses the message, so such a message goes to rmcp as it came.
    repeated: bool,
}

impl Message {
    pub fn value(&self) -> &Value {
        &self.value
    }

    pub fn into_value(self) -> Value {
        self.value
    }

    pub fn method(&self) -> Option<&str> {
        self.value.get("method").and_then(Value::as_str)
    }

    /// The `requestId` of a `notifications/cancelled`.
    pub fn cancels(&self) -> Option<RequestId> {
        if self.method() != Some("notifications/cancelled") || self.value.get("id").is_some() {
            return None;
        }
        request_id(self.value.get("params")?.get("requestId")?)
    }

    /// A `tools/call` request in exactly the form rmcp reads into its `CallToolRequest`, taken
    /// apart without rmcp's second parse, which buffers the message and tries every request
    /// type in turn. Anything else, or anything rmcp might read differently (a repeated key, a
    /// key rmcp would weigh, an id beyond `i64`), is given back to go to rmcp as before.
    pub fn into_tool_call(self) -> Result<ToolCall, Message> {
        if self.repeated || self.method() != Some("tools/call") {
            return Err(self);
        }
        let Value::Object(object) = &self.value else {
            return Err(self);
        };
        let id = object.get("id").and_then(request_id);
        let plain = object.len() == 4
            && ["jsonrpc", "id", "method", "params"]
                .iter()
                .all(|k| object.contains_key(*k))
            && object.get("params").and_then(Value::as_object).is_some_and(|params| {
                params.iter().all(|(key, value)| match key.as_str() {
                    "name" => value.is_string(),
                    "arguments" => value.is_object() || value.is_null(),
                    "_meta" => value.is_object(),
                    _ => false,
                })
            });
        let (true, Some(id)) = (plain, id) else {
            return Err(self);
        };
        // Checked just above: the defaults below are never taken.
        let mut params = match self.value {
            Value::Object(mut object) => match object.remove("params") {
                Some(Value::Object(params)) => params,
                _ => Map::new(),
            },
            _ => Map::new(),
        };
        let name = match params.remove("name") {
            Some(Value::String(name)) => name,
            _ => String::new(),
        };
        let arguments = match params.remove("arguments") {
            Some(Value::Object(arguments)) => Some(arguments),
            _ => None,
        };
        let meta = match params.remove("_meta") {
            Some(Value::Object(meta)) => Some(meta),
            _ => None,
        };
        Ok(ToolCall {
            id,
            name,
            arguments,
            meta,
        })
    }
}

/// A JSON-RPC id as rmcp holds it: a string, or an integer that fits `i64`.
fn request_id(value: &Value) -> Option<RequestId> {
    match value {
        Value::String(s) => Some(RequestId::String(s.as_str().into())),
        Value::Number(n) => n.as_i64().map(RequestId::Number),
        _ => None,
    }
}

/// A `tools/call` request, routed by the framing layer.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub id: RequestId,
    pub name: String,
    pub arguments: Option<Map<String, Value>>,
    /// `params._meta`.
    pub meta: Option<Map<String, Value>>,
}

impl ToolCall {
    /// rmcp's request and the `_meta` and extensions its service loop hands the handler (it
    /// moves `_meta` out of the request into the context and leaves an empty one behind).
    pub fn into_rmcp(self) -> (RequestId, ClientRequest, RequestMetaObject, Extensions) {
        let mut params = CallToolRequestParams::new(self.name);
        params.arguments = self.arguments;
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let meta = self.meta.map(RequestMetaObject::from).unwrap_or_default();
        let mut extensions = Extensions::new();
        extensions.insert(RequestMetaObject::default());
        (self.id, request, meta, extensions)
    }
}

/// A JSON value read by serde_json's own rules (so every refusal reads as before), noting
/// whether a key of the top-level object, or of its `params` object, came twice.
struct Tracked {
    value: Value,
    repeated: bool,
}

impl<'de> Deserialize<'de> for Tracked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Tracking { top: true })
    }
}

/// Reads one value; in an object, tracks repeated keys (and at the top, those of `params`).
#[derive(Clone, Copy)]
struct Tracking {
    top: bool,
}

impl<'de> DeserializeSeed<'de> for Tracking {
    type Value = Tracked;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tracked, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Tracking {
    fn plain<E>(value: Value) -> Result<Tracked, E> {
        Ok(Tracked { value, repeated: false })
    }
}

impl<'de> Visitor<'de> for Tracking {
    type Value = Tracked;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Tracked, E> {
        Self::plain(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Tracked, E> {
        Self::plain(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Tracked, E> {
        Self::plain(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Tracked, E> {
        Self::plain(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Tracked, E> {
        Self::plain(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Tracked, E> {
        Self::plain(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Tracked, E> {
        Self::plain(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Tracked, E> {
        Self::plain(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tracked, D::Error> {
        Value::deserialize(deserializer).map(|value| Tracked { value, repeated: false })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tracked, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Self::plain(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tracked, A::Error> {
        let mut object = Map::new();
        let mut repeated = false;
        while let Some(key) = map.next_key::<String>()? {
            let value = if self.top && key == "params" {
                let inner = map.next_value_seed(Tracking { top: false })?;
                repeated |= inner.repeated;
                inner.value
            } else {
                map.next_value::<Value>()?
            };
            repeated |= object.insert(key, value).is_some();
        }
        Ok(Tracked {
            value: Value::Object(object),
            repeated,
        })
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

    /// The one parse reads every message exactly as `serde_json::from_str::<Value>` did, and
    /// refuses what it refused with the same words.
    #[test]
    fn one_parse_reads_as_serde_json_reads() {
        let deep = format!("{{\"a\":{}1{}}}", "[".repeat(130), "]".repeat(130));
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"b":[1,2.5,-3,1e400,"\u00e9",null,true],"a":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            r#"{"params":{"x":1,"x":2},"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
            r#"{"jsonrpc":"2.0",,"id":1}"#,
            "[1,2,{\"a\":[}]",
            "\"text\"",
            "17",
            "",
            deep.as_str(),
        ] {
            let before = serde_json::from_str::<Value>(text).map_err(|e| e.to_string());
            match (before, parse(text.as_bytes())) {
                (Ok(value), Ok(message)) => assert_eq!(message.value(), &value, "{text}"),
                (Ok(_), Err(refusal)) => assert_ne!(refusal.code, PARSE_ERROR, "{text}"),
                (Err(e), Err(refusal)) if e.contains("recursion limit") => {
                    assert_eq!(refusal.message, "Parse error: JSON nested deeper than 128 levels")
                }
                (Err(e), Err(refusal)) => assert_eq!(refusal.message, format!("Parse error: {e}"), "{text}"),
                (Err(e), Ok(_)) => panic!("{text} passed, serde_json says {e}"),
            }
        }
    }

    /// A routed tools/call is the very request, `_meta` and extensions that rmcp's parse and
    /// service loop would hand the handler.
    #[test]
    fn routed_tool_calls_are_what_rmcp_reads() {
        use rmcp::model::{ClientJsonRpcMessage, GetExtensions, GetMeta, JsonRpcMessage};
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"instance_get","arguments":{"b":1,"a":[1,2.5,"x",null,{"z":true}]}}}"#,
            r#"{"id":"s-1","method":"tools/call","jsonrpc":"2.0","params":{"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":-5,"method":"tools/call","params":{"arguments":null,"name":"get_my_did"}}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t","arguments":{}}}"#,
        ] {
            let call = parse(text.as_bytes())
                .expect("passes")
                .into_tool_call()
                .expect("routed");
            let (id, request, meta, extensions) = call.into_rmcp();
            let Ok(JsonRpcMessage::Request(mut theirs)) = serde_json::from_str::<ClientJsonRpcMessage>(text) else {
                panic!("rmcp reads {text} as a request")
            };
            // What rmcp's service loop does before it calls the handler.
            let mut their_meta = RequestMetaObject::default();
            std::mem::swap(&mut their_meta, theirs.request.get_meta_mut());
            let mut their_extensions = Extensions::new();
            std::mem::swap(&mut their_extensions, theirs.request.extensions_mut());
            assert_eq!(id, theirs.id, "{text}");
            assert_eq!(format!("{request:?}"), format!("{:?}", theirs.request), "{text}");
            assert_eq!(format!("{meta:?}"), format!("{their_meta:?}"), "{text}");
            assert_eq!(
                format!("{:?}", extensions.get::<RequestMetaObject>()),
                format!("{:?}", their_extensions.get::<RequestMetaObject>()),
                "{text}"
            );
            assert_eq!(extensions.len(), their_extensions.len(), "{text}");
        }
    }

    /// What rmcp might read otherwise goes to rmcp as it came.
    #[test]
    fn anything_else_is_given_back() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","name":"y"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"},"extra":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","requestState":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":null}}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"x"}}"#,
        ] {
            let message = parse(text.as_bytes()).expect("passes framing");
            assert_eq!(message.clone().into_tool_call(), Err(message), "{text}");
        }
        let cancel = parse(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}"#);
        assert_eq!(
            cancel.ok().and_then(|m| m.cancels()),
            Some(RequestId::String("a".into()))
        );
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
