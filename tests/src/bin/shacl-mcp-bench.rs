//! The whole-server load driver (issue 8): real servers over stdio and HTTP, driven by rmcp's
//! client with one call in flight, each figure as calls/s, p50 and p99, the server's own time
//! (the `elapsed_us` of its `tools/call` log line), and as a ratio to the protocol floor measured
//! in the same run (MCP `ping` through the same server, `get_my_did`, its cheapest tool call, and
//! a plain rmcp server's no-op tool call, `shacl-mcp-noop`: issue 17's floor).
//!
//! ```text
//! cargo build --release -p shacl-mcp -p tasks-server -p shacl-mcp-tests   # shacl-mcp-noop too
//! target/release/shacl-mcp-bench [--only calls,idle,links,sparql,floor] [--calls N] [--rounds N]
//!     [--sizes 1000,10000,100000]
//!     [--http-sizes 1000] [--query-calls N] [--batch N] [--links N] [--idle-secs N]
//!     [--db-url postgres://…]
//! ```
//!
//! `--db-url` runs the `calls` and `sparql` sections' servers on that PostgreSQL database, each
//! server in a schema of its own (`?schema=bench_<name>_<time>`); `idle` and `links` stay on
//! SQLite files (they measure the file).
//!
//! Sections (`--only`, default calls, idle and links):
//! - `calls`: ping, get_my_did, tools/list, instance_create, instance_get, per-class create
//!   compiled versus interpreted, and instance_query with a filter matching 1% of each size, limit
//!   100, and with one matching 100 Tasks of each size (any of 100 titles). Query data is seeded through the server's own `execute_commands` tool, in batches of
//!   `--batch` instances per call, each instance the very links `instance_create` writes (read
//!   back from one real create with `query_links`), then checked with a query.
//! - `idle`: `serve --dna chat.json` over stdio and over HTTP, one handshake and one call, then
//!   VmRSS and VmHWM of the server process after `--idle-secs`.
//! - `links`: a database of about `--links` links (Tasks of 6 links each) seeded through a server
//!   with `execute_commands`, then a fresh server on that file: gets, queries, its VmHWM, and the
//!   size of the file.
//! - `sparql`: two-hop joins over Tasks in TodoLists.
//! - `floor`: issue 17's call-path ratios (instance_get and instance_create to the no-op tool
//!   call) over stdio and HTTP, the no-op server and ours measured in `--rounds` alternating
//!   rounds so the machine's drift falls on both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, ClientRequest};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};
use shacl_mcp_tests::{Client, object};

// ---------------------------------------------------------------------------------------------
// Servers: a child process, its client, its pid and its log.

/// One server process under test: stdio (a child rmcp drives) or HTTP (a child of ours).
struct Server {
    client: Client,
    pid: u32,
    log: PathBuf,
    http: Option<Killed>,
}

impl Server {
    async fn stdio(binary: &Path, args: &[&str], log: PathBuf) -> Server {
        let stderr = std::fs::File::create(&log).expect("log file");
        let (transport, _) = TokioChildProcess::builder(tokio::process::Command::new(binary).configure(|c| {
            c.args(args);
        }))
        .stderr(stderr)
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {}: {e}", binary.display()));
        let pid = transport.id().expect("pid");
        let client = ().serve_with_lifecycle(transport, ClientLifecycleMode::Initialize).await.expect("handshake");
        Server {
            client,
            pid,
            log,
            http: None,
        }
    }

