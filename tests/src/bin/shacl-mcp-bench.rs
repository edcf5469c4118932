//! The whole-server load driver (issue 8): real servers over stdio and HTTP, driven by rmcp's
//! client with one call in flight, each figure as calls/s, p50 and p99, and as a ratio to the
//! protocol floor measured in the same run (MCP `ping` through the same server, and
//! `get_my_did`, its cheapest tool call).
//!
//! `cargo run --release -p shacl-mcp-tests --bin shacl-mcp-bench -- [--calls N] [--big N]`
//! (build the servers first: `cargo build --release -p shacl-mcp -p tasks-server`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use shacl_mcp_tests::{Client, HttpServer, Lifecycle, object, stdio_client_for};

struct Figure {
    name: String,
    calls: usize,
    total: Duration,
    samples: Vec<Duration>,
}

impl Figure {
    fn rate(&self) -> f64 {
        self.calls as f64 / self.total.as_secs_f64()
    }
    fn percentile(&self, p: f64) -> Duration {
        let mut s = self.samples.clone();
        s.sort();
        let i = ((p * s.len() as f64).ceil() as usize).clamp(1, s.len()) - 1;
        s[i]
    }
}

async fn measure(
    name: &str,
    client: &Client,
    calls: usize,
    mut call: impl FnMut(usize) -> Option<(String, Value)>,
) -> Figure {
    let mut samples = Vec::with_capacity(calls);
    let warmup = calls / 10;
    let started = Instant::now();
    let mut measured = Duration::ZERO;
    for i in 0..(calls + warmup) {
        let t = Instant::now();
        match call(i) {
            None => {
                client
                    .peer()
                    .send_request(rmcp::model::ClientRequest::PingRequest(Default::default()))
                    .await
                    .expect("ping");
            }
            Some((tool, args)) => {
                let params = CallToolRequestParams::new(tool.clone()).with_arguments(object(args));
                let r = client.peer().call_tool(params).await.expect("call");
                assert_ne!(r.is_error, Some(true), "{tool}: {:?}", r.structured_content);
            }
        }
        if i >= warmup {
            let d = t.elapsed();
            samples.push(d);
            measured += d;
        }
    }
    let _ = started;
    Figure {
        name: name.to_string(),
        calls,
        total: measured,
        samples,
    }
}

fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("exe");
    exe.parent().expect("target/<profile>").to_path_buf()
}

fn shared(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/dna")
        .join(file)
        .display()
        .to_string()
}

fn report(transport: &str, figures: &[Figure]) {
    let floor = figures
        .iter()
        .find(|f| f.name == "ping")
        .map(Figure::rate)
        .unwrap_or(1.0);
    let tool_floor = figures
        .iter()
        .find(|f| f.name == "get_my_did")
        .map(Figure::rate)
        .unwrap_or(1.0);
    println!("\n{transport}: one call in flight, release build");
    println!(
        "{:<44} {:>10} {:>10} {:>10} {:>9} {:>12}",
        "call", "calls/s", "p50 µs", "p99 µs", "÷ ping", "÷ get_my_did"
    );
    for f in figures {
        println!(
            "{:<44} {:>10.0} {:>10} {:>10} {:>8.0}% {:>11.0}%",
            f.name,
            f.rate(),
            f.percentile(0.5).as_micros(),
            f.percentile(0.99).as_micros(),
            100.0 * f.rate() / floor,
            100.0 * f.rate() / tool_floor
        );
    }
}

