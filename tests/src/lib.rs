//! The end-to-end harness: the built `shacl-mcp` binary, started as a real server, driven by
//! rmcp's client over stdio (child process) and streamable HTTP, in both lifecycles.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Map, Value};
use std::sync::Arc;

pub type Client = RunningService<RoleClient, ()>;

/// The `shacl-mcp` binary: `$SHACL_MCP_BIN`, else the one beside this test in the target
/// folder (`cargo test --workspace` builds it), built on demand when missing.
pub fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("SHACL_MCP_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("test executable");
    // Tests run from target/<profile>/deps, binaries (the bench driver) from target/<profile>.
    let parent = exe.parent().expect("target/<profile>");
    let dir = if parent.ends_with("deps") {
        parent.parent().expect("target/<profile>")
    } else {
        parent
    };
    let bin = dir.join(format!("shacl-mcp{}", std::env::consts::EXE_SUFFIX));
    if !bin.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "-p", "shacl-mcp", "--bin", "shacl-mcp"])
            .status()
            .expect("cargo build");
        assert!(status.success(), "building shacl-mcp failed");
    }
    bin
}

pub fn shared_dna(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../dna")
        .join(file)
        .display()
        .to_string()
}

/// Which handshake the client speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lifecycle {
    /// `initialize` / `notifications/initialized`.
    Legacy,
    /// 2026-07-28: `server/discover` and per-request `_meta`.
    Modern,
}

impl Lifecycle {
    pub const BOTH: [Lifecycle; 2] = [Lifecycle::Legacy, Lifecycle::Modern];

    fn mode(self) -> ClientLifecycleMode {
        match self {
            Lifecycle::Legacy => ClientLifecycleMode::Initialize,
            Lifecycle::Modern => ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        }
    }
}

/// `serve --stdio` with `args`, as a child process speaking to rmcp's client.
pub async fn stdio_client(args: &[&str], lifecycle: Lifecycle) -> Client {
    stdio_client_with((), args, lifecycle).await
}

/// [`stdio_client`] with a client handler of the test's own (to see notifications).
pub async fn stdio_client_with<H: ClientHandler>(
    handler: H,
    args: &[&str],
    lifecycle: Lifecycle,
) -> RunningService<RoleClient, H> {
    let transport = TokioChildProcess::new(tokio::process::Command::new(binary()).configure(|c| {
        c.arg("serve").arg("--stdio").args(args);
    }))
    .expect("spawn shacl-mcp");
    handler
        .serve_with_lifecycle(transport, lifecycle.mode())
        .await
        .expect("handshake")
}

/// Counts `notifications/tools/list_changed` of the legacy lifecycle.
#[derive(Clone, Default)]
pub struct ListChanged {
    pub seen: Arc<tokio::sync::Notify>,
    pub count: Arc<std::sync::atomic::AtomicUsize>,
}

impl ClientHandler for ListChanged {
    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.seen.notify_one();
    }
}

/// A `serve --http` process on a free loopback port; killed on drop.
pub struct HttpServer {
    child: Child,
    pub port: u16,
    /// Where the server's stderr (its log) goes, when captured.
    pub log: Option<PathBuf>,
}

