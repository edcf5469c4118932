//! One stdio line through the whole handler: the framing checks, then (when they pass) a
//! session over in-memory pipes (initialize, initialized, the line), and for tools/call the
//! handler's `call` directly too. Nothing may panic, the session must end when input ends, every
//! output line is JSON, and the line gets at most one answer (exactly the refusal framing gives
//! when framing refuses it).
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use shacl_mcp::mcp::auth::Caller;
use shacl_mcp::mcp::framing::{self, MAX_STDIO_MESSAGE};
use shacl_mcp::mcp::stdio::serve_streams;
use shacl_mcp_fuzz::WORLD;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const INIT_ID: &str = "fuzz-harness-initialize";

fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(start, |i| i + 1);
    &bytes[start..end]
}

fuzz_target!(|data: &[u8]| {
    // One line: everything up to the first newline.
    let line = match data.iter().position(|b| *b == b'\n') {
        Some(i) => &data[..i],
        None => data,
    };
    let world = &*WORLD;
    let trimmed = trim(line);
    let checked = if trimmed.is_empty() { None } else { Some(framing::check(trimmed)) };

    world.runtime.block_on(async {
        // Straight into the handler for tools/call messages that pass framing.
        if let Some(Ok(message)) = &checked
            && message.get("method").and_then(Value::as_str) == Some("tools/call")
            && let Some(params) = message.get("params")
            && let Some(name) = params.get("name").and_then(Value::as_str)
        {
            let arguments = params.get("arguments").and_then(Value::as_object).cloned();
            let result = world.server.call(name, arguments, Caller::Stdio).await;
            // Whatever comes back serializes.
            match result {
                Ok(r) => drop(serde_json::to_value(&r).expect("result serializes")),
                Err(e) => drop(serde_json::to_value(&e).expect("error serializes")),
            }
        }

        // The session.
        let (mut client_out, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, mut client_in) = tokio::io::duplex(1 << 20);
        let session = tokio::spawn(serve_streams(world.server.clone(), server_in, server_out, MAX_STDIO_MESSAGE));
        let mut input = Vec::new();
        input.extend_from_slice(
            format!(
                r#"{{"jsonrpc":"2.0","id":"{INIT_ID}","method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"fuzz","version":"0"}}}}}}"#
            )
            .as_bytes(),
        );
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        input.extend_from_slice(line);
        input.push(b'\n');
        let reader = tokio::spawn(async move {
            let mut out = Vec::new();
            let _ = client_in.read_to_end(&mut out).await;
            out
        });
        client_out.write_all(&input).await.expect("write input");
        client_out.shutdown().await.expect("close input");
        let output = tokio::time::timeout(Duration::from_secs(30), reader)
            .await
            .expect("the session did not end 30 s after its input ended")
            .expect("reader task");
        let _ = tokio::time::timeout(Duration::from_secs(30), session)
            .await
            .expect("serve_streams did not return");
        drop(client_out);

        let mut init_answers = 0;
        let mut answers = Vec::new();
        for out_line in output.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let value: Value = serde_json::from_slice(out_line)
                .unwrap_or_else(|e| panic!("output line is not JSON ({e}): {}", String::from_utf8_lossy(out_line)));
            let is_answer = value.get("result").is_some() || value.get("error").is_some();
            if !is_answer {
                continue; // a notification (list changed, progress)
            }
            if value.get("id") == Some(&Value::from(INIT_ID)) && value.get("result").is_some() && init_answers == 0 {
                init_answers += 1;
            } else {
                answers.push(value);
            }
        }
        assert_eq!(init_answers, 1, "initialize answered once; output: {}", String::from_utf8_lossy(&output));
        assert!(answers.len() <= 1, "more than one answer to one line: {answers:?}");
        match &checked {
            None => assert!(answers.is_empty(), "an empty line was answered: {answers:?}"),
            Some(Err(refusal)) => {
                assert_eq!(answers.len(), 1, "a refused line gets exactly one answer");
                assert_eq!(answers[0], refusal.to_json(), "the refusal framing gives");
            }
            Some(Ok(message)) => {
                // A notification is never answered.
                if message.get("id").is_none() {
                    assert!(answers.is_empty(), "a notification was answered: {answers:?}");
                }
            }
        }
    });
});
