//! The `shacl-mcp` command as a user runs it: exit codes, outputs, formats.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn shared_dna(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../dna").join(file)
}

fn bad_dna(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/bad-dna")
        .join(file)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shacl-mcp"))
        .args(args)
        .output()
        .expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

fn names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn check_passes_every_sample_and_exits_zero() {
    let files: Vec<String> = ["chat.json", "chat.ttl", "tasks.json", "zoo.json"]
        .iter()
        .map(|f| shared_dna(f).display().to_string())
        .collect();
    let args: Vec<&str> = ["check"].into_iter().chain(files.iter().map(String::as_str)).collect();
    let o = run(&args);
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(stdout(&o).matches(": ok\n").count(), 4, "{}", stdout(&o));
}

/// `check` ends with a line per class: typed, engine-enforced and not enforceable (the last
/// with its reason), in text and in JSON (docs/dna-format.md, Coverage).
#[test]
fn check_ends_with_the_coverage_of_each_class() {
    let events = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/core-dna/events.ttl");
    let not_core = bad_dna("not-core.ttl").display().to_string();
    let o = run(&["check", &events.display().to_string(), &not_core]);
    assert!(o.status.success(), "{}", stdout(&o));
    let text = stdout(&o);
    let coverage = &text[text.find("events.ttl: ok\ncoverage: 4 classes\n").expect(&text)..];
    let event = coverage
        .lines()
        .find(|l| l.starts_with("  class `Event`: "))
        .expect(&text);
    assert!(event.contains(" typed, ") && event.contains(" enforced by the SHACL Core engine, 0 not enforceable"));
    assert!(coverage.contains("  beyond the classes: 0 typed, "), "{text}");
    assert!(
        text.contains(
            "class `Event`: 2 typed, 0 enforced by the SHACL Core engine, 1 not enforceable\n    not enforceable: "
        ),
        "{text}"
    );

    let o = run(&["check", "--format", "json", &not_core]);
    let report: Value = serde_json::from_str(&stdout(&o)).expect("json");
    let class = &report["coverage"][0]["classes"][0];
    assert_eq!(
        (&class["class"], &class["typed"], &class["engine"]),
        (&Value::from("Event"), &Value::from(2), &Value::from(0))
    );
    assert_eq!(class["not_enforceable"].as_array().map(Vec::len), Some(1));
}

#[test]
fn check_reports_every_problem_and_exits_one() {
    let o = run(&["check", &bad_dna("unknown-key.json").display().to_string()]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert_eq!(text.matches("error[unknown-key]").count(), 3, "{text}");
    assert!(
        text.contains("unknown-key.json:8:49 (/classes/0/properties/0/datatyp)"),
        "{text}"
    );
    assert!(text.contains("did you mean `datatype`?"), "{text}");
}

#[test]
fn check_json_format_is_machine_readable() {
    let o = run(&[
        "check",
        "--format",
        "json",
        &bad_dna("reserved-name.json").display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(report["errors"], 3);
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let first = diagnostics.iter().find(|d| d["severity"] == "error").unwrap();
    assert_eq!(first["code"], "reserved-name");
    assert_eq!(first["severity"], "error");
    assert_eq!(first["line"], 4);
    assert_eq!(first["pointer"], "/properties/0/name");
    assert_eq!(first["property"], "id");
}

#[test]
fn missing_file_is_a_diagnostic_not_a_panic() {
    let o = run(&["check", "/nonexistent/dna.json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("error[unreadable-file]"), "{}", stdout(&o));
}

#[test]
fn tools_prints_the_tools_list() {
    let tasks = shared_dna("tasks.json").display().to_string();
    let o = run(&["tools", &tasks]);
    assert!(o.status.success());
    let list: Value = serde_json::from_str(&stdout(&o)).expect("json");
    let all = names(&list);
    assert_eq!(all[0], "list_perspectives");
    assert!(all.contains(&"task_add_tags".to_string()));
    assert!(!all.contains(&"signup".to_string()));
    let keys: Vec<&String> = list["tools"][0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations"
        ]
    );

    let o = run(&["tools", "--dynamic-class-tools", "false", "--multi-user", &tasks]);
    let all = names(&serde_json::from_str(&stdout(&o)).expect("json"));
    assert!(all.contains(&"signup".to_string()) && !all.contains(&"task_create".to_string()));
}

#[test]
fn describe_in_three_formats() {
    let zoo = shared_dna("zoo.json").display().to_string();
    let table = run(&["describe", &zoo]);
    assert!(table.status.success());
    let text = stdout(&table);
    assert!(text.contains("Dog  <zoo://Dog>  extends Animal"), "{text}");
    assert!(text.contains("serial*"), "{text}");
    // The note about Animal's added marker goes to stderr, not into the table.
    assert!(String::from_utf8_lossy(&table.stderr).contains("note[no-marker]"));

    let json: Value = serde_json::from_str(&stdout(&run(&["describe", "--format", "json", &zoo]))).expect("json");
    let dog = &json["classes"][1];
    assert_eq!(dog["name"], "Dog");
    assert_eq!(dog["identity_property"], "name");
    let props: Vec<&str> = dog["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(!props.contains(&"kind"), "markers are hidden: {props:?}");
    assert!(dog["tools"].as_array().unwrap().contains(&Value::from("dog_add_toys")));
    assert_eq!(json["flows"][0]["name"], "Feeding");
    assert!(
        text.contains("Flow Feeding  (any)\n  states: hungry = 0, fed = 1\n  hungry --feed--> fed\n"),
        "{text}"
    );

    let mermaid = stdout(&run(&["describe", "--format", "mermaid", &zoo]));
    assert!(mermaid.starts_with("classDiagram\n"));
    assert!(mermaid.contains("Animal <|-- Dog"));
    assert!(mermaid.contains("Dog --> \"*\" Toy : toys"));
}

#[test]
fn describe_of_a_bad_dna_prints_diagnostics_to_stderr() {
    let o = run(&["describe", &bad_dna("syntax.json").display().to_string()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("error[syntax]"));
}

#[test]
fn bad_usage_exits_two() {
    assert_eq!(run(&["describe"]).status.code(), Some(2));
    assert_eq!(run(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(run(&["--help"]).status.code(), Some(0));
}

#[test]
fn generate_writes_the_module_build_rs_would() {
    let dir = std::env::temp_dir().join(format!("shacl-mcp-cli-generate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = run(&[
        "generate",
        &shared_dna("zoo.json").display().to_string(),
        "-o",
        &dir.display().to_string(),
    ]);
    let target = dir.join("zoo.rs");
    let code = std::fs::read_to_string(&target);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(stdout(&o), format!("{}\n", target.display()));
    let code = code.expect("the module is written");
    assert!(code.starts_with("// @generated"), "{code}");
    // zoo's note still reaches the user, on stderr.
    assert!(String::from_utf8_lossy(&o.stderr).contains("note[no-marker]"));

    let o = run(&[
        "generate",
        &bad_dna("unknown-key.json").display().to_string(),
        "-o",
        &dir.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).matches("error[unknown-key]").count(),
        3
    );
    assert!(!dir.join("unknown_key.rs").exists());
}

#[test]
fn version_names_the_commit() {
    let o = run(&["--version"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let version = env!("CARGO_PKG_VERSION");
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match head {
        // Built in this checkout: its HEAD, which cargo rebuilt the binary for.
        Some(sha) => assert_eq!(text, format!("shacl-mcp {version} (commit {})\n", &sha[..12])),
        // Built from a package: the commit it was packaged from, if any.
        None => assert!(text.starts_with(&format!("shacl-mcp {version}")), "{text}"),
    }
}

/// The JSON block `new` prints: from a line `{` to the next line `}`.
fn json_block(text: &str) -> Value {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| *l == "{").expect("a JSON block");
    let end = start + lines[start..].iter().position(|l| *l == "}").expect("its end");
    serde_json::from_str(&lines[start..=end].join("\n")).expect("the block is JSON")
}

#[test]
fn new_prints_the_client_configuration_for_the_binary_it_builds() {
    let dir = std::env::temp_dir().join(format!("shacl-mcp-cli-new-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let new = |name: &str, target_dir: Option<&Path>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_shacl-mcp"));
        command
            .args([
                "new",
                name,
                "--dna",
                &shared_dna("chat.json").display().to_string(),
                "--dir",
            ])
            .arg(&dir)
            .env_remove("CARGO_TARGET_DIR");
        if let Some(target) = target_dir {
            command.env("CARGO_TARGET_DIR", target);
        }
        command.output().expect("runs")
    };
    let o = new("my-chat", None);
    let shared_target = dir.join("shared-target");
    let other = new("other-chat", Some(&shared_target));
    let crate_dir = std::fs::canonicalize(dir.join("my-chat")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    let binary = crate_dir
        .join("target/release")
        .join(format!("my-chat{}", std::env::consts::EXE_SUFFIX));
    let binary = binary.display().to_string();

    let desktop = json_block(&text);
    let server = &desktop["mcpServers"]["my-chat"];
    assert_eq!(server["command"], binary.as_str(), "{text}");
    assert_eq!(server["args"], serde_json::json!(["--stdio"]));
    assert!(
        text.contains(&format!("claude mcp add my-chat -- {binary} --stdio\n")),
        "{text}"
    );
    assert!(
        text.contains("claude mcp add --transport http my-chat http://127.0.0.1:3001/mcp\n"),
        "{text}"
    );
    assert!(text.contains(&format!("({binary} --http)")), "{text}");
    assert!(text.contains("cargo build --release"), "{text}");

    // With CARGO_TARGET_DIR set, cargo builds there: so does the path printed.
    let text = stdout(&other);
    let command = json_block(&text)["mcpServers"]["other-chat"]["command"].clone();
    let expected = shared_target
        .join("release")
        .join(format!("other-chat{}", std::env::consts::EXE_SUFFIX));
    assert_eq!(command, expected.display().to_string().as_str(), "{text}");
}

/// What `call` printed: the perspective line (if any), the last line the server wrote, and
/// the result after the blank line.
struct Call {
    code: Option<i32>,
    perspective: Option<String>,
    request: String,
    answer: Value,
    result: Value,
}

fn call(args: &[&str]) -> Call {
    let o = run(&[&["call"], args].concat());
    let text = stdout(&o);
    let answer = text
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("<-- "))
        .unwrap_or_else(|| panic!("no answer in {text}\n{}", String::from_utf8_lossy(&o.stderr)));
    let (exchange, result) = text.split_once("\n\n").expect("a blank line before the result");
    let request = exchange
        .lines()
        .find_map(|l| l.strip_prefix("--> "))
        .expect("the request");
    Call {
        request: request.to_string(),
        code: o.status.code(),
        perspective: text
            .lines()
            .find_map(|l| l.strip_prefix("perspective: "))
            .map(str::to_string),
        answer: serde_json::from_str(answer).expect("the answer is JSON"),
        result: serde_json::from_str(result).expect("the result is JSON"),
    }
}

#[test]
fn call_creates_an_instance_in_a_perspective_made_for_it() {
    let chat = shared_dna("chat.json").display().to_string();
    let done = call(&["--dna", &chat, "channel_create", r#"{"name": "general"}"#]);
    assert_eq!(done.code, Some(0));
    assert!(done.perspective.is_some_and(|p| p.ends_with("(empty)")));
    assert_eq!(done.answer["id"], 1);
    assert!(done.request.contains(r#""method":"tools/call""#), "{}", done.request);
    assert_eq!(done.answer["result"]["isError"], false);
    assert_eq!(done.result["created"], true);
    assert_eq!(done.result["class_name"], "Channel");
}

#[test]
fn a_refused_call_prints_the_envelope_and_exits_one() {
    let chat = shared_dna("chat.json").display().to_string();
    let done = call(&["channel_create", r#"{"name": 3}"#, "--dna", &chat]);
    assert_eq!(done.code, Some(1));
    assert_eq!(done.answer["result"]["isError"], true);
    let problem = &done.result["validation_errors"][0];
    assert_eq!(
        (&problem["property"], &problem["received"]),
        (&Value::from("name"), &Value::from("number 3"))
    );
    assert_eq!(done.result["class_name"], "Channel");
}

#[test]
fn call_prints_what_the_server_answers_bad_json_and_unknown_tools() {
    let chat = shared_dna("chat.json").display().to_string();
    let bad = call(&["--dna", &chat, "channel_create", r#"{"name": "#]);
    assert_eq!(bad.code, Some(1));
    assert_eq!(bad.answer["id"], Value::Null);
    assert_eq!(bad.answer["error"]["code"], -32700);
    assert_eq!(bad.result, bad.answer["error"]);
    assert_eq!(bad.perspective, None, "no perspective for arguments that are not JSON");

    let unknown = call(&["--dna", &chat, "channel_frobnicate", "{}"]);
    assert_eq!(unknown.code, Some(1));
    assert_eq!(unknown.answer["error"]["code"], -32602);
    assert_eq!(unknown.result["message"], "unknown tool 'channel_frobnicate'");

    assert_eq!(run(&["call", "--dna", &chat, "channel_create"]).status.code(), Some(2));
    let o = run(&[
        "call",
        "--dna",
        &bad_dna("syntax.json").display().to_string(),
        "x",
        "{}",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("error[syntax]"));
}

#[test]
fn call_seeds_a_perspective_from_turtle_and_queries_it() {
    let dir = std::env::temp_dir().join(format!("shacl-mcp-cli-call-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("chat.ttl");
    std::fs::write(
        &data,
        "<app://general> <rdf://type> <app://Channel> ;\n  <app://has_name> \"general\" ;\n  <app://is_pinned> true .\n\
         <app://stray> <app://has_name> \"not a channel\" .\n",
    )
    .unwrap();
    let chat = shared_dna("chat.json").display().to_string();
    let data_arg = data.display().to_string();
    let done = call(&["--dna", &chat, "--data", &data_arg, "channel_query", "{}"]);
    let bad_data = std::fs::write(&data, "<app://x> <app://p> .")
        .map(|()| run(&["call", "--dna", &chat, "--data", &data_arg, "channel_query", "{}"]));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(done.code, Some(0), "{}", done.answer);
    let perspective = done.perspective.expect("the seeded perspective");
    assert!(
        perspective.ends_with(&format!("(4 links from {data_arg})")),
        "{perspective}"
    );
    // The JSON named no perspective: the seeded one was filled in.
    let uuid = perspective.split(' ').next().unwrap();
    let request: Value = serde_json::from_str(&done.request).expect("the request is JSON");
    assert_eq!(
        request["params"]["arguments"],
        serde_json::json!({ "perspective_id": uuid })
    );
    assert_eq!(done.answer["result"]["structuredContent"], done.result);
    assert_eq!(done.result["count"], 1, "{}", done.result);
    let channel = &done.result["instances"][0];
    assert_eq!(channel["id"], "app://general");
    assert_eq!(
        (&channel["name"], &channel["isPinned"]),
        (&Value::from("general"), &Value::from(true))
    );

    let bad_data = bad_data.expect("rewrite the data");
    assert_eq!(bad_data.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_data.stderr).contains("error[syntax]"));
}
