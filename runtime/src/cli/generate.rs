//! `shacl-mcp generate`: the code build.rs and `#[shacl_model]` generate, written to a file for
//! people who want to read or vendor it.

use std::path::PathBuf;

use clap::Args;
use shacl_mcp_compiler::codegen::{self, Options};
use shacl_mcp_compiler::shape::Origin;
use shacl_mcp_compiler::{Diagnostic, Diagnostics, naming};

#[derive(Args)]
pub struct GenerateArgs {
    /// The DNA's files (SHACL JSON or Turtle), read together as one DNA.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The directory the module is written to (created if missing).
    #[arg(short = 'o', long = "out-dir", value_name = "DIR")]
    out_dir: PathBuf,
    /// The path generated code uses for the runtime.
    #[arg(long, value_name = "PATH", default_value = "::shacl_mcp")]
    shacl_mcp_path: String,
    /// The module name, and so the file `<DIR>/<NAME>.rs`; by default the first file's stem in snake_case.
    #[arg(long)]
    name: Option<String>,
}

/// Writes `<DIR>/<name>.rs`; the line to print (the path written), or every diagnostic.
/// Notes and warnings of a DNA that compiles go to stderr.
pub fn run(args: GenerateArgs) -> Result<String, Diagnostics> {
    let first = args.files[0].display().to_string();
    let name = match args.name {
        Some(name) => name,
        None => naming::snake(&args.files[0].file_stem().unwrap_or_default().to_string_lossy()),
    };
    let bad_name = (!is_module_name(&name)).then(|| {
        let message = format!("the module name `{name}` is not a plain Rust identifier");
        Diagnostic::error("invalid-module-name", Origin::default(), message)
            .help("choose one with `--name`, e.g. `--name chat`")
    });
    let options = Options {
        shacl_mcp_path: args.shacl_mcp_path,
    };
    let paths: Vec<&std::path::Path> = args.files.iter().map(PathBuf::as_path).collect();
    let generated = codegen::generate_files(&paths, &options);
    let (code, diags) = match (bad_name, generated) {
        (None, Ok(generated)) => generated,
        (bad_name, generated) => {
            let mut all = Diagnostics(bad_name.into_iter().collect()).in_file(&first);
            all.extend(generated.map_or_else(|diags| diags, |(_, diags)| diags));
            return Err(all);
        }
    };
    if !diags.0.is_empty() {
        eprintln!("{diags}");
    }
    let target = args.out_dir.join(format!("{name}.rs"));
    let written = std::fs::create_dir_all(&args.out_dir).and_then(|()| std::fs::write(&target, code));
    match written {
        Ok(()) => Ok(format!("{}\n", target.display())),
        Err(e) => {
            let d = Diagnostic::error(
                "unwritable-file",
                Origin::default(),
                format!("cannot write the generated module: {e}"),
            );
            Err(Diagnostics(vec![d]).in_file(&target.display().to_string()))
        }
    }
}

/// ASCII letters, digits and `_`, not starting with a digit, not `_` and not a keyword: the name
/// `include_dna!(name)` takes, as build.rs's `Builder` requires it.
fn is_module_name(name: &str) -> bool {
    !name.is_empty()
        && name != "_"
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && naming::field_ident(name) == name
}