impl HttpServer {
    pub fn start(args: &[&str]) -> HttpServer {
        Self::start_with_env(args, &[])
    }

    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        Self::launch(args, env, None)
    }

    /// Starts with stderr written to `log`.
    pub fn start_logged(args: &[&str], env: &[(&str, &str)], log: PathBuf) -> HttpServer {
        Self::launch(args, env, Some(log))
    }

    fn launch(args: &[&str], env: &[(&str, &str)], log: Option<PathBuf>) -> HttpServer {
        let port = free_port();
        let mut command = Command::new(binary());
        command
            .arg("serve")
            .arg("--http")
            .arg(format!("127.0.0.1:{port}"))
            .args(args);
        command.env_remove("SHACL_MCP_ADMIN_CREDENTIAL");
        for (k, v) in env {
            command.env(k, v);
        }
        let stderr = match &log {
            Some(path) => Stdio::from(std::fs::File::create(path).expect("log file")),
            None => Stdio::inherit(),
        };
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("spawn");
        let mut server = HttpServer { child, port, log };
        let deadline = Instant::now() + Duration::from_secs(20);
        while !server.listening() {
            assert!(Instant::now() < deadline, "the HTTP server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    /// Whether the server is up: a connection to its port that is not the socket connected to
    /// itself (Linux picks the target port as the source port now and then when nothing listens
    /// on it yet, and the connect then succeeds). Panics when the server has exited.
    fn listening(&mut self) -> bool {
        if let Ok(Some(status)) = self.child.try_wait() {
            let log = self
                .log
                .as_ref()
                .map(|path| std::fs::read_to_string(path).unwrap_or_default());
            panic!("the HTTP server exited before listening ({status}): {log:?}");
        }
        TcpStream::connect(("127.0.0.1", self.port))
            .is_ok_and(|stream| stream.local_addr().ok() != stream.peer_addr().ok())
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    pub async fn client(&self, token: Option<&str>, lifecycle: Lifecycle) -> Client {
        self.client_with((), token, lifecycle).await
    }

    pub async fn client_with<H: ClientHandler>(
        &self,
        handler: H,
        token: Option<&str>,
        lifecycle: Lifecycle,
    ) -> RunningService<RoleClient, H> {
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.url());
        if let Some(token) = token {
            config = config.auth_header(token);
        }
        let transport = StreamableHttpClientTransport::from_config(config);
        handler
            .serve_with_lifecycle(transport, lifecycle.mode())
            .await
            .expect("handshake")
    }

    /// One raw HTTP/1.1 POST to /mcp: (status, body). A refused connection is retried for a
    /// few seconds and then reported with the server process's state: CI saw a connection
    /// refused by a server that had logged it was listening, and nothing after it.
    pub fn post(&self, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
        match connect_patiently(self.port) {
            Ok(stream) => exchange(stream, self.port, headers, body),
            Err(e) => {
                let state = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
                    .ok()
                    .and_then(|status| status.lines().find(|l| l.starts_with("State:")).map(str::to_string));
                panic!(
                    "connect to the server on port {}: {e}; its process: {state:?}",
                    self.port
                )
            }
        }
    }
}

impl HttpServer {
    /// Stops the server (SIGKILL) and waits for it.
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A port nothing listens on, and that no other server of this test process was given: the
/// tests of one binary run in parallel, and the system may give two of them the same free port
/// before either server has bound it (one test's clients then reached the other's server).
fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .expect("bind")
            .local_addr()
            .expect("addr")
            .port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

/// A POST with default MCP headers unless overridden; reads the whole response.
pub fn raw_post(port: u16, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    let stream = connect_patiently(port).expect("connect");
    exchange(stream, port, headers, body)
}

/// A connection to the port, a refused one retried for up to 5 s.
fn connect_patiently(port: u16) -> std::io::Result<TcpStream> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// Sends the POST on `stream` and reads the whole response: (status, body).
fn exchange(mut stream: TcpStream, port: u16, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    stream.set_read_timeout(Some(Duration::from_secs(20))).ok();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    let has = |name: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    if !has("host") {
        head.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    if !has("accept") {
        head.push_str("Accept: application/json, text/event-stream\r\n");
    }
    if !has("content-type") {
        head.push_str("Content-Type: application/json\r\n");
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
    let mut response = Vec::new();
    let _ = std::io::Read::read_to_end(&mut stream, &mut response);
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// A `serve --stdio` process driven line by line, for framing tests.
pub struct RawStdio {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl RawStdio {
    pub fn start(args: &[&str]) -> RawStdio {
        let mut child = Command::new(binary())
            .arg("serve")
            .arg("--stdio")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        RawStdio { child, stdin, stdout }
    }

    pub fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// The next line of stdout as JSON (every line must be JSON: stdout is the protocol).
    pub fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout carried a non-JSON line {line:?}: {e}"))
    }

    /// A request, and its answer.
    pub fn request(&mut self, message: Value) -> Value {
        self.send(message.to_string().as_bytes());
        self.recv()
    }

    pub fn initialize(&mut self) {
        let answer = self.request(serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}));
        assert!(answer.get("result").is_some(), "{answer}");
        self.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    /// Closes stdin and waits for the exit status.
    pub fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("wait")
    }
}

impl Drop for RawStdio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Calls a tool with JSON arguments.
pub async fn call<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    tool: &str,
    arguments: Value,
) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_string());
    if let Value::Object(o) = arguments {
        params = params.with_arguments(o);
    }
    client.call_tool(params).await.unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// The structured result of a successful call.
pub async fn ok<H: ClientHandler>(client: &RunningService<RoleClient, H>, tool: &str, arguments: Value) -> Value {
    let result = call(client, tool, arguments).await;
    assert_ne!(
        result.is_error,
        Some(true),
        "{tool} failed: {:?}",
        result.structured_content
    );
    result.structured_content.expect("structuredContent")
}

/// The structured body of a tool error.
pub async fn tool_error<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    tool: &str,
    arguments: Value,
) -> Value {
    let result = call(client, tool, arguments).await;
    assert_eq!(
        result.is_error,
        Some(true),
        "{tool} should fail: {:?}",
        result.structured_content
    );
    result.structured_content.expect("structuredContent")
}

pub fn object(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// Any server binary (one `shacl-mcp new` wrote and cargo built, say), started with `args` as a
/// child process speaking to rmcp's client over stdio.
pub async fn stdio_client_for(binary: &Path, args: &[&str], lifecycle: Lifecycle) -> Client {
    let transport = TokioChildProcess::new(tokio::process::Command::new(binary).configure(|c| {
        c.args(args);
    }))
    .unwrap_or_else(|e| panic!("spawn {}: {e}", binary.display()));
    ().serve_with_lifecycle(transport, lifecycle.mode())
        .await
        .expect("handshake")
}

/// A binary of another workspace package (an example server), beside this test in the target
/// folder. `cargo build -p PACKAGE --bin NAME` runs once per test process first: `cargo test
/// --workspace` builds a package's binary only when that package has integration tests of its
/// own, and a binary left over from an older build would be stale.
pub fn workspace_binary(package: &str, name: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let exe = std::env::current_exe().expect("test executable");
    let dir = exe.parent().and_then(Path::parent).expect("target/<profile>");
    let bin = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !built.iter().any(|b| b == name) {
        let mut command = Command::new(env!("CARGO"));
        command.args(["build", "-p", package, "--bin", name]);
        if dir.file_name().is_some_and(|p| p == "release") {
            command.arg("--release");
        }
        let status = command.status().expect("cargo build");
        assert!(status.success(), "building {package} failed");
        built.push(name.to_string());
    }
    bin
}

/// A folder under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "shacl-mcp-e2e-{label}-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&path).expect("temp dir");
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Multi-user mode with `--email-outbox DIR`: the 6-digit code of the newest message to `to`
/// (the body reads "Your code to … is: 123456").
pub fn outbox_code(outbox: &Path, to: &str) -> String {
    let mut files: Vec<PathBuf> = std::fs::read_dir(outbox)
        .expect("outbox")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .collect();
    files.sort();
    let text = files
        .iter()
        .rev()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .find(|t| t.contains(&format!("\r\nTo: {to}\r\n")))
        .unwrap_or_else(|| panic!("no mail to {to} in {}", outbox.display()));
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or_default();
    let at = body.find(": ").map(|i| i + 2).expect("a code in the body");
    let code = body[at..].chars().take(6).collect::<String>();
    assert!(code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()), "{code:?}");
    code
}
