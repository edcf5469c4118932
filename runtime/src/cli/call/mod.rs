//! `shacl-mcp call --dna FILE... TOOL JSON [--data FILE.ttl] [--multi-user] [--dynamic-class-tools BOOL]`:
//! one tool call against a server on an in-memory store, to try a DNA before serving it. The
//! server is the one `serve` builds ([`crate::run::server`]), driven through its stdio
//! transport ([`exchange`]), so every answer is the one a client would get.
//!
//! Printed on stdout: `perspective: UUID (…)` when the call made one, `--> ` and the request
//! line, `<-- ` and each line the server wrote (notifications, then the answer), a blank line,
//! and the result pretty-printed (the tool's structured result, or the JSON-RPC error). Exit 0
//! when the tool succeeded, 1 when the call was refused or failed (a tool result with
//! `isError`, a JSON-RPC error), 2 for bad usage, a bad DNA or a bad data file.

mod exchange;
mod seed;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Arg, ArgMatches, Command};
use serde_json::Value;

use self::exchange::{Exchange, exchange, request_line};
use super::serve::{argument, settings_from};
use crate::config::{Flags, SETTINGS, ServeConfig, Setting, Settings};
use crate::engine::FixedDna;
use crate::mcp::McpServer;
use crate::mcp::auth::Caller;

/// Per-class tools are on: a DNA is tried with the tools it produces.
const CLASS_TOOLS: bool = true;
/// The serve settings `call` takes, and the default it gives them where not the table's.
const SHARED: &[(&str, Option<&str>)] = &[
    ("dna", None),
    ("dynamic_class_tools", Some(if CLASS_TOOLS { "true" } else { "false" })),
    ("multi_user", None),
];

/// The flags of `call`: three serve settings (from the table), the data file, the tool and its
/// arguments.
#[derive(Debug)]
pub struct CallArgs {
    settings: Settings,
    data: Option<PathBuf>,
    tool: String,
    json: String,
}

/// [`SHARED`] as table entries.
fn shared() -> impl Iterator<Item = (&'static Setting, Option<&'static str>)> {
    SHARED
        .iter()
        .filter_map(|(name, default)| SETTINGS.iter().find(|s| s.name == *name).map(|s| (s, *default)))
}

impl clap::Args for CallArgs {
    fn augment_args(command: Command) -> Command {
        let command = command.args(shared().map(|(setting, default)| argument(setting, default)));
        command
            .arg(
                Arg::new("data")
                    .long("data")
                    .value_name("FILE.ttl")
                    .value_parser(clap::value_parser!(PathBuf))
                    .help("Turtle whose triples seed a new perspective before the call (see the README)."),
            )
            .arg(Arg::new("tool").value_name("TOOL").help("The tool to call, e.g. channel_create."))
            .arg(Arg::new("json").value_name("JSON").help(
                "Its arguments, one JSON object. Left without perspective_id, the perspective made for the call is filled in.",
            ))
            .after_help(
                "TOOL and JSON may also come last, after the DNA files: call --dna chat.json channel_create '{\"name\": \"general\"}'",
            )
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}

impl clap::FromArgMatches for CallArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut settings = settings_from(matches, shared().map(|(s, _)| s))?;
        let positional = |id: &str| matches.get_one::<String>(id).cloned();
        let mut given: Vec<String> = [positional("tool"), positional("json")].into_iter().flatten().collect();
        // `--dna` takes every value up to the next flag: TOOL and JSON not given before it are
        // its last two, when a file is left.
        let missing = 2 - given.len();
        if let Some(files) = settings.dna.as_mut().filter(|files| files.len() > missing) {
            given.extend(files.split_off(files.len() - missing).into_iter().map(text));
        }
        match <[String; 2]>::try_from(given) {
            Ok([tool, json]) => Ok(CallArgs {
                settings,
                data: matches.get_one::<PathBuf>("data").cloned(),
                tool,
                json,
            }),
            Err(_) => Err(clap::Error::raw(
                clap::error::ErrorKind::MissingRequiredArgument,
                "call needs a TOOL and its arguments as JSON (e.g. channel_create '{\"name\": \"general\"}')",
            )),
        }
    }
    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

fn text(path: PathBuf) -> String {
    OsString::from(path).to_string_lossy().into_owned()
}

