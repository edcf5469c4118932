//! The scale figures of `serve --http` under concurrent clients: calls per second of one node
//! on SQLite, of one node on PostgreSQL and of three nodes on one PostgreSQL database (clients
//! spread round robin over the nodes, as a load balancer would), for each client count asked for,
//! each figure also as a ratio to the same configuration's first client count (`--clients 1,16`:
//! 16 clients against one).
//!
//! `shacl-mcp-scale [--db postgres://…] [--clients 1,16] [--seconds 10] [--own-perspectives]
//! [--creates-only] [--configs sqlite,pg1,pg3]`; without a PostgreSQL url (`--db` or
//! `SHACL_MCP_TEST_POSTGRES`) only SQLite runs. Every figure starts fresh nodes on a database of
//! its own (a new SQLite file, a new PostgreSQL schema). Writers of one perspective take turns
//! (its lock), so `--own-perspectives` shows what independent tenants get. Each client loops
//! `task_create` then `task_get` of what it made (stateless HTTP, 2026-07-28 lifecycle) and the
//! figure counts both calls; with `--creates-only` it loops `task_create` alone. The server p50
//! is the servers' own `elapsed_us` of the calls (tool lookup to result, lock waits included).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;
use shacl_mcp_tests::*;

struct Options {
    db: String,
    clients: Vec<usize>,
    seconds: u64,
    /// Each client writes to a perspective of its own (writers of one perspective take turns).
    own_perspectives: bool,
    creates_only: bool,
    configs: Vec<String>,
}

const USAGE: &str = "usage: shacl-mcp-scale [--db postgres://…] [--clients 1,16] [--seconds S] \
                     [--own-perspectives] [--creates-only] [--configs sqlite,pg1,pg3]";

fn options() -> Result<Options, String> {
    let mut options = Options {
        db: std::env::var("SHACL_MCP_TEST_POSTGRES").unwrap_or_default(),
        clients: vec![12],
        seconds: 10,
        own_perspectives: false,
        creates_only: false,
        configs: Vec::new(),
    };
    let list = |v: String| -> Vec<String> {
        v.split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--db" => options.db = value()?,
            "--clients" => {
                options.clients = list(value()?)
                    .iter()
                    .map(|c| c.parse().map_err(|e| format!("--clients: {e}")))
                    .collect::<Result<_, _>>()?
            }
            "--seconds" => options.seconds = value()?.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--own-perspectives" => options.own_perspectives = true,
            "--creates-only" => options.creates_only = true,
            "--configs" => options.configs = list(value()?),
            _ => return Err(format!("unknown flag {flag}; {USAGE}")),
        }
    }
    if options.clients.is_empty() || options.clients.contains(&0) {
        return Err(format!("--clients needs counts above 0; {USAGE}"));
    }
    if options.configs.is_empty() {
        options.configs = vec!["sqlite".into()];
        if !options.db.is_empty() {
            options.configs.extend(["pg1".into(), "pg3".into()]);
        }
    }
    for c in &options.configs {
        match c.as_str() {
            "sqlite" => {}
            "pg1" | "pg3" if options.db.is_empty() => {
                return Err(format!(
                    "{c} needs a PostgreSQL url: --db postgres://… (or SHACL_MCP_TEST_POSTGRES)"
                ));
            }
            "pg1" | "pg3" => {}
            other => return Err(format!("unknown configuration {other}; {USAGE}")),
        }
    }
    Ok(options)
}

/// What one configuration did.
struct Figure {
    calls: usize,
    errors: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
    server: Vec<Duration>,
}

fn percentile(samples: &mut [Duration], p: f64) -> u128 {
    samples.sort();
    let i = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples.get(i).map_or(0, |d| d.as_micros())
}

impl Figure {
    fn per_second(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64()
    }
}

/// The `elapsed_us` of the `tools/call` lines of `tool` in a server's log.
fn server_times(log: &PathBuf, tool: &str) -> Vec<Duration> {
    let text = String::from_utf8_lossy(&std::fs::read(log).unwrap_or_default()).into_owned();
    let needle = format!("tool=\"{tool}\"");
    text.lines()
        .filter(|l| l.contains("kind=\"tools/call\"") && l.contains(&needle))
        .filter_map(|l| l.split("elapsed_us=").nth(1))
        .filter_map(|v| v.split_whitespace().next()?.parse().ok())
        .map(Duration::from_micros)
        .collect()
}

