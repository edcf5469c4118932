//! stdio: newline-delimited JSON-RPC with the framing layer of docs/errors.md in front of rmcp.
//!
//! rmcp's own reader skips lines it cannot parse without answering, so this reads stdin
//! itself: every line is parsed once and checked ([`super::framing::parse`]). A refused line is
//! answered here; a `tools/call` goes straight to the handler (docs/design.md, The call path),
//! with no second parse and no pipe; anything else is handed to rmcp through an in-memory pipe.
//! One writer task owns stdout, and everything written goes to it as whole lines (rmcp's
//! answers and notifications included), so answers never interleave within a line and a
//! notification sent during a call is written before the call's answer.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};

use rmcp::model::{RequestId, ServerJsonRpcMessage};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer, Service, ServiceExt};
use std::io::{Read, Write};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::McpServer;
use super::framing::{self, MAX_STDIO_MESSAGE, Refusal, ToolCall};

/// Serves on the process's stdin and stdout until stdin ends.
///
/// Each has a thread of its own rather than tokio's `stdin()`/`stdout()`, which hand every read,
/// write and flush to the blocking pool: a thread switch there and back each time, a few of them
/// per call. Here a line read costs one wake-up of the reader task and an answer one of the
/// writer thread.
pub async fn serve_stdio(server: McpServer) -> std::io::Result<()> {
    let (lines, outbox) = mpsc::channel::<Vec<u8>>(256);
    let writer = tokio::task::spawn_blocking(move || write_stdout(outbox));
    serve(server, StdinChunks::spawn()?, lines, writer, MAX_STDIO_MESSAGE).await
}

/// Serves on any pair of streams (tests use pipes).
pub async fn serve_streams<R, W>(server: McpServer, input: R, output: W, max_message: usize) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
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
    serve(server, input, lines, writer, max_message).await
}

/// The session over `input`, every line out through `lines` to the `writer` that owns the
/// output (it ends when every sender of `lines` is gone).
async fn serve<R>(
    server: McpServer,
    input: R,
    lines: mpsc::Sender<Vec<u8>>,
    writer: tokio::task::JoinHandle<()>,
    max_message: usize,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    let (to_rmcp, rmcp_in) = tokio::io::duplex(1 << 16);

    // The session's peer once rmcp has opened it: until then every line goes to rmcp, which
    // runs the lifecycle (initialize, or the first request of the 2026-07-28 one).
    let session = Arc::new(OnceLock::new());
    let calls = Calls {
        server: server.clone(),
        session: session.clone(),
        answers: lines.clone(),
        in_flight: Arc::default(),
    };
    let reader = tokio::spawn(read_input(input, to_rmcp, lines.clone(), calls, max_message));
    let service = server.serve((rmcp_in, LineSink::new(lines))).await;
    match service {
        Ok(running) => {
            let _ = session.set(running.peer().clone());
            let _ = running.waiting().await;
        }
        Err(e) => tracing::info!(kind = "stdio", reason = %e, "session ended before it started"),
    }
    reader.abort();
    let _ = writer.await;
    Ok(())
}

/// Reads lines of at most `max` bytes; refuses what framing refuses, runs tool calls, and
/// passes the rest on to rmcp.
async fn read_input<R: AsyncRead + Unpin>(
    input: R,
    mut to_rmcp: tokio::io::DuplexStream,
    answers: mpsc::Sender<Vec<u8>>,
    calls: Calls,
    max: usize,
) {
    let mut input = BufReader::with_capacity(1 << 16, input);
    let mut running = JoinSet::new();
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
                match framing::parse(trimmed) {
                    Ok(message) => {
                        if let Some(id) = message.cancels() {
                            calls.cancel(&id);
                        }
                        let message = match calls.peer() {
                            Some(peer) => match message.into_tool_call() {
                                Ok(call) => {
                                    running.spawn(calls.clone().run(peer, call));
                                    while running.try_join_next().is_some() {}
                                    continue;
                                }
                                Err(message) => message,
                            },
                            None => message,
                        };
                        drop(message);
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
    // End of input: the calls under way answer, then rmcp sees end of stream and the service
    // stops (after answering its own).
    while running.join_next().await.is_some() {}
    let _ = to_rmcp.shutdown().await;
}

/// The tool calls of the session that the framing layer routes to the handler itself.
#[derive(Clone)]
struct Calls {
    server: McpServer,
    session: Arc<OnceLock<Peer<RoleServer>>>,
    answers: mpsc::Sender<Vec<u8>>,
    /// Calls under way by id, with whether the client cancelled them.
    in_flight: Arc<Mutex<HashMap<RequestId, Arc<AtomicBool>>>>,
}

impl Calls {
    fn peer(&self) -> Option<Peer<RoleServer>> {
        self.session.get().cloned()
    }

    /// A `notifications/cancelled` for a call under way: like rmcp, no answer is sent for it.
    fn cancel(&self, id: &RequestId) {
        if let Some(flag) = self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).get(id) {
            flag.store(true, Ordering::Relaxed);
        }
    }

    /// One call through rmcp's own request handling for a `CallToolRequest` (the checks of the
    /// request's `_meta` and lifecycle, then the handler's `call_tool`), answered as rmcp's
    /// service loop answers it.
    async fn run(self, peer: Peer<RoleServer>, call: ToolCall) {
        let (id, request, meta, extensions) = call.into_rmcp();
        let cancelled = Arc::new(AtomicBool::new(false));
        self.in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), cancelled.clone());
        let mut context = RequestContext::new(id.clone(), peer);
        context.meta = meta;
        context.extensions = extensions;
        let answer = match Service::<RoleServer>::handle_request(&self.server, request, context).await {
            Ok(result) => ServerJsonRpcMessage::response(result, id.clone()),
            Err(error) => ServerJsonRpcMessage::error(error, Some(id.clone())),
        };
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
        if cancelled.load(Ordering::Relaxed) {
            tracing::debug!(kind = "stdio", %id, "no answer for a cancelled call");
            return;
        }
        match serde_json::to_vec(&answer) {
            Ok(line) => {
                let _ = self.answers.send(line).await;
            }
            Err(e) => tracing::error!(kind = "internal", error = %e, "an answer could not be written"),
        }
    }
}

