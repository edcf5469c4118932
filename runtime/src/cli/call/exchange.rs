//! One `tools/call` through the stdio transport `serve` uses ([`serve_streams`]: the framing
//! checks, then rmcp and the handler), over an in-memory pipe: the `initialize` handshake
//! first, then the call, reading the server's lines until the call's answer.

use std::time::Duration;

use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

use crate::mcp::McpServer;
use crate::mcp::framing::MAX_STDIO_MESSAGE;
use crate::mcp::stdio::serve_streams;

/// The call's request id (the handshake's is 0).
pub const CALL_ID: u64 = 1;
/// How long the server may take to answer the handshake or the call.
const PATIENCE: Duration = Duration::from_secs(60);

/// What crossed the pipe for the call: the request line as sent, and every line the server
/// wrote after it, the answer last.
pub struct Exchange {
    pub request: String,
    pub received: Vec<String>,
}

impl Exchange {
    /// The answer to the call: the response with its id, or an error the framing gave
    /// (`id: null`, a message that could not be read).
    pub fn answer(&self) -> Option<Value> {
        self.received
            .last()
            .and_then(|line| serde_json::from_str::<Value>(line).ok())
            .filter(answers_the_call)
    }
}

/// The `tools/call` request line. `arguments` is spliced in as given (one line), so that text
/// that is not JSON reaches the server, which answers it as it would any client.
pub fn request_line(tool: &str, arguments: &str) -> String {
    let arguments = arguments.replace(['\r', '\n'], " ");
    format!(
        r#"{{"jsonrpc":"2.0","id":{CALL_ID},"method":"tools/call","params":{{"name":{},"arguments":{arguments}}}}}"#,
        Value::from(tool)
    )
}

/// Talks to `server` as a stdio client: the handshake, then `request`.
pub async fn exchange(server: McpServer, request: String) -> Result<Exchange, String> {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (input, output) = tokio::io::split(theirs);
    let serving = tokio::spawn(serve_streams(server, input, output, MAX_STDIO_MESSAGE));
    let (reader, mut writer) = tokio::io::split(ours);
    let mut lines = BufReader::new(reader).lines();

    let talk = async {
        send(&mut writer, &initialize()).await?;
        let handshake = read_until(&mut lines, |v| v["id"] == 0).await?;
        if handshake
            .last()
            .and_then(|l| serde_json::from_str::<Value>(l).ok())
            .is_none_or(|v| v.get("result").is_none())
        {
            return Err(format!("the server refused the handshake: {}", handshake.join("\n")));
        }
        send(
            &mut writer,
            &json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string(),
        )
        .await?;
        send(&mut writer, &request).await?;
        read_until(&mut lines, answers_the_call).await
    };
    let received = tokio::time::timeout(PATIENCE, talk)
        .await
        .map_err(|_| format!("the server did not answer within {PATIENCE:?}"))?;
    // End of input ends the session, as a client closing stdin does.
    let _ = writer.shutdown().await;
    let _ = serving.await;
    Ok(Exchange {
        request,
        received: received?,
    })
}

fn initialize() -> String {
    json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": ProtocolVersion::LATEST_WITH_INITIALIZE,
            "capabilities": {},
            "clientInfo": { "name": "shacl-mcp call", "version": env!("CARGO_PKG_VERSION") },
        },
    })
    .to_string()
}

fn answers_the_call(message: &Value) -> bool {
    let is_answer = message.get("result").is_some() || message.get("error").is_some();
    is_answer && (message["id"] == CALL_ID || message["id"].is_null())
}

async fn send(writer: &mut WriteHalf<DuplexStream>, line: &str) -> Result<(), String> {
    let mut bytes = line.as_bytes().to_vec();
    bytes.push(b'\n');
    writer
        .write_all(&bytes)
        .await
        .map_err(|e| format!("cannot write to the server: {e}"))
}

/// The server's lines up to and including the first that `last` accepts.
async fn read_until(
    lines: &mut tokio::io::Lines<BufReader<ReadHalf<DuplexStream>>>,
    last: impl Fn(&Value) -> bool,
) -> Result<Vec<String>, String> {
    let mut read = Vec::new();
    loop {
        let line = lines
            .next_line()
            .await
            .map_err(|e| format!("cannot read from the server: {e}"))?
            .ok_or_else(|| format!("the server closed the session after {} line(s)", read.len()))?;
        let done = serde_json::from_str::<Value>(&line).is_ok_and(|v| last(&v));
        read.push(line);
        if done {
            return Ok(read);
        }
    }
}
