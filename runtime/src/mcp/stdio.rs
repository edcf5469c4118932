//! stdio: newline-delimited JSON-RPC with the framing layer of docs/errors.md in front of rmcp.
//!
//! rmcp's own reader skips lines it cannot parse without answering, so this reads stdin
//! itself: every line is checked ([`super::framing::check`]) and either answered here or handed
//! to rmcp through an in-memory pipe. One writer task owns stdout, so answers from here and
//! from rmcp never interleave within a line. End of input is a clean shutdown.

use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::McpServer;
use super::framing::{self, MAX_STDIO_MESSAGE, Refusal};

/// Serves on the process's stdin and stdout until stdin ends.
pub async fn serve_stdio(server: McpServer) -> std::io::Result<()> {
    serve_streams(server, tokio::io::stdin(), tokio::io::stdout(), MAX_STDIO_MESSAGE).await
}

/// Serves on any pair of streams (tests use pipes).
pub async fn serve_streams<R, W>(server: McpServer, input: R, output: W, max_message: usize) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to_rmcp, rmcp_in) = tokio::io::duplex(1 << 16);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 16);
    let (lines, mut outbox) = mpsc::channel::<Vec<u8>>(256);

    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(mut line) = outbox.recv().await {
            line.push(b'\n');
            if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });

    // rmcp's answers, line by line, to the writer.
    let relay = {
        let lines = lines.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(from_rmcp);
            let mut line = Vec::new();
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                            line.pop();
                        }
                        if !line.is_empty() && lines.send(line.clone()).await.is_err() {
                            break;
                        }
                    }
                }
            }
        })
    };

    let reader = tokio::spawn(read_input(input, to_rmcp, lines, max_message));
    let service = server.serve((rmcp_in, rmcp_out)).await;
    match service {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(e) => tracing::info!(kind = "stdio", reason = %e, "session ended before it started"),
    }
    reader.abort();
    let _ = relay.await;
    let _ = writer.await;
    Ok(())
}

/// Reads lines of at most `max` bytes; refuses what framing refuses and passes the rest on.
async fn read_input<R: AsyncRead + Unpin>(
    input: R,
    mut to_rmcp: tokio::io::DuplexStream,
    answers: mpsc::Sender<Vec<u8>>,
    max: usize,
) {
    let mut input = BufReader::with_capacity(1 << 16, input);
    loop {
        match next_line(&mut input, max).await {
            Ok(Line::End) => break,
            Ok(Line::TooLarge) => {
                tracing::warn!(kind = "framing", "message larger than {max} bytes dropped");
                let _ = answers.send(json_line(&Refusal::too_large(max))).await;
            }
            Ok(Line::Text(bytes)) => {
                let trimmed = trim(&bytes);
                if trimmed.is_empty() {
                    continue;
                }
                match framing::check(trimmed) {
                    Ok(_) => {
                        let mut forwarded = trimmed.to_vec();
                        forwarded.push(b'\n');
                        if to_rmcp.write_all(&forwarded).await.is_err() {
                            break;
                        }
                    }
                    Err(refusal) => {
                        tracing::warn!(kind = "framing", code = refusal.code, "{}", refusal.message);
                        let _ = answers.send(json_line(&refusal)).await;
                    }
                }
            }
            Err(_) => break,
        }
    }
    // End of input: rmcp sees end of stream and the service stops.
    let _ = to_rmcp.shutdown().await;
}

enum Line {
    Text(Vec<u8>),
    TooLarge,
    End,
}

/// One line without buffering more than `max` bytes of it.
async fn next_line<R: AsyncRead + Unpin>(input: &mut BufReader<R>, max: usize) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut too_large = false;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok(match (line.is_empty(), too_large) {
                (_, true) => Line::TooLarge,
                (true, false) => Line::End,
                (false, false) => Line::Text(line),
            });
        }
        let (chunk, found) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_large {
            if line.len() + chunk.len() > max {
                too_large = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let consumed = found.unwrap_or(buf.len());
        input.consume(consumed);
        if found.is_some() {
            return Ok(if too_large { Line::TooLarge } else { Line::Text(line) });
        }
    }
}

fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    &bytes[start..end]
}

fn json_line(refusal: &Refusal) -> Vec<u8> {
    serde_json::to_vec(&refusal.to_json()).unwrap_or_default()
}