/// Runs the call; see the module's documentation for the output and the exit codes.
pub fn run(args: CallArgs) -> ExitCode {
    if std::env::var_os("SHACL_MCP_LOG").is_some() {
        crate::run::init_logging();
    }
    let (config, fixed) = match setup(&args) {
        Ok(ready) => ready,
        Err(problem) => {
            eprintln!("{problem}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(call(args, config, fixed))
}

/// The in-memory server's configuration and the DNA; any problem is printed with its reason.
fn setup(args: &CallArgs) -> Result<(ServeConfig, FixedDna), String> {
    let settings = Settings {
        db: Some(PathBuf::from(":memory:")),
        stdio: Some(true),
        ..args.settings.clone()
    };
    let config = Flags { settings, config: None }
        .into_config(CLASS_TOOLS)
        .map_err(|e| format!("error: {e}"))?;
    let fixed = match &config.dna[..] {
        [] => FixedDna::empty(),
        files => {
            let (fixed, notes) = FixedDna::load(files).map_err(|diags| diags.to_string())?;
            if !notes.0.is_empty() {
                eprintln!("{notes}");
            }
            fixed
        }
    };
    Ok((config, fixed))
}

async fn call(args: CallArgs, config: ServeConfig, fixed: FixedDna) -> ExitCode {
    let server = match crate::run::server(&config, fixed, "shacl-mcp", env!("CARGO_PKG_VERSION"), Vec::new()) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let arguments = match prepare(&server, &args) {
        Ok(arguments) => arguments,
        Err(problem) => {
            eprintln!("{problem}");
            return ExitCode::from(2);
        }
    };
    match exchange(server, request_line(&args.tool, &arguments)).await {
        Ok(done) => report(&done),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// Makes and seeds the perspective when the call needs one, printing its id, and gives the
/// arguments to send: the JSON as given, with that perspective's id filled in.
fn prepare(server: &McpServer, args: &CallArgs) -> Result<String, String> {
    let parsed = serde_json::from_str::<Value>(&args.json).ok();
    let wants_perspective = takes_perspective(server, &args.tool)
        && parsed
            .as_ref()
            .is_some_and(|v| v.is_object() && v.get("perspective_id").is_none());
    if args.data.is_none() && !wants_perspective {
        return Ok(args.json.clone());
    }
    let links = match &args.data {
        Some(path) => seed::links(&*super::validate::read_turtle(path)?),
        None => Vec::new(),
    };
    let uuid = seed::seed(server.engine(), "shacl-mcp call", &links)?;
    match &args.data {
        Some(path) => println!("perspective: {uuid} ({} links from {})", links.len(), path.display()),
        None => println!("perspective: {uuid} (empty)"),
    }
    match parsed {
        Some(Value::Object(mut object)) if wants_perspective => {
            // The perspective first, as the tools' schemas list it.
            let mut filled = serde_json::Map::from_iter([("perspective_id".to_string(), Value::from(uuid))]);
            filled.append(&mut object);
            Ok(Value::Object(filled).to_string())
        }
        _ => Ok(args.json.clone()),
    }
}

/// Whether the tool, as the server lists it to a stdio client, takes `perspective_id`.
fn takes_perspective(server: &McpServer, tool: &str) -> bool {
    server
        .visible_tools(Caller::Stdio)
        .iter()
        .filter(|t| t.name == tool)
        .any(|t| {
            t.input_schema
                .get("properties")
                .is_some_and(|p| p.get("perspective_id").is_some())
        })
}

/// Prints the exchange and the result; the exit code says whether the tool succeeded.
fn report(done: &Exchange) -> ExitCode {
    println!("--> {}", done.request);
    for line in &done.received {
        println!("<-- {line}");
    }
    let Some(answer) = done.answer() else {
        eprintln!("error: the server's last line is not the call's answer");
        return ExitCode::from(1);
    };
    let (shown, failure) = match (answer.get("result"), answer.get("error")) {
        (Some(result), _) => {
            let refused = result["isError"] == true;
            let why = refused.then(|| "the tool refused the call (a result with isError)".to_string());
            (tool_output(result), why)
        }
        (None, Some(error)) => (
            error.clone(),
            Some(format!("the server answered JSON-RPC error {}", error["code"])),
        ),
        (None, None) => (
            answer.clone(),
            Some("the answer holds neither result nor error".to_string()),
        ),
    };
    println!("\n{}", serde_json::to_string_pretty(&shown).unwrap_or_default());
    match failure {
        None => ExitCode::SUCCESS,
        Some(why) => {
            eprintln!("error: {why}");
            ExitCode::from(1)
        }
    }
}

/// A tool result's structured content, else its text parsed as JSON, else the text.
fn tool_output(result: &Value) -> Value {
    if let Some(structured) = result.get("structuredContent") {
        return structured.clone();
    }
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    serde_json::from_str(text).unwrap_or_else(|_| Value::from(text))
}