    async fn http(binary: &Path, args: &[&str], log: PathBuf) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let child = Command::new(binary)
            .args(["serve", "--http", &format!("127.0.0.1:{port}")])
            .args(args)
            .env_remove("SHACL_MCP_ADMIN_CREDENTIAL")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", binary.display()));
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the HTTP server did not start");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let config = StreamableHttpClientTransportConfig::with_uri(format!("http://127.0.0.1:{port}/mcp"));
        let client = ()
            .serve_with_lifecycle(
                StreamableHttpClientTransport::from_config(config),
                ClientLifecycleMode::Initialize,
            )
            .await
            .expect("handshake");
        Server {
            pid: child.id(),
            client,
            log,
            http: Some(Killed(child)),
        }
    }

    async fn call(&self, tool: &str, args: Value) -> Value {
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(object(args));
        let r = self.client.peer().call_tool(params).await.expect("call");
        let content = r.structured_content.unwrap_or_default();
        assert_ne!(r.is_error, Some(true), "{tool}: {content}");
        content
    }

    async fn perspective(&self, name: &str) -> String {
        self.call("add_perspective", json!({ "name": name })).await["uuid"]
            .as_str()
            .expect("uuid")
            .to_string()
    }

    fn log_len(&self) -> u64 {
        std::fs::metadata(&self.log).map(|m| m.len()).unwrap_or(0)
    }

    /// The server's own times for `tool` from its log, after byte `from`.
    fn server_times(&self, from: u64, tool: &str) -> Vec<Duration> {
        let text = std::fs::read(&self.log).unwrap_or_default();
        let text = String::from_utf8_lossy(&text[(from as usize).min(text.len())..]).into_owned();
        let needle = format!("tool=\"{tool}\"");
        text.lines()
            .filter(|l| l.contains("kind=\"tools/call\"") && l.contains(&needle))
            .filter_map(|l| l.split("elapsed_us=").nth(1))
            .filter_map(|v| v.split_whitespace().next()?.parse().ok())
            .map(Duration::from_micros)
            .collect()
    }

    fn memory(&self) -> Memory {
        Memory::of(self.pid)
    }

    async fn stop(self) {
        self.client.cancel().await.ok();
        if self.http.is_some() {
            drop(self.http);
        } else {
            // stdio: the server ends at the end of its stdin; wait for it so the file is closed.
            let deadline = Instant::now() + Duration::from_secs(10);
            while Path::new(&format!("/proc/{}", self.pid)).exists() && Instant::now() < deadline {
                if std::fs::read_to_string(format!("/proc/{}/stat", self.pid))
                    .is_ok_and(|s| s.split_whitespace().nth(2) == Some("Z"))
                {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
}

/// An HTTP server process, killed when dropped (a panic included).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// VmRSS, VmHWM, RssAnon and RssFile of a process, in kB (Linux `/proc/<pid>/status`).
#[derive(Default)]
struct Memory {
    fields: BTreeMap<String, u64>,
}

impl Memory {
    fn of(pid: u32) -> Memory {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let fields = status
            .lines()
            .filter_map(|l| {
                let (k, v) = l.split_once(':')?;
                let kb = v.trim().strip_suffix(" kB")?.trim().parse().ok()?;
                Some((k.to_string(), kb))
            })
            .collect();
        Memory { fields }
    }

    fn mb(&self, key: &str) -> String {
        self.fields
            .get(key)
            .map_or("?".to_string(), |kb| format!("{:.1} MB", *kb as f64 / 1024.0))
    }

    fn line(&self) -> String {
        format!(
            "VmRSS {}, VmHWM {} (RssAnon {}, RssFile {})",
            self.mb("VmRSS"),
            self.mb("VmHWM"),
            self.mb("RssAnon"),
            self.mb("RssFile")
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Figures.

struct Figure {
    name: String,
    calls: usize,
    total: Duration,
    samples: Vec<Duration>,
    /// The server's own time per call (its log), when it logs the call.
    server: Vec<Duration>,
}

fn percentile(samples: &[Duration], p: f64) -> Option<Duration> {
    let mut s = samples.to_vec();
    s.sort();
    let i = ((p * s.len() as f64).ceil() as usize).clamp(1, s.len().max(1)) - 1;
    s.get(i).copied()
}

impl Figure {
    fn rate(&self) -> f64 {
        self.calls as f64 / self.total.as_secs_f64()
    }
    fn p(&self, p: f64) -> Duration {
        percentile(&self.samples, p).unwrap_or_default()
    }
}

/// One call: `None` is an MCP ping, `Some((tool, arguments))` a tool call.
type Call = Option<(String, Value)>;

/// `calls` calls one at a time after `calls / 10` of warm-up.
async fn measure(name: &str, server: &Server, calls: usize, mut call: impl FnMut(usize) -> Call) -> Figure {
    let mut samples = Vec::with_capacity(calls);
    let warmup = calls / 10;
    let mut measured = Duration::ZERO;
    let mut tool = None;
    let mut from = server.log_len();
    for i in 0..(calls + warmup) {
        if i == warmup {
            from = server.log_len();
        }
        let c = call(i);
        let t = Instant::now();
        match c {
            None => {
                server
                    .client
                    .peer()
                    .send_request(ClientRequest::PingRequest(Default::default()))
                    .await
                    .expect("ping");
            }
            Some((name, args)) => {
                let params = CallToolRequestParams::new(name.clone()).with_arguments(object(args));
                let r = server.client.peer().call_tool(params).await.expect("call");
                assert_ne!(r.is_error, Some(true), "{name}: {:?}", r.structured_content);
                tool = Some(name);
            }
        }
        if i >= warmup {
            let d = t.elapsed();
            samples.push(d);
            measured += d;
        }
    }
    // The log line is written before the answer: every measured call's line is in the file.
    let server_times = tool.map(|t| server.server_times(from, &t)).unwrap_or_default();
    Figure {
        name: name.to_string(),
        calls,
        total: measured,
        samples,
        server: server_times,
    }
}

/// The figure of the rmcp no-op server's tool call: issue 17's floor.
const NOOP_CALL: &str = "rmcp no-op server: tools/call noop";

/// The floors of a plain rmcp server ([`NOOP_CALL`] and its ping), measured beside ours.
async fn noop_floors(o: &Options, http: bool) -> Vec<Figure> {
    let binary = o.bin.join("shacl-mcp-noop");
    let server = match http {
        false => Server::stdio(&binary, &["--stdio"], o.log("noop")).await,
        true => Server::http(&binary, &[], o.log("noop-http")).await,
    };
    let figures = vec![
        measure("rmcp no-op server: ping", &server, o.calls, |_| None).await,
        measure(NOOP_CALL, &server, o.calls, |_| Some(("noop".into(), json!({})))).await,
    ];
    server.stop().await;
    figures
}

fn report(title: &str, figures: &[Figure]) {
    let find = |n: &str| figures.iter().find(|f| f.name == n);
    let floor = find("ping").map(Figure::rate).unwrap_or(f64::NAN);
    let tool_floor = find("get_my_did").map(Figure::rate).unwrap_or(f64::NAN);
    let noop = find(NOOP_CALL).map(Figure::rate).unwrap_or(f64::NAN);
    let ping_p50 = find("ping").map(|f| f.p(0.5)).unwrap_or_default();
    println!("\n{title}");
    println!(
        "{:<48} {:>9} {:>10} {:>10} {:>11} {:>8} {:>12} {:>8}",
        "call", "calls/s", "p50 µs", "p99 µs", "server p50", "÷ ping", "÷ get_my_did", "÷ no-op"
    );
    for f in figures {
        let server = percentile(&f.server, 0.5).map_or("-".to_string(), |d| d.as_micros().to_string());
        println!(
            "{:<48} {:>9.1} {:>10} {:>10} {:>11} {:>7.1}% {:>11.1}% {:>7.1}%",
            f.name,
            f.rate(),
            f.p(0.5).as_micros(),
            f.p(0.99).as_micros(),
            server,
            100.0 * f.rate() / floor,
            100.0 * f.rate() / tool_floor,
            100.0 * f.rate() / noop
        );
    }
    println!(
        "(÷ no-op: to {NOOP_CALL}, a plain rmcp server's tool call measured in this run; \
         issue 17's targets are instance_get >= 85% and instance_create >= 50% of it)"
    );
    println!(
        "(server p50: the server's own `elapsed_us` of each call's log line, from tool lookup to the result value, \
         before serialisation and transport; without it, p50 − ping p50 = p50 − {} µs is the estimate)",
        ping_p50.as_micros()
    );
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

// ---------------------------------------------------------------------------------------------
// Seeding through the server.

/// The links `instance_create` wrote for one Task with `properties`, read back with query_links:
/// (predicate, target) pairs every seeded instance copies.
async fn template(server: &Server, p: &str, properties: Value) -> Vec<(String, String)> {
    let created = server
        .call(
            "instance_create",
            json!({ "perspective_id": p, "class_name": "Task", "properties": properties }),
        )
        .await;
    let base = created["base_uri"].as_str().expect("base_uri").to_string();
    let links = server
        .call(
            "query_links",
            json!({ "perspective_id": p, "source": base, "limit": 1000 }),
        )
        .await;
    links["links"]
        .as_array()
        .expect("links")
        .iter()
        .map(|l| {
            (
                l["predicate"].as_str().unwrap().to_string(),
                l["target"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A minted-looking id (`ad4m://obj/` and 24 lowercase letters), the same for the same `i`.
fn seeded_id(tag: u64, i: usize) -> String {
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut x = (u128::from(mix(tag ^ i as u64)) << 64) | u128::from(mix(!(i as u64) ^ tag.rotate_left(17)));
    let mut s = String::from("ad4m://obj/");
    for _ in 0..24 {
        s.push((b'a' + (x % 26) as u8) as char);
        x /= 26;
    }
    s
}

/// Seeds `n` Tasks copying `template` through `execute_commands`, `batch` per call; the title is
/// `q<i>` and the status "done" for every 100th (1%), "open" otherwise. Returns the ids.
async fn seed(
    server: &Server,
    p: &str,
    template: &[(String, String)],
    n: usize,
    batch: usize,
    tag: u64,
) -> Vec<String> {
    let started = Instant::now();
    let ids: Vec<String> = (0..n).map(|i| seeded_id(tag, i)).collect();
    let mut links = 0u64;
    for chunk in (0..n).collect::<Vec<_>>().chunks(batch.max(1)) {
        let mut commands = Vec::with_capacity(chunk.len() * template.len());
        for &i in chunk {
            for (predicate, target) in template {
                let target = match predicate.as_str() {
                    "todo://title" => format!("literal:string:q{i}"),
                    "todo://status" if i % 100 == 0 => target.replace("open", "done"),
                    _ => target.clone(),
                };
                commands
                    .push(json!({ "action": "addLink", "source": ids[i], "predicate": predicate, "target": target }));
            }
        }
        let r = server
            .call(
                "execute_commands",
                json!({ "perspective_id": p, "expression_address": ids[chunk[0]], "commands": commands }),
            )
            .await;
        links += r["links_added"].as_u64().unwrap_or(0);
    }
    let took = started.elapsed();
    println!(
        "seeded {n} instances ({links} links) through execute_commands, {batch} per call, in {:.1} s ({:.0} links/s)",
        took.as_secs_f64(),
        links as f64 / took.as_secs_f64()
    );
    // The seeded Tasks read back as Tasks: 1% done, every title there.
    let done = server
        .call(
            "instance_query",
            json!({ "perspective_id": p, "class_name": "Task", "filter": { "status": "done" }, "limit": 1 }),
        )
        .await;
    assert_eq!(done["total_count"].as_u64(), Some(n.div_ceil(100) as u64), "{done}");
    if let Some(last) = ids.last() {
        let got = server
            .call(
                "instance_get",
                json!({ "perspective_id": p, "class_name": "Task", "base_uri": last }),
            )
            .await;
        assert_eq!(got["title"], json!(format!("q{}", n - 1)), "{got}");
    }
    ids
}

fn query_call(p: &str) -> Call {
    Some((
        "instance_query".into(),
        json!({ "perspective_id": p, "class_name": "Task", "filter": { "status": "done" }, "limit": 100 }),
    ))
}

/// A filter matching 100 of `n` seeded Tasks: any of 100 titles spread over them.
fn hundred_call(p: &str, n: usize) -> Call {
    let step = (n / 100).max(1);
    let titles: Vec<String> = (0..n.min(100)).map(|k| format!("q{}", k * step)).collect();
    Some((
        "instance_query".into(),
        json!({ "perspective_id": p, "class_name": "Task", "filter": { "title": titles }, "limit": 100 }),
    ))
}

// ---------------------------------------------------------------------------------------------
// Sections.

struct Options {
    calls: usize,
    sizes: Vec<usize>,
    http_sizes: Vec<usize>,
    query_calls: usize,
    /// Alternating rounds of the `floor` section.
    rounds: usize,
    batch: usize,
    links: usize,
    idle: Duration,
    bin: PathBuf,
    scratch: PathBuf,
    /// A PostgreSQL url for the `calls` and `sparql` sections (`--db-url`); SQLite files without.
    db_url: Option<String>,
    stamp: u64,
}

impl Options {
    fn shacl(&self) -> PathBuf {
        self.bin.join("shacl-mcp")
    }
    fn db(&self, name: &str) -> String {
        self.scratch.join(name).display().to_string()
    }
    /// The store of a `calls` or `sparql` server: a schema of its own on `--db-url`, else a file.
    fn store(&self, name: &str) -> String {
        match &self.db_url {
            Some(url) => {
                let separator = if url.contains('?') { '&' } else { '?' };
                let schema = name
                    .trim_end_matches(".db")
                    .replace(|c: char| !c.is_ascii_alphanumeric(), "_");
                format!("{url}{separator}schema=bench_{schema}_{}", self.stamp)
            }
            None => self.db(name),
        }
    }
    fn log(&self, name: &str) -> PathBuf {
        self.scratch.join(format!("{name}.log"))
    }
}

async fn floors(server: &Server, calls: usize) -> Vec<Figure> {
    vec![
        measure("ping", server, calls, |_| None).await,
        measure("get_my_did", server, calls, |_| Some(("get_my_did".into(), json!({})))).await,
    ]
}

async fn run_suite(o: &Options, server: &Server, compiled: Option<&Server>, sizes: &[usize]) -> Vec<Figure> {
    let calls = o.calls;
    let call = |tool: &str, args: Value| Some((tool.to_string(), args));
    let p = server.perspective("Bench").await;
    let mut figures = floors(server, calls).await;
    figures.push(
        measure("list_perspectives", server, calls, |_| {
            call("list_perspectives", json!({}))
        })
        .await,
    );
    // tools/list itself (an MCP request, not a tool call: no server time).
    let mut samples = Vec::new();
    for _ in 0..calls {
        let t = Instant::now();
        server.client.peer().list_tools(Default::default()).await.unwrap();
        samples.push(t.elapsed());
    }
    figures.push(Figure {
        name: "tools/list".into(),
        calls,
        total: samples.iter().sum(),
        samples,
        server: Vec::new(),
    });

    figures.push(
        measure("instance_create (validated, committed)", server, calls, |i| {
            call("instance_create", json!({ "perspective_id": p, "class_name": "Task", "properties": { "title": format!("t{i}"), "priority": 1 + i % 5, "status": if i % 100 == 0 { "done" } else { "open" } } }))
        })
        .await,
    );
    let created = server
        .call(
            "instance_create",
            json!({ "perspective_id": p, "class_name": "Task", "properties": { "title": "get me" } }),
        )
        .await;
    let id = created["base_uri"].as_str().unwrap().to_string();
    figures.push(
        measure("instance_get", server, calls, |_| {
            call(
                "instance_get",
                json!({ "perspective_id": p, "class_name": "Task", "base_uri": id }),
            )
        })
        .await,
    );
    figures.push(
        measure("task_create (interpreted per-class tool)", server, calls, |i| {
            call("task_create", json!({ "perspective_id": p, "title": format!("c{i}") }))
        })
        .await,
    );
    if let Some(compiled) = compiled {
        let cp = compiled.perspective("Bench").await;
        figures.push(
            measure("task_create (compiled per-class tool)", compiled, calls, |i| {
                call("task_create", json!({ "perspective_id": cp, "title": format!("c{i}") }))
            })
            .await,
        );
    }
    // instance_query, a filter matching 1% of n Tasks, limit 100; each size in its own perspective.
    for (k, &n) in sizes.iter().enumerate() {
        let q = server.perspective(&format!("Q{n}")).await;
        let links = template(server, &q, json!({ "title": "template", "status": "open" })).await;
        seed(server, &q, &links, n, o.batch, k as u64 + 1).await;
        figures.push(
            measure(
                &format!("instance_query filter 1% of {n}, limit 100"),
                server,
                o.query_calls,
                |_| query_call(&q),
            )
            .await,
        );
        if let Some((tool, args)) = hundred_call(&q, n) {
            let r = server.call(&tool, args).await;
            assert_eq!(r["total_count"].as_u64(), Some(n.min(100) as u64), "{r}");
        }
        figures.push(
            measure(
                &format!("instance_query filter 100 of {n}, limit 100"),
                server,
                o.query_calls,
                |_| hundred_call(&q, n),
            )
            .await,
        );
    }
    figures
}

async fn section_calls(o: &Options) {
    let tasks = shared("tasks.json");
    println!("\n## calls (load before: {})", load());
    let interpreted = Server::stdio(
        &o.shacl(),
        &[
            "serve",
            "--stdio",
            "--db",
            &o.store("a.db"),
            "--dna",
            &tasks,
            "--dynamic-class-tools",
            "true",
        ],
        o.log("a"),
    )
    .await;
    let compiled = Server::stdio(
        &o.bin.join("tasks-server"),
        &["--stdio", "--db", &o.store("b.db")],
        o.log("b"),
    )
    .await;
    let mut figures = noop_floors(o, false).await;
    figures.extend(run_suite(o, &interpreted, Some(&compiled), &o.sizes).await);
    report(
        &format!("stdio: one call in flight, release build (load after: {})", load()),
        &figures,
    );
    println!("stdio server after the suite: {}", interpreted.memory().line());
    interpreted.stop().await;
    compiled.stop().await;

    let server = Server::http(
        &o.shacl(),
        &[
            "--db",
            &o.store("c.db"),
            "--dna",
            &tasks,
            "--dynamic-class-tools",
            "true",
        ],
        o.log("c"),
    )
    .await;
    let mut figures = noop_floors(o, true).await;
    figures.extend(run_suite(o, &server, None, &o.http_sizes).await);
    report(
        &format!(
            "HTTP (stateless, JSON answers): one call in flight, release build (load after: {})",
            load()
        ),
        &figures,
    );
    println!("HTTP server after the suite: {}", server.memory().line());
    server.stop().await;
}

/// Issue 17's call-path targets measured robustly: the rmcp no-op server and ours run side by
/// side and are measured in alternating rounds (`--rounds`, `--calls` calls a figure), so a
/// drift of the machine within the run falls on both; each ratio is the median of the rounds'
/// ratios, with the lowest and highest beside it.
async fn section_floor(o: &Options) {
    let tasks = shared("tasks.json");
    for http in [false, true] {
        let noop_binary = o.bin.join("shacl-mcp-noop");
        let (noop, ours) = match http {
            false => (
                Server::stdio(&noop_binary, &["--stdio"], o.log("floor-noop")).await,
                Server::stdio(
                    &o.shacl(),
                    &["serve", "--stdio", "--db", &o.store("floor-a.db"), "--dna", &tasks],
                    o.log("floor-a"),
                )
                .await,
            ),
            true => (
                Server::http(&noop_binary, &[], o.log("floor-noop-http")).await,
                Server::http(
                    &o.shacl(),
                    &["--db", &o.store("floor-c.db"), "--dna", &tasks],
                    o.log("floor-c"),
                )
                .await,
            ),
        };
        let p = ours.perspective("Floor").await;
        let got = ours
            .call(
                "instance_create",
                json!({ "perspective_id": p, "class_name": "Task", "properties": { "title": "get me" } }),
            )
            .await;
        let id = got["base_uri"].as_str().expect("base_uri").to_string();
        let get = || {
            let args = json!({ "perspective_id": p, "class_name": "Task", "base_uri": id });
            move |_| Some(("instance_get".to_string(), args.clone()))
        };
        let mut made = 0usize;
        let mut rounds: Vec<[Figure; 3]> = Vec::new();
        for _ in 0..o.rounds {
            let floor = measure(NOOP_CALL, &noop, o.calls, |_| Some(("noop".into(), json!({})))).await;
            let got = measure("instance_get", &ours, o.calls, get()).await;
            let created = measure("instance_create (validated, committed)", &ours, o.calls, |_| {
                made += 1;
                let properties = json!({ "title": format!("f{made}"), "priority": 1 + made % 5, "status": "open" });
                Some((
                    "instance_create".into(),
                    json!({ "perspective_id": p, "class_name": "Task", "properties": properties }),
                ))
            })
            .await;
            rounds.push([floor, got, created]);
        }
        let transport = if http {
            "HTTP (stateless, JSON answers)"
        } else {
            "stdio"
        };
        println!(
            "\n{transport}: {} alternating rounds of {} calls each (no-op, instance_get, instance_create), load after: {}",
            o.rounds,
            o.calls,
            load()
        );
        floor_report(&rounds);
        noop.stop().await;
        ours.stop().await;
    }
}

/// The medians over rounds of each figure and of its ratio to the same round's no-op call.
fn floor_report(rounds: &[[Figure; 3]]) {
    let median = |mut v: Vec<f64>| -> (f64, f64, f64) {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0], v[v.len() - 1])
    };
    println!(
        "{:<40} {:>9} {:>9} {:>9} {:>11} {:>9} {:>22}",
        "call", "calls/s", "p50 µs", "p99 µs", "server p50", "p99÷p50", "÷ no-op (lo..hi)"
    );
    for k in 0..3 {
        let of = |f: &dyn Fn(&[Figure; 3]) -> f64| median(rounds.iter().map(f).collect());
        let rate = of(&|r| r[k].rate()).0;
        let p50 = of(&|r| r[k].p(0.5).as_secs_f64() * 1e6).0;
        let p99 = of(&|r| r[k].p(0.99).as_secs_f64() * 1e6).0;
        let spread = of(&|r| r[k].p(0.99).as_secs_f64() / r[k].p(0.5).as_secs_f64()).0;
        let server = rounds.iter().flat_map(|r| r[k].server.clone()).collect::<Vec<_>>();
        let server = percentile(&server, 0.5).map_or("-".to_string(), |d| d.as_micros().to_string());
        let (ratio, lo, hi) = of(&|r| 100.0 * r[k].rate() / r[0].rate());
        println!(
            "{:<40} {:>9.1} {:>9.0} {:>9.0} {:>11} {:>8.1}x {:>7.1}% ({:.0}..{:.0}%)",
            rounds[0][k].name, rate, p50, p99, server, spread, ratio, lo, hi
        );
    }
    println!(
        "(medians over the rounds; ÷ no-op: each round's rate over the same round's no-op rate; issue 17's targets: \
         instance_get >= 85%, instance_create >= 50%, create p99÷p50 <= 5x)"
    );
}

/// sparql_query over a perspective of `--sizes`' largest number of Tasks, each in one of
/// n/10 TodoLists: two-hop joins (list → item → title, from a bound list; and task → the list
/// holding it → that list's name), against the ping of the same server.
async fn section_sparql(o: &Options) {
    let n = *o.sizes.iter().max().expect("a size");
    println!("\n## sparql over {n} Tasks (load before: {})", load());
    let tasks = shared("tasks.json");
    let server = Server::stdio(
        &o.shacl(),
        &["serve", "--stdio", "--db", &o.store("sparql.db"), "--dna", &tasks],
        o.log("sparql"),
    )
    .await;
    let p = server.call("add_perspective", json!({ "name": "sparql" })).await["uuid"]
        .as_str()
        .expect("uuid")
        .to_string();
    let template = template(&server, &p, json!({ "title": "template", "status": "open" })).await;
    let ids = seed(&server, &p, &template, n, o.batch, 0x5a_a2_c1).await;
    let lists: Vec<String> = (0..n.div_ceil(10)).map(|k| seeded_id(0x11_57, k)).collect();
    let per_call = o.batch.max(1) / 10 + 1;
    for (c, chunk) in lists.chunks(per_call).enumerate() {
        let mut commands = Vec::new();
        for (j, list) in chunk.iter().enumerate() {
            let k = c * per_call + j;
            commands.push(
                json!({ "action": "addLink", "source": list, "predicate": "rdf://type", "target": "todo://TodoList" }),
            );
            commands.push(json!({ "action": "addLink", "source": list, "predicate": "todo://list_name", "target": format!("literal:string:L{k}") }));
            for task in ids.iter().skip(k * 10).take(10) {
                commands
                    .push(json!({ "action": "addLink", "source": list, "predicate": "todo://item", "target": task }));
            }
        }
        server
            .call(
                "execute_commands",
                json!({ "perspective_id": p, "expression_address": chunk[0], "commands": commands }),
            )
            .await;
    }
    let calls = o.query_calls.max(20) * 10;
    let list_titles = |i: usize| {
        let list = &lists[(i * 7919) % lists.len()];
        let query = format!("SELECT ?title WHERE {{ <{list}> <todo://item> ?t . ?t <todo://title> ?title }}");
        Some((
            "sparql_query".to_string(),
            json!({ "perspective_id": p, "query": query }),
        ))
    };
    let task_list = |i: usize| {
        let task = &ids[(i * 7919) % ids.len()];
        let query = format!("SELECT ?name WHERE {{ ?l <todo://item> <{task}> ; <todo://list_name> ?name }}");
        Some((
            "sparql_query".to_string(),
            json!({ "perspective_id": p, "query": query }),
        ))
    };
    // Every query answers what the seeding wrote: 10 titles, 1 list name.
    let first = server.call("sparql_query", list_titles(0).expect("call").1).await;
    assert_eq!(
        first["results"]["bindings"].as_array().map(Vec::len),
        Some(10),
        "{first}"
    );
    let figures = vec![
        measure("ping", &server, calls, |_| None).await,
        measure("sparql: list -> items -> titles (10 rows)", &server, calls, list_titles).await,
        measure("sparql: task <- list -> name (1 row)", &server, calls, task_list).await,
    ];
    report(
        &format!(
            "stdio, {n} Tasks in {} lists, release build (load after: {})",
            lists.len(),
            load()
        ),
        &figures,
    );
    server.stop().await;
}

async fn section_idle(o: &Options) {
    let chat = shared("chat.json");
    println!(
        "\n## idle memory: serve --dna chat.json, one handshake and one call, then {:?} idle (load {})",
        o.idle,
        load()
    );
    for transport in ["stdio", "http"] {
        let db = o.db(&format!("idle-{transport}.db"));
        let log = o.log(&format!("idle-{transport}"));
        let server = if transport == "stdio" {
            Server::stdio(&o.shacl(), &["serve", "--stdio", "--dna", &chat, "--db", &db], log).await
        } else {
            Server::http(&o.shacl(), &["--dna", &chat, "--db", &db], log).await
        };
        server.call("get_my_did", json!({})).await;
        tokio::time::sleep(o.idle).await;
        println!("{transport:<6} {}", server.memory().line());
        server.stop().await;
    }
    println!("(target of issue 8: under 30 MB)");
}

async fn section_links(o: &Options) {
    let tasks = shared("tasks.json");
    let db = o.db("links.db");
    println!(
        "\n## {} links: seeded through a server, then served by a fresh one (load {})",
        o.links,
        load()
    );
    let seeder = Server::stdio(
        &o.shacl(),
        &["serve", "--stdio", "--db", &db, "--dna", &tasks],
        o.log("seed"),
    )
    .await;
    let p = seeder.perspective("Links").await;
    let links = template(
        &seeder,
        &p,
        json!({ "title": "template", "status": "open", "priority": 3, "dueDate": "2026-12-01T10:00:00Z", "tags": ["bench"] }),
    )
    .await;
    let per = links.len();
    let n = o.links.div_ceil(per);
    println!("a Task of this shape is {per} links; seeding {n} Tasks");
    let ids = seed(&seeder, &p, &links, n, o.batch, 99).await;
    println!("seeding server at the end: {}", seeder.memory().line());
    seeder.stop().await;
    let size = |suffix: &str| std::fs::metadata(format!("{db}{suffix}")).map_or(0, |m| m.len());
    println!(
        "database after the seeding server closed: {:.1} MB (+ WAL {:.1} MB, shm {:.1} MB), {:.0} bytes per link",
        size("") as f64 / 1e6,
        size("-wal") as f64 / 1e6,
        size("-shm") as f64 / 1e6,
        (size("") + size("-wal")) as f64 / (n * per) as f64
    );

    let server = Server::stdio(
        &o.shacl(),
        &["serve", "--stdio", "--db", &db, "--dna", &tasks],
        o.log("links"),
    )
    .await;
    server.call("get_my_did", json!({})).await;
    println!("fresh server on that file, after one call: {}", server.memory().line());
    let mut figures = floors(&server, o.calls).await;
    let call = |tool: &str, args: Value| Some((tool.to_string(), args));
    figures.push(
        measure("instance_get (random ids)", &server, o.calls, |i| {
            let id = &ids[seeded_index(i, ids.len())];
            call(
                "instance_get",
                json!({ "perspective_id": p, "class_name": "Task", "base_uri": id }),
            )
        })
        .await,
    );
    figures.push(
        measure("query_links (status done, limit 100)", &server, o.calls / 10, |_| {
            call(
                "query_links",
                json!({ "perspective_id": p, "predicate": "todo://status", "target": "literal:string:done", "limit": 100 }),
            )
        })
        .await,
    );
    figures.push(
        measure(
            &format!("instance_query filter 1% of {n}, limit 100"),
            &server,
            o.query_calls,
            |_| query_call(&p),
        )
        .await,
    );
    report(&format!("stdio, {} links (load after: {})", n * per, load()), &figures);
    println!(
        "server on {} links after these calls: {}",
        n * per,
        server.memory().line()
    );
    server.stop().await;
    println!(
        "database file: {:.1} MB (+ WAL {:.1} MB)",
        size("") as f64 / 1e6,
        size("-wal") as f64 / 1e6
    );
}

fn seeded_index(i: usize, n: usize) -> usize {
    (i.wrapping_mul(2_654_435_761) ^ (i >> 3)) % n.max(1)
}

fn shared(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../dna")
        .join(file)
        .display()
        .to_string()
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpu
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("?".to_string(), |(_, m)| m.trim().to_string());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().strip_suffix(" kB")?.trim().parse::<f64>().ok())
        .map_or("?".to_string(), |kb| format!("{:.0} GiB", kb / 1048576.0));
    format!(
        "{model}, {} cores, {mem}",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
    )
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let number = |name: &str, default: usize| value(name).and_then(|v| v.parse().ok()).unwrap_or(default);
    let list = |name: &str| -> Option<Vec<usize>> {
        value(name)
            .map(|v| {
                v.split(',')
                    .filter_map(|s| s.trim().replace('_', "").parse().ok())
                    .filter(|&n: &usize| n > 0)
                    .collect::<Vec<usize>>()
            })
            .filter(|l| !l.is_empty())
    };
    // `--big N` (the older flag) is `--sizes N/10,N`.
    let sizes = list("--sizes")
        .or_else(|| list("--big").map(|b| vec![(b[0] / 10).max(1), b[0]]))
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let exe = std::env::current_exe().expect("exe");
    let scratch = std::env::temp_dir().join(format!("shacl-mcp-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let o = Options {
        calls: number("--calls", 2000),
        rounds: number("--rounds", 7).max(1),
        http_sizes: list("--http-sizes").unwrap_or_else(|| vec![sizes[0]]),
        sizes,
        query_calls: number("--query-calls", 10),
        batch: number("--batch", 1000),
        links: number("--links", 1_000_000),
        idle: Duration::from_secs(number("--idle-secs", 2) as u64),
        bin: exe.parent().expect("target/<profile>").to_path_buf(),
        scratch,
        db_url: value("--db-url"),
        stamp: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    };
    let only = value("--only").unwrap_or_else(|| "calls,idle,links".into());
    println!("machine: {}; load average {}", machine(), load());
    if let Some(url) = &o.db_url {
        println!("calls and sparql sections on PostgreSQL: {url} (a schema per server)");
    }
    println!(
        "calls per figure: {} (queries: {}), 10% warm-up first; query sizes: stdio {:?}, HTTP {:?}; seeding batch: {}",
        o.calls, o.query_calls, o.sizes, o.http_sizes, o.batch
    );
    for section in only.split(',') {
        match section.trim() {
            "calls" => section_calls(&o).await,
            "idle" => section_idle(&o).await,
            "links" => section_links(&o).await,
            "sparql" => section_sparql(&o).await,
            "floor" => section_floor(&o).await,
            other => panic!("unknown section {other}: calls, idle, links, sparql or floor"),
        }
    }
    println!("\nload average at the end: {}", load());
    let _ = std::fs::remove_dir_all(&o.scratch);
}
