//! The `shacl-mcp` command line (feature `cli`).

mod call;
mod describe;
mod generate;
mod new;
mod serve;
mod validate;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use serde_json::Value;
use shacl_mcp_compiler::surface::{SurfaceOptions, tool_list};
use shacl_mcp_compiler::{Diagnostics, Dna, load};

#[derive(Parser)]
// `--version` names the commit built, when known (runtime/build.rs).
#[command(name = "shacl-mcp", version = env!("SHACL_MCP_VERSION"), about = "Typed MCP servers from SHACL shapes")]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check DNA files and print every diagnostic; exits 1 when any file has an error.
    Check {
        /// SHACL JSON files (single shape, array or DNA document) or Turtle files (`.ttl`).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
    },
    /// Show the classes of a DNA and the tools they produce.
    Describe {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = DescribeFormat::Table)]
        format: DescribeFormat,
    },
    /// Serve a DNA over MCP (stdio, or streamable HTTP with --http), interpreted: no compile.
    Serve(serve::ServeArgs),
    /// Make one tool call against a server for the DNA on an in-memory store and print the
    /// JSON-RPC exchange and the result; exits 1 when the call is refused or fails, 2 on bad
    /// usage, DNA or data.
    Call(call::CallArgs),
    /// Write the Rust module build.rs would generate for a DNA to `<DIR>/<NAME>.rs`.
    Generate(generate::GenerateArgs),
    /// Write a server crate for one DNA (Cargo.toml, build.rs, src/main.rs, README) to `<DIR>/<NAME>`.
    New(new::NewArgs),
    /// Validate a data graph against a SHACL shapes graph (both Turtle); exits 0 when it
    /// conforms, 1 when it does not, 2 on bad input.
    Validate(validate::ValidateArgs),
    /// Print the exact `tools/list` result a server for this DNA answers.
    Tools {
        file: PathBuf,
        /// List the per-class tools too (as `serve --dynamic-class-tools true` does).
        #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
        dynamic_class_tools: bool,
        /// List the account tools of multi-user mode.
        #[arg(long)]
        multi_user: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum CheckFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum DescribeFormat {
    Table,
    Json,
    Mermaid,
}

/// Runs the command; the exit code is 0 on success, 1 when a DNA has errors, 2 on bad usage.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let mut out = std::io::stdout().lock();
    let result = match cli.command {
        // stdout belongs to the protocol from here on.
        Command::Serve(args) => {
            drop(out);
            return serve::run(args);
        }
        Command::Check { files, format } => check(&files, format),
        Command::Describe { file, format } => with_dna(&file, |dna| match format {
            DescribeFormat::Table => describe::table(dna),
            DescribeFormat::Json => json_text(&describe::json(dna)),
            DescribeFormat::Mermaid => describe::mermaid(dna),
        }),
        Command::Generate(args) => generate::run(args).map_err(Failure::Diagnostics),
        Command::New(args) => return new::run(args),
        Command::Call(args) => {
            drop(out);
            return call::run(args);
        }
        Command::Validate(args) => return validate::run(args),
        Command::Tools {
            file,
            dynamic_class_tools,
            multi_user,
        } => with_dna(&file, |dna| {
            let options = SurfaceOptions {
                class_tools: dynamic_class_tools,
                multi_user,
            };
            let tools: Vec<Value> = tool_list(dna, options).iter().map(|t| t.to_json()).collect();
            json_text(&serde_json::json!({ "tools": tools }))
        }),
    };
    match result {
        Ok(text) => {
            // A closed pipe (`| head`) is not an error worth a panic.
            let _ = out.write_all(text.as_bytes());
            ExitCode::SUCCESS
        }
        Err(Failure::Dna(text)) => {
            let _ = out.write_all(text.as_bytes());
            ExitCode::from(1)
        }
        Err(Failure::Diagnostics(diags)) => {
            eprintln!("{diags}");
            ExitCode::from(1)
        }
    }
}

enum Failure {
    /// `check` found errors; its report goes to stdout like a clean one.
    Dna(String),
    /// A command that needs a valid DNA did not get one; the diagnostics go to stderr.
    Diagnostics(Diagnostics),
}

fn with_dna(file: &std::path::Path, render: impl FnOnce(&Dna) -> String) -> Result<String, Failure> {
    let (dna, diags) = load(file);
    match dna {
        Some(dna) => {
            // Notes (e.g. an added marker) still reach the user, on stderr.
            if !diags.0.is_empty() {
                eprintln!("{diags}");
            }
            Ok(render(&dna))
        }
        None => Err(Failure::Diagnostics(diags)),
    }
}

fn check(files: &[PathBuf], format: CheckFormat) -> Result<String, Failure> {
    let mut all = Diagnostics::default();
    let mut text = String::new();
    let mut coverage = Vec::new();
    for file in files {
        let (dna, diags) = load(file);
        if let Some(dna) = &dna {
            coverage.push(serde_json::json!({ "file": file.display().to_string(), "classes": shacl_mcp_compiler::coverage::json(dna) }));
        }
        if matches!(format, CheckFormat::Text) {
            let errors = diags.errors();
            let status = if errors == 0 {
                "ok".to_string()
            } else {
                format!("{errors} error(s)")
            };
            for d in diags.iter() {
                text.push_str(&format!("{d}\n\n"));
            }
            text.push_str(&format!("{}: {status}\n", file.display()));
            if let Some(dna) = &dna {
                text.push_str(&shacl_mcp_compiler::coverage::text(dna));
            }
        }
        all.extend(diags);
    }
    if let CheckFormat::Json = format {
        let list: Vec<Value> = all.iter().map(|d| d.to_json()).collect();
        text = json_text(&serde_json::json!({ "errors": all.errors(), "diagnostics": list, "coverage": coverage }));
    }
    if all.has_errors() {
        Err(Failure::Dna(text))
    } else {
        Ok(text)
    }
}

fn json_text(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}
