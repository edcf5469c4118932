//! `shacl-mcp new` end to end: write a server crate for tasks.json into a scratch dir against this
//! checkout, build it with cargo (the workspace's Cargo.lock copied in, the workspace's target
//! dir shared: docs/design.md, Known traps on these machines), start the binary and drive it
//! with rmcp's client.
//!
//! The first run builds the runtime and the dependencies whose features differ for the new
//! crate (a minute or two); later runs reuse them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use shacl_mcp_tests::*;

/// The longest one cargo build may take, a cold one on a slow CI machine included.
const BUILD_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// The longest the whole MCP conversation may take.
const MCP_TIMEOUT: Duration = Duration::from_secs(120);

fn workspace_root() -> PathBuf {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::canonicalize(tests.join("..")).expect("the workspace root")
}

/// The target dir this test was built in (`<target>/debug/deps/new_crate-…`), shared with the
/// new crate so that it reuses the workspace's compiled dependencies.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let target = exe.ancestors().nth(3).expect("<target>/<profile>/deps/<test>");
    std::fs::canonicalize(target).expect("the target dir")
}

/// The folder the crate is written to: always the same one (cargo's scratch space for
/// integration tests, inside the workspace's folder), so that the new package keeps its identity
/// and its build products from run to run instead of piling up new ones in the shared target
/// dir. Emptied before the test, removed after a pass, kept after a failure (with the build
/// logs) for a look.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("new-crate");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept {} for a look", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Runs `command` to its end, with stdout and stderr written to `log`; whether it succeeded.
/// Killed (and a failure) after `BUILD_TIMEOUT`.
fn run_logged(mut command: Command, log: &Path) -> bool {
    let file = std::fs::File::create(log).expect("log file");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(file.try_clone().expect("log file"))
        .stderr(file)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
    let deadline = Instant::now() + BUILD_TIMEOUT;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status.success();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} took over {BUILD_TIMEOUT:?}; log: {}", tail(log));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The end of a log, for a failure message.
fn tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(60)..].join("\n")
}

/// The `shacl-mcp` binary with this checkout's `new` (and its templates) in it: cargo rebuilds
/// it when the sources changed since `cargo test` last built it. `$SHACL_MCP_BIN` is taken as is.
fn fresh_shacl_mcp(logs: &Path) -> PathBuf {
    if std::env::var_os("SHACL_MCP_BIN").is_none() {
        let mut cargo = Command::new(env!("CARGO"));
        cargo
            .args(["build", "-p", "shacl-mcp", "--bin", "shacl-mcp"])
            .current_dir(workspace_root());
        let log = logs.join("build-shacl-mcp.log");
        assert!(run_logged(cargo, &log), "building shacl-mcp failed:\n{}", tail(&log));
    }
    binary()
}

/// Builds the crate in `dir` into the shared target dir: offline first (every dependency is in
/// the copied Cargo.lock and cargo's cache), online only if that fails.
fn build_crate(dir: &Path, target: &Path, logs: &Path) {
    let cargo = |offline: bool| {
        let mut command = Command::new(env!("CARGO"));
        command.arg("build").current_dir(dir).env("CARGO_TARGET_DIR", target);
        if offline {
            command.arg("--offline");
        }
        command
    };
    let offline_log = logs.join("build-offline.log");
    if run_logged(cargo(true), &offline_log) {
        return;
    }
    eprintln!("the offline build failed, trying online:\n{}", tail(&offline_log));
    let online_log = logs.join("build-online.log");
    assert!(
        run_logged(cargo(false), &online_log),
        "building the new crate failed.\noffline:\n{}\nonline:\n{}",
        tail(&offline_log),
        tail(&online_log)
    );
}

async fn tool_names(client: &Client) -> Vec<String> {
    let tools = client.list_all_tools().await.expect("tools/list");
    tools.iter().map(|t| t.name.to_string()).collect()
}

