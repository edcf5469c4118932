//! The scale-out figure: calls per second of one `serve --http` node versus three on one
//! PostgreSQL database, with the same clients spread over the nodes (round robin, as a load
//! balancer would), and one node on SQLite for reference.
//!
//! `shacl-mcp-scale --db postgres://… [--clients 12] [--seconds 10] [--own-perspectives]`; every
//! run uses schemas of its own. Writers of one perspective take turns (its lock), so
//! `--own-perspectives` shows what independent tenants get. Each client loops `task_create` then `task_get` of what it made (stateless HTTP,
//! 2026-07-28 lifecycle); the figure counts both calls.

use std::time::{Duration, Instant};

use serde_json::json;
use shacl_mcp_tests::*;

struct Options {
    db: String,
    clients: usize,
    seconds: u64,
    /// Each client writes to a perspective of its own (writers of one perspective take turns).
    own_perspectives: bool,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        db: std::env::var("SHACL_MCP_TEST_POSTGRES").unwrap_or_default(),
        clients: 12,
        seconds: 10,
        own_perspectives: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--db" => options.db = value()?,
            "--clients" => options.clients = value()?.parse().map_err(|e| format!("--clients: {e}"))?,
            "--seconds" => options.seconds = value()?.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--own-perspectives" => options.own_perspectives = true,
            _ => {
                return Err(format!(
                    "unknown flag {flag}; usage: shacl-mcp-scale --db postgres://… [--clients N] [--seconds S]"
                ));
            }
        }
    }
    if options.db.is_empty() {
        return Err("give a PostgreSQL url: --db postgres://… (or SHACL_MCP_TEST_POSTGRES)".into());
    }
    Ok(options)
}

/// What one configuration did.
struct Figure {
    calls: usize,
    errors: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

impl Figure {
    fn per_second(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64()
    }

    fn percentile(&mut self, p: f64) -> u128 {
        self.latencies.sort();
        let i = ((self.latencies.len() as f64 - 1.0) * p).round() as usize;
        self.latencies.get(i).map_or(0, |d| d.as_micros())
    }
}

async fn drive(nodes: &[HttpServer], options: &Options) -> Figure {
    let (clients, seconds) = (options.clients, options.seconds);
    let setup = nodes[0].client(None, Lifecycle::Modern).await;
    let mut perspectives = Vec::new();
    for _ in 0..if options.own_perspectives { clients } else { 1 } {
        let p = ok(&setup, "add_perspective", json!({ "name": "Scale" })).await["uuid"]
            .as_str()
            .unwrap()
            .to_string();
        perspectives.push(p);
    }
    let mut workers = Vec::new();
    let until = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    for c in 0..clients {
        let client = nodes[c % nodes.len()].client(None, Lifecycle::Modern).await;
        let p = perspectives[c % perspectives.len()].clone();
        workers.push(tokio::spawn(async move {
            let (mut calls, mut errors, mut latencies) = (0, 0, Vec::new());
            let mut i = 0;
            while Instant::now() < until {
                i += 1;
                let t = Instant::now();
                let mut params = rmcp::model::CallToolRequestParams::new("task_create");
                params = params.with_arguments(object(json!({ "perspective_id": p, "title": format!("c{c} t{i}") })));
                let created = match client.call_tool(params).await {
                    Ok(r) if r.is_error != Some(true) => r.structured_content.unwrap_or_default(),
                    _ => {
                        errors += 1;
                        continue;
                    }
                };
                latencies.push(t.elapsed());
                let t = Instant::now();
                let mut params = rmcp::model::CallToolRequestParams::new("task_get");
                params = params.with_arguments(object(
                    json!({ "perspective_id": p, "expression_address": created["base_uri"] }),
                ));
                match client.call_tool(params).await {
                    Ok(r) if r.is_error != Some(true) => latencies.push(t.elapsed()),
                    _ => errors += 1,
                }
                calls += 2;
            }
            (calls, errors, latencies)
        }));
    }
    let mut figure = Figure {
        calls: 0,
        errors: 0,
        elapsed: Duration::ZERO,
        latencies: Vec::new(),
    };
    for w in workers {
        let (calls, errors, latencies) = w.await.expect("worker");
        figure.calls += calls;
        figure.errors += errors;
        figure.latencies.extend(latencies);
    }
    figure.elapsed = started.elapsed();
    figure
}

fn start(count: usize, db: &str) -> Vec<HttpServer> {
    let tasks = shared_dna("tasks.json");
    let quiet = [("SHACL_MCP_LOG", "warn")];
    (0..count)
        .map(|_| HttpServer::start_with_env(&["--db", db, "--dna", &tasks, "--dynamic-class-tools", "true"], &quiet))
        .collect()
}

#[tokio::main]
async fn main() {
    let options = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let separator = if options.db.contains('?') { '&' } else { '?' };
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "machine: {cores} cores; {} clients ({}), {} s per figure; task_create + task_get per round; all processes on this machine\n",
        options.clients,
        if options.own_perspectives {
            "a perspective each"
        } else {
            "one perspective"
        },
        options.seconds
    );
    println!(
        "{:<40} {:>9} {:>8} {:>8} {:>7} {:>7}",
        "configuration", "calls/s", "p50 µs", "p99 µs", "errors", "÷ 1 pg"
    );
    let scratch = TempDir::new("scale");
    let sqlite = scratch.0.join("store.db").display().to_string();
    let mut baseline = None;
    for (label, count, db) in [
        ("1 node, SQLite (reference)", 1, sqlite),
        (
            "1 node, PostgreSQL",
            1,
            format!("{}{separator}schema=scale_1_{stamp}", options.db),
        ),
        (
            "3 nodes, PostgreSQL",
            3,
            format!("{}{separator}schema=scale_3_{stamp}", options.db),
        ),
    ] {
        let nodes = start(count, &db);
        let mut figure = drive(&nodes, &options).await;
        let rate = figure.per_second();
        if count == 1 && db.starts_with("postgres") {
            baseline = Some(rate);
        }
        let ratio = baseline.map_or("".to_string(), |b| format!("{:.0}%", 100.0 * rate / b));
        println!(
            "{label:<40} {rate:>9.0} {:>8} {:>8} {:>7} {ratio:>7}",
            figure.percentile(0.5),
            figure.percentile(0.99),
            figure.errors
        );
    }
}
