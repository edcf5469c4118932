//! The `main` of a server binary for one compiled DNA (`shacl-mcp new` writes one): the flags
//! of `shacl-mcp serve` less `--dna`, with per-class tools on by default. No clap: a generated
//! server carries neither a code generator nor an argument-parser generator.

mod args;

use std::process::ExitCode;

pub(crate) use self::args::usage;
use self::args::{Parsed, parse, synopsis};
use crate::compiled::CompiledDna;
use crate::engine::FixedDna;

/// Per-class tools are on in a generated server unless `--dynamic-class-tools false`
/// (docs/tools.md); `shacl-mcp serve` has them off.
const CLASS_TOOLS: bool = true;

/// Parses the process's arguments and serves `D` until stdin ends or Ctrl-C.
/// `name` and `version` are the serving crate's (`serverInfo`), usually
/// `env!("CARGO_PKG_NAME")` and `env!("CARGO_PKG_VERSION")`.
pub fn serve<D: CompiledDna>(name: &str, version: &str) -> ExitCode {
    serve_with::<D>(name, version, Vec::new())
}

/// [`serve`] with hand-written tools beside the generated ones.
pub fn serve_with<D: CompiledDna>(name: &str, version: &str, custom_tools: Vec<crate::mcp::CustomTool>) -> ExitCode {
    serve_loaded(name, version, custom_tools, FixedDna::compiled::<D>)
}

/// The body of [`serve_with`], not generic in the DNA: so the server (its async state machines,
/// tokio's, rmcp's and serde's code for them) is compiled once, in this crate, and not again
/// in every server crate's release build (where it took 24 s of a 2-class crate's rebuild).
/// `load` runs after the flags are read, so `--help` loads no DNA.
#[inline(never)]
fn serve_loaded(
    name: &str,
    version: &str,
    custom_tools: Vec<crate::mcp::CustomTool>,
    load: fn() -> Result<FixedDna, crate::compiler::Diagnostics>,
) -> ExitCode {
    // OS strings: a path need not be UTF-8, and a bad argument is an error, not a panic.
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let flags = match parse(&args) {
        Ok(Parsed::Flags(flags)) => *flags,
        Ok(Parsed::Help) => {
            println!("{}", usage(name));
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Version) => {
            println!("{name} {version}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}\n\n{}\n\nFor every flag: {name} --help", synopsis(name));
            return ExitCode::from(2);
        }
    };
    crate::run::init_logging();
    let config = match flags.into_config(CLASS_TOOLS) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let fixed = match load() {
        Ok(fixed) => fixed,
        Err(diags) => {
            eprintln!("{diags}");
            return ExitCode::from(1);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(crate::run::serve(config, fixed, name, version, custom_tools)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