async fn run_suite(client: &Client, compiled: Option<&Client>, calls: usize, big: usize) -> Vec<Figure> {
    let call = |tool: &str, args: Value| Some((tool.to_string(), args));
    let p = {
        let r = client
            .peer()
            .call_tool(CallToolRequestParams::new("add_perspective").with_arguments(object(json!({ "name": "Bench" }))))
            .await
            .unwrap();
        r.structured_content.unwrap()["uuid"].as_str().unwrap().to_string()
    };
    let mut figures = vec![
        measure("ping", client, calls, |_| None).await,
        measure("get_my_did", client, calls, |_| call("get_my_did", json!({}))).await,
        measure("tools/list (as a call: list_perspectives)", client, calls, |_| {
            call("list_perspectives", json!({}))
        })
        .await,
    ];
    // tools/list itself.
    let mut samples = Vec::new();
    let started = Instant::now();
    for _ in 0..calls {
        let t = Instant::now();
        client.peer().list_tools(Default::default()).await.unwrap();
        samples.push(t.elapsed());
    }
    figures.push(Figure {
        name: "tools/list".into(),
        calls,
        total: started.elapsed(),
        samples,
    });

    figures.push(
        measure("instance_create (validated, committed)", client, calls, |i| {
            call("instance_create", json!({ "perspective_id": p, "class_name": "Task", "properties": { "title": format!("t{i}"), "priority": 1 + i % 5, "status": if i % 100 == 0 { "done" } else { "open" } } }))
        })
        .await,
    );
    let created = client
        .peer()
        .call_tool(CallToolRequestParams::new("instance_create").with_arguments(object(
            json!({ "perspective_id": p, "class_name": "Task", "properties": { "title": "get me" } }),
        )))
        .await
        .unwrap();
    let id = created.structured_content.unwrap()["base_uri"]
        .as_str()
        .unwrap()
        .to_string();
    figures.push(
        measure("instance_get", client, calls, |_| {
            call(
                "instance_get",
                json!({ "perspective_id": p, "class_name": "Task", "base_uri": id }),
            )
        })
        .await,
    );
    figures.push(
        measure("task_create (interpreted per-class tool)", client, calls, |i| {
            call("task_create", json!({ "perspective_id": p, "title": format!("c{i}") }))
        })
        .await,
    );
    if let Some(compiled) = compiled {
        let cp = {
            let r = compiled
                .peer()
                .call_tool(
                    CallToolRequestParams::new("add_perspective").with_arguments(object(json!({ "name": "Bench" }))),
                )
                .await
                .unwrap();
            r.structured_content.unwrap()["uuid"].as_str().unwrap().to_string()
        };
        figures.push(
            measure("task_create (compiled per-class tool)", compiled, calls, |i| {
                call("task_create", json!({ "perspective_id": cp, "title": format!("c{i}") }))
            })
            .await,
        );
    }
    // Queries over `big` instances, 1% matching the filter.
    for n in [big / 10, big] {
        let q = {
            let r = client
                .peer()
                .call_tool(
                    CallToolRequestParams::new("add_perspective")
                        .with_arguments(object(json!({ "name": format!("Q{n}") }))),
                )
                .await
                .unwrap();
            r.structured_content.unwrap()["uuid"].as_str().unwrap().to_string()
        };
        let fill = Instant::now();
        for i in 0..n {
            let status = if i % 100 == 0 { "done" } else { "open" };
            client.peer().call_tool(CallToolRequestParams::new("instance_create").with_arguments(object(json!({ "perspective_id": q, "class_name": "Task", "properties": { "title": format!("q{i}"), "status": status } })))).await.unwrap();
        }
        eprintln!("filled {n} instances in {:?}", fill.elapsed());
        figures.push(measure(&format!("instance_query filter 1% of {n}, limit 100"), client, (calls / 20).max(20), |_| call("instance_query", json!({ "perspective_id": q, "class_name": "Task", "filter": { "status": "done" }, "limit": 100 }))).await);
    }
    figures
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let calls = arg("--calls", 2000);
    let big = arg("--big", 10_000);
    let dir = target_dir();
    let shacl = dir.join("shacl-mcp");
    let tasks_server = dir.join("tasks-server");
    let tasks = shared("tasks.json");
    println!(
        "machine: {} cores; calls per figure: {calls}; query sizes: {} and {big}",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        big / 10
    );

    let db = std::env::temp_dir().join(format!("shacl-mcp-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&db);
    let db1 = db.join("a.db").display().to_string();
    let db2 = db.join("b.db").display().to_string();
    let interpreted = stdio_client_for(
        &shacl,
        &[
            "serve",
            "--stdio",
            "--db",
            &db1,
            "--dna",
            &tasks,
            "--dynamic-class-tools",
            "true",
        ],
        Lifecycle::Legacy,
    )
    .await;
    let compiled = stdio_client_for(&tasks_server, &["--stdio", "--db", &db2], Lifecycle::Legacy).await;
    let figures = run_suite(&interpreted, Some(&compiled), calls, big).await;
    report("stdio", &figures);
    interpreted.cancel().await.ok();
    compiled.cancel().await.ok();

    let db3 = db.join("c.db").display().to_string();
    let server = HttpServer::start(&["--db", &db3, "--dna", &tasks, "--dynamic-class-tools", "true"]);
    let client = server.client(None, Lifecycle::Legacy).await;
    let figures = run_suite(&client, None, calls, big / 10).await;
    report("HTTP (stateless, JSON answers)", &figures);
    client.cancel().await.ok();
    let _ = std::fs::remove_dir_all(db);
}