#[tokio::test]
async fn a_new_crate_builds_and_serves_its_dna() {
    let started = Instant::now();
    let scratch = Scratch::new();
    let root = workspace_root();
    let target = target_dir();

    // shacl-mcp new demo --dna tasks.json --dir <scratch> --runtime <this checkout>
    let shacl_mcp = fresh_shacl_mcp(&scratch.0);
    let output = Command::new(&shacl_mcp)
        .args(["new", "demo", "--dna", &shared_dna("tasks.json"), "--dir"])
        .arg(&scratch.0)
        .arg("--runtime")
        .arg(&root)
        .output()
        .expect("run shacl-mcp new");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "shacl-mcp new failed:\n{stdout}\n{stderr}");
    let crate_dir = scratch.0.join("demo");
    assert!(stdout.starts_with("Created `demo` in "), "{stdout}");
    assert!(stdout.contains("cargo run -- --stdio"), "{stdout}");

    let mut files: Vec<String> = Vec::new();
    for dir in [&crate_dir, &crate_dir.join("src"), &crate_dir.join("dna")] {
        for entry in std::fs::read_dir(dir).expect("crate files") {
            let path = entry.expect("entry").path();
            if path.is_file() {
                files.push(path.strip_prefix(&crate_dir).unwrap().display().to_string());
            }
        }
    }
    files.sort();
    assert_eq!(
        files,
        [
            ".gitignore",
            "Cargo.toml",
            "README.md",
            "build.rs",
            "dna/tasks.json",
            "src/main.rs"
        ]
    );
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    let runtime = format!("path = \"{}\"", root.join("runtime").display());
    assert!(manifest.contains(&runtime), "{manifest}");
    assert_eq!(
        std::fs::read(crate_dir.join("dna/tasks.json")).unwrap(),
        std::fs::read(shared_dna("tasks.json")).unwrap()
    );

    // A second `new` into the same folder is refused, and changes nothing.
    let again = Command::new(&shacl_mcp)
        .args(["new", "demo", "--dna", &shared_dna("tasks.json"), "--dir"])
        .arg(&scratch.0)
        .output()
        .expect("run shacl-mcp new");
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("is not empty"));
    assert_eq!(std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap(), manifest);

    // The workspace's lockfile and target dir: the same versions, and no rebuild of the world.
    std::fs::copy(root.join("Cargo.lock"), crate_dir.join("Cargo.lock")).expect("copy Cargo.lock");
    let build_started = Instant::now();
    build_crate(&crate_dir, &target, &scratch.0);
    let build_time = build_started.elapsed();
    assert!(
        !crate_dir.join("target").exists(),
        "the new crate built into the shared target dir, not its own"
    );
    let demo = target
        .join("debug")
        .join(format!("demo{}", std::env::consts::EXE_SUFFIX));
    assert!(demo.is_file(), "{} was not built", demo.display());

    tokio::time::timeout(MCP_TIMEOUT, serve_and_call(&demo))
        .await
        .expect("the MCP conversation timed out");
    eprintln!(
        "new_crate: {:.1?} in all, {:.1?} of it building the crate",
        started.elapsed(),
        build_time
    );
}

async fn serve_and_call(demo: &Path) {
    // Per-class tools are on by default in a generated server.
    let client = stdio_client_for(demo, &["--db", ":memory:"], Lifecycle::Legacy).await;
    let info = client.peer_info().expect("server info");
    let server = info.server_info.as_ref().expect("serverInfo");
    assert_eq!((server.name.as_str(), server.version.as_str()), ("demo", "0.1.0"));
    let names = tool_names(&client).await;
    assert_eq!(names.first().map(String::as_str), Some("list_perspectives"));
    for tool in [
        "instance_create",
        "task_create",
        "task_get",
        "task_set_status",
        "todo_list_create",
    ] {
        assert!(names.iter().any(|n| n == tool), "{tool} missing from {names:?}");
    }

    let p = ok(&client, "add_perspective", json!({ "name": "Team" })).await["uuid"]
        .as_str()
        .expect("uuid")
        .to_string();
    let created = ok(
        &client,
        "task_create",
        json!({ "perspective_id": p, "title": "Ship the crate", "priority": 2, "tags": ["release"] }),
    )
    .await;
    let task = created["base_uri"].as_str().expect("base_uri").to_string();
    assert_eq!(
        created,
        json!({
            "created": true,
            "class_name": "Task",
            "base_uri": task,
            "properties_set": ["title", "priority"],
            "collections_set": { "tags": ["release"] },
        })
    );
    let mut got = ok(
        &client,
        "task_get",
        json!({ "perspective_id": p, "expression_address": task }),
    )
    .await;
    let got = got.as_object_mut().expect("an instance object");
    for key in ["createdAt", "updatedAt", "timestamp"] {
        let time = got.remove(key).unwrap_or(Value::Null);
        assert!(time.as_str().is_some_and(|t| t.contains('T')), "{key}: {time}");
    }
    let author = got.remove("author").unwrap_or(Value::Null);
    assert!(
        author.as_str().is_some_and(|a| a.starts_with("did:key:z6Mk")),
        "{author}"
    );
    assert_eq!(
        Value::Object(got.clone()),
        json!({
            "id": task,
            "baseExpression": task,
            "title": "Ship the crate",
            "status": "open",
            "priority": 2,
            "tags": ["release"],
        })
    );
    client.cancel().await.expect("stop the server");

    // --dynamic-class-tools false: the static tools only; a per-class call is refused with a hint.
    let client = stdio_client_for(
        demo,
        &["--db", ":memory:", "--dynamic-class-tools", "false"],
        Lifecycle::Modern,
    )
    .await;
    let names = tool_names(&client).await;
    assert!(names.iter().any(|n| n == "instance_create"), "{names:?}");
    assert!(!names.iter().any(|n| n == "task_create"), "{names:?}");
    let p = ok(&client, "add_perspective", json!({ "name": "Team" })).await["uuid"]
        .as_str()
        .expect("uuid")
        .to_string();
    let refused = tool_error(&client, "task_create", json!({ "perspective_id": p, "title": "x" })).await;
    assert!(
        refused["hint"].as_str().is_some_and(|h| h.contains("instance_create")),
        "{refused}"
    );
    client.cancel().await.expect("stop the server");
}
