//! Crash durability: a driver streams creates at the server, the server is killed with
//! SIGKILL at random moments (25 times), restarted on the same database: every create that was
//! acknowledged is there, whole, and no instance is half-written.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use shacl_mcp_tests::*;

const RUNS: usize = 25;

fn line(v: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(v).unwrap();
    bytes.push(b'\n');
    bytes
}

/// A pseudo-random number from the clock (no rand dependency): good enough for kill moments.
fn jitter(max_ms: u64) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    (nanos ^ (nanos >> 7)) % max_ms
}

#[test]
fn acknowledged_creates_survive_sigkill() {
    let dir = std::env::temp_dir().join(format!("shacl-mcp-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("store.db");
    let tasks = shared_dna("tasks.json");
    let db_arg = db.display().to_string();
    let args = ["serve", "--stdio", "--db", db_arg.as_str(), "--dna", tasks.as_str()];
    let init = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "crash", "version": "0" } } });
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });

    // The perspective, first.
    let perspective = {
        let mut s = RawStdio::start(&args[2..]);
        s.initialize();
        let a = s.request(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": { "name": "add_perspective", "arguments": { "name": "Crash" } } }));
        let p = a["result"]["structuredContent"]["uuid"].as_str().unwrap().to_string();
        assert!(s.finish().success());
        p
    };

    let mut acknowledged: Vec<String> = Vec::new();
    let mut sent: Vec<String> = Vec::new();
    let mut next = 0usize;
    for run in 0..RUNS {
        let mut child = Command::new(binary())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        // The first answer (to initialize) says the server is up: the kill's window starts then,
        // so a slow start on a loaded machine does not eat it.
        let (up, is_up) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut acks = Vec::new();
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let Ok(v) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                let _ = up.send(());
                if v["result"]["isError"] == false
                    && let Some(id) = v["result"]["structuredContent"]["base_uri"].as_str()
                {
                    acks.push(id.to_string());
                }
            }
            acks
        });
        stdin.write_all(&line(&init)).unwrap();
        stdin.write_all(&line(&initialized)).unwrap();
        let _ = is_up.recv_timeout(Duration::from_secs(30));
        // Stream creates until the kill; the kill lands at a random moment.
        let deadline = Instant::now() + Duration::from_millis(20 + jitter(150));
        while Instant::now() < deadline {
            let id = format!("ad4m://obj/crash{next:06}");
            next += 1;
            let create = json!({ "jsonrpc": "2.0", "id": next, "method": "tools/call", "params": { "name": "instance_create",
                "arguments": { "perspective_id": perspective, "class_name": "Task", "base_uri": id,
                    "properties": { "title": format!("task {id}"), "priority": 3, "tags": ["a", "b"] } } } });
            if stdin.write_all(&line(&create)).is_err() {
                break;
            }
            sent.push(id);
            // Paced like a busy client, so most creates are answered before the kill.
            std::thread::sleep(Duration::from_micros(500));
        }
        child.kill().unwrap();
        let _ = child.wait();
        let acks = reader.join().unwrap();
        assert!(
            run > 0 || !acks.is_empty() || next < 5,
            "the first run acknowledged nothing"
        );
        acknowledged.extend(acks);
    }
    assert!(
        acknowledged.len() >= RUNS,
        "too few acknowledged creates to mean anything: {}",
        acknowledged.len()
    );

    // Restart on the same database and look at every id ever sent.
    let mut s = RawStdio::start(&args[2..]);
    s.initialize();
    for (i, id) in sent.iter().enumerate() {
        let a = s.request(
            json!({ "jsonrpc": "2.0", "id": 10_000 + i, "method": "tools/call", "params": { "name": "query_links",
            "arguments": { "perspective_id": perspective, "source": id } } }),
        );
        let links = a["result"]["structuredContent"]["total_count"].as_u64().unwrap();
        // Whole: type, title, status (constructor), priority, two tags = 6 links; or nothing.
        assert!(links == 0 || links == 6, "{id} is half-written: {links} links");
        if acknowledged.contains(id) {
            assert_eq!(links, 6, "{id} was acknowledged but is missing after SIGKILL");
            let got = s.request(
                json!({ "jsonrpc": "2.0", "id": 20_000 + i, "method": "tools/call", "params": { "name": "instance_get",
                "arguments": { "perspective_id": perspective, "class_name": "Task", "base_uri": id } } }),
            );
            assert_eq!(got["result"]["structuredContent"]["title"], format!("task {id}"));
        }
    }
    let verify_ok = s.request(json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" }));
    assert!(verify_ok.get("result").is_some());
    assert!(s.finish().success());
    eprintln!(
        "crash test: {RUNS} kills, {} creates sent, {} acknowledged, all acknowledged present and whole",
        sent.len(),
        acknowledged.len()
    );
    let _ = std::fs::remove_dir_all(dir);
}