async fn drive(nodes: &[HttpServer], clients: usize, options: &Options) -> Figure {
    let seconds = options.seconds;
    let creates_only = options.creates_only;
    let setup = nodes[0].client(None, Lifecycle::Modern).await;
    let mut perspectives = Vec::new();
    for _ in 0..if options.own_perspectives { clients } else { 1 } {
        let p = ok(&setup, "add_perspective", json!({ "name": "Scale" })).await["uuid"]
            .as_str()
            .unwrap()
            .to_string();
        perspectives.push(p);
    }
    // Every client's connection is up before the clock starts.
    let mut connected = Vec::new();
    for c in 0..clients {
        connected.push(nodes[c % nodes.len()].client(None, Lifecycle::Modern).await);
    }
    let mut workers = Vec::new();
    let until = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    for (c, client) in connected.into_iter().enumerate() {
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
                calls += 1;
                if creates_only {
                    continue;
                }
                let t = Instant::now();
                let mut params = rmcp::model::CallToolRequestParams::new("task_get");
                params = params.with_arguments(object(
                    json!({ "perspective_id": p, "expression_address": created["base_uri"] }),
                ));
                match client.call_tool(params).await {
                    Ok(r) if r.is_error != Some(true) => {
                        latencies.push(t.elapsed());
                        calls += 1;
                    }
                    _ => errors += 1,
                }
            }
            (calls, errors, latencies)
        }));
    }
    let mut figure = Figure {
        calls: 0,
        errors: 0,
        elapsed: Duration::ZERO,
        latencies: Vec::new(),
        server: Vec::new(),
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

fn start(count: usize, db: &str, logs: &std::path::Path, label: &str) -> Vec<HttpServer> {
    let tasks = shared_dna("tasks.json");
    (0..count)
        .map(|i| {
            HttpServer::start_logged(
                &["--db", db, "--dna", &tasks, "--dynamic-class-tools", "true"],
                &[],
                logs.join(format!("{label}-{i}.log")),
            )
        })
        .collect()
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
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
        "machine: {cores} cores; clients {:?} ({}), {} s per figure; {}; all processes on this machine; load {}\n",
        options.clients,
        if options.own_perspectives {
            "a perspective each"
        } else {
            "one perspective"
        },
        options.seconds,
        if options.creates_only {
            "task_create only"
        } else {
            "task_create + task_get per round"
        },
        load()
    );
    println!(
        "{:<28} {:>7} {:>9} {:>8} {:>8} {:>10} {:>6} {:>10} {:>7}  load",
        "configuration", "clients", "calls/s", "p50 µs", "p99 µs", "server p50", "errors", "÷ first n", "÷ 1 pg"
    );
    let scratch = TempDir::new("scale");
    let mut pg_one: Vec<Option<f64>> = vec![None; options.clients.len()];
    for config in &options.configs {
        let (label, count) = match config.as_str() {
            "sqlite" => ("1 node, SQLite", 1),
            "pg1" => ("1 node, PostgreSQL", 1),
            _ => ("3 nodes, PostgreSQL", 3),
        };
        let mut first = None;
        for (k, &clients) in options.clients.iter().enumerate() {
            let name = format!("{config}-{clients}");
            let db = if config == "sqlite" {
                scratch.0.join(format!("{name}.db")).display().to_string()
            } else {
                format!("{}{separator}schema=scale_{config}_{clients}_{stamp}", options.db)
            };
            let nodes = start(count, &db, &scratch.0, &name);
            let mut figure = drive(&nodes, clients, &options).await;
            drop(nodes);
            for i in 0..count {
                let log = scratch.0.join(format!("{name}-{i}.log"));
                figure.server.extend(server_times(&log, "task_create"));
                figure.server.extend(server_times(&log, "task_get"));
            }
            let rate = figure.per_second();
            let first_rate = *first.get_or_insert(rate);
            if config == "pg1" {
                pg_one[k] = Some(rate);
            }
            let pg = pg_one[k]
                .filter(|_| config.starts_with("pg"))
                .map_or(String::new(), |b| format!("{:.0}%", 100.0 * rate / b));
            println!(
                "{label:<28} {clients:>7} {rate:>9.0} {:>8} {:>8} {:>10} {:>6} {:>9.2}x {pg:>7}  {}",
                percentile(&mut figure.latencies, 0.5),
                percentile(&mut figure.latencies, 0.99),
                percentile(&mut figure.server, 0.5),
                figure.errors,
                rate / first_rate,
                load()
            );
        }
    }
}