/// rmcp's output as whole lines into the writer's queue (rmcp writes each message followed by
/// a newline, in as many pieces as it likes): a notification is queued by the time its send
/// returns.
struct LineSink {
    lines: mpsc::Sender<Vec<u8>>,
    pending: Vec<u8>,
    reserving: Option<Reserve>,
}

type Reserve = Pin<Box<dyn Future<Output = Result<mpsc::OwnedPermit<Vec<u8>>, mpsc::error::SendError<()>>> + Send>>;

impl LineSink {
    fn new(lines: mpsc::Sender<Vec<u8>>) -> Self {
        LineSink {
            lines,
            pending: Vec::new(),
            reserving: None,
        }
    }

    /// Queues every complete line of `pending`; `Pending` while the queue is full.
    fn poll_lines(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let reserve = self
                .reserving
                .get_or_insert_with(|| Box::pin(self.lines.clone().reserve_owned()));
            let permit = match reserve.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(permit) => permit,
            };
            self.reserving = None;
            let Ok(permit) = permit else {
                return Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into()));
            };
            let mut line: Vec<u8> = self.pending.drain(..=end).collect();
            while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                line.pop();
            }
            if !line.is_empty() {
                permit.send(line);
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for LineSink {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<std::io::Result<usize>> {
        match self.poll_lines(cx) {
            Poll::Ready(Ok(())) => {
                self.pending.extend_from_slice(data);
                Poll::Ready(Ok(data.len()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.poll_lines(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.poll_lines(cx)
    }
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

/// Writes each line of `outbox` to stdout with its newline, until the outbox closes or stdout
/// does. A line is one `write` (std's stdout writes through at a newline).
fn write_stdout(mut outbox: mpsc::Receiver<Vec<u8>>) {
    let mut stdout = std::io::stdout().lock();
    while let Some(mut line) = outbox.blocking_recv() {
        line.push(b'\n');
        if stdout.write_all(&line).and_then(|()| stdout.flush()).is_err() {
            break;
        }
    }
}

/// stdin as an [`AsyncRead`] fed by a thread that reads it (a plain thread, not the blocking
/// pool: it may stay blocked in `read` after the session ends, which must not hold up the
/// runtime's shutdown).
struct StdinChunks {
    chunks: mpsc::Receiver<std::io::Result<Vec<u8>>>,
    current: Vec<u8>,
    read: usize,
}

impl StdinChunks {
    fn spawn() -> std::io::Result<StdinChunks> {
        let (sender, chunks) = mpsc::channel(16);
        std::thread::Builder::new().name("stdin".into()).spawn(move || {
            let mut stdin = std::io::stdin().lock();
            let mut buffer = vec![0u8; 1 << 16];
            loop {
                let chunk = match stdin.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => Ok(buffer[..n].to_vec()),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => Err(e),
                };
                let failed = chunk.is_err();
                if sender.blocking_send(chunk).is_err() || failed {
                    break;
                }
            }
        })?;
        Ok(StdinChunks {
            chunks,
            current: Vec::new(),
            read: 0,
        })
    }
}

impl AsyncRead for StdinChunks {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        while self.read == self.current.len() {
            match self.chunks.poll_recv(cx) {
                Poll::Pending => return Poll::Pending,
                // End of input.
                Poll::Ready(None) => return Poll::Ready(Ok(())),
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(e)),
                Poll::Ready(Some(Ok(chunk))) => {
                    self.current = chunk;
                    self.read = 0;
                }
            }
        }
        let n = buf.remaining().min(self.current.len() - self.read);
        let from = self.read;
        buf.put_slice(&self.current[from..from + n]);
        self.read += n;
        Poll::Ready(Ok(()))
    }
}
