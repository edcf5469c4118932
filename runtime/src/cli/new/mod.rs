//! `shacl-mcp new`: a whole server crate for one DNA, written from `templates/` (embedded in
//! the binary). `cargo run` in it serves the DNA compiled in, through build.rs and
//! [`crate::serve`]. What it prints then, client configuration included, is [`clients`].

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use shacl_mcp_compiler::{load, naming};

mod clients;

#[derive(Args)]
pub struct NewArgs {
    /// The crate's name: a cargo package name, and the name of the server binary.
    name: String,
    /// The DNA (SHACL JSON or Turtle), checked, then copied into the crate's `dna/`.
    #[arg(long, value_name = "FILE")]
    dna: PathBuf,
    /// Where the crate's folder `<DIR>/<NAME>` is made (default: the current directory).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Depend on a local checkout of the shacl-mcp workspace (its `runtime/` and `compiler/`)
    /// instead of the published crates.
    #[arg(long, value_name = "PATH")]
    runtime: Option<PathBuf>,
}

/// The files of a new crate: their path in it, and their template (in `runtime/templates/`, inside
/// this package, so a published `shacl-mcp` carries them; `Cargo.toml` and `.gitignore` are
/// stored under other names there, or cargo would take the folder for a package of its own).
const TEMPLATES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("../../../templates/Cargo.toml.template")),
    ("build.rs", include_str!("../../../templates/build.rs")),
    ("src/main.rs", include_str!("../../../templates/src/main.rs")),
    ("README.md", include_str!("../../../templates/README.md")),
    (".gitignore", include_str!("../../../templates/gitignore")),
];

/// The module the DNA becomes when its file name does not give a usable one.
const FALLBACK_MODULE: &str = "model";

/// Writes the crate; 0 when it is written, 1 on any problem (every one is printed, nothing is
/// written). What to do next goes to stdout, problems to stderr.
pub fn run(args: NewArgs) -> ExitCode {
    let mut problems: Vec<String> = Vec::new();
    if let Some(problem) = package_name_problem(&args.name) {
        problems.push(format!(
            "`{}` cannot name the crate: it {problem}; try e.g. `my-server`",
            args.name
        ));
    }
    // The DNA first: a crate that cannot build is not worth writing.
    let (dna, diags) = load(&args.dna);
    if !diags.0.is_empty() {
        eprintln!("{diags}\n");
    }
    if dna.is_none() && !diags.has_errors() {
        problems.push(format!("{} is not a usable DNA", args.dna.display()));
    }
    let dependencies = match &args.runtime {
        Some(path) => checkout(path).map(Dependencies::Path),
        None => Ok(Dependencies::Published),
    };
    let dependencies = dependencies.unwrap_or_else(|problem| {
        problems.push(problem);
        Dependencies::Published
    });
    let target = args.dir.clone().unwrap_or_else(|| PathBuf::from(".")).join(&args.name);
    if let Some(problem) = occupied(&target) {
        problems.push(problem);
    }
    for problem in &problems {
        eprintln!("error: {problem}");
    }
    if !problems.is_empty() || diags.has_errors() {
        eprintln!("error: no crate written");
        return ExitCode::from(1);
    }

    let file_name = args.dna.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let (dna_module, dna_file) = dna_module_and_file(&file_name);
    let crate_ = NewCrate {
        name: &args.name,
        dna_module: &dna_module,
        dna_file: &dna_file,
        dependencies: &dependencies,
    };
    match crate_.write(&target, &args.dna) {
        Ok(()) => {
            let absolute = std::fs::canonicalize(&target).unwrap_or(target);
            let target_dir = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from);
            let binary = clients::release_binary(&absolute, &args.name, target_dir);
            print!(
                "{}",
                clients::next_steps(&args.name, &absolute, &binary, &dna_module, &dna_file)
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot write the crate in {}: {e}", target.display());
            ExitCode::from(1)
        }
    }
}

/// Where the runtime and the compiler come from.
enum Dependencies {
    /// The published crates, at this runtime's minor version.
    Published,
    /// A checkout of the workspace (absolute): `<root>/runtime` and `<root>/compiler`.
    Path(PathBuf),
}

impl Dependencies {
    /// The `[dependencies]` line of the runtime: no default features, so no CLI nor code generator.
    fn runtime(&self) -> String {
        match self {
            Dependencies::Published => {
                format!(
                    "shacl-mcp = {{ version = \"{}\", default-features = false }}",
                    published_version()
                )
            }
            Dependencies::Path(root) => format!(
                "shacl-mcp = {{ path = {}, default-features = false }}",
                toml_string(&root.join("runtime").display().to_string())
            ),
        }
    }

    /// The `[build-dependencies]` line of the compiler, with its code generator (the default).
    fn compiler(&self) -> String {
        match self {
            Dependencies::Published => format!("shacl-mcp-compiler = \"{}\"", published_version()),
            Dependencies::Path(root) => format!(
                "shacl-mcp-compiler = {{ path = {} }}",
                toml_string(&root.join("compiler").display().to_string())
            ),
        }
    }
}

/// `major.minor` of this runtime: the version requirement a new crate writes (`0.1`).
fn published_version() -> String {
    format!(
        "{}.{}",
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR")
    )
}

/// The absolute path of a workspace checkout, if `path` is one.
fn checkout(path: &Path) -> Result<PathBuf, String> {
    let root = std::fs::canonicalize(path).map_err(|e| format!("--runtime {}: {e}", path.display()))?;
    for member in ["runtime", "compiler"] {
        if !root.join(member).join("Cargo.toml").is_file() {
            return Err(format!(
                "--runtime {} is not a checkout of the shacl-mcp workspace: it has no {member}/Cargo.toml",
                path.display()
            ));
        }
    }
    Ok(root)
}

/// Why the crate cannot go to `target`, if it cannot: something is there already.
fn occupied(target: &Path) -> Option<String> {
    if !target.exists() {
        return None;
    }
    let empty = std::fs::read_dir(target).map(|mut entries| entries.next().is_none());
    match empty {
        Ok(true) => None,
        Ok(false) => Some(format!(
            "{} exists and is not empty; choose another name or --dir",
            target.display()
        )),
        Err(_) => Some(format!("{} exists and is not a directory", target.display())),
    }
}

/// The module build.rs generates for a DNA file (its stem in snake_case, as `Builder::dna`
/// names it) and the file name it is copied as. A stem that gives no usable module name
/// (`2024.json`, `type.json`, `shacl-mcp.json`) is renamed to `model.<ext>`.
fn dna_module_and_file(file_name: &str) -> (String, String) {
    let (stem, ext) = match file_name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, Some(ext)),
        _ => (file_name, None),
    };
    let module = naming::snake(stem);
    // The module sits beside the crate's `main` and must not shadow the crates its code names.
    let usable = naming::field_ident(&module) == module && !["shacl_mcp", "std", "core", "alloc"].contains(&&*module);
    if usable {
        return (module, file_name.to_string());
    }
    let file = match ext {
        Some(ext) => format!("{FALLBACK_MODULE}.{ext}"),
        None => FALLBACK_MODULE.to_string(),
    };
    (FALLBACK_MODULE.to_string(), file)
}

/// Why `name` cannot be a cargo package (and binary) name, if it cannot. A little stricter
/// than cargo: ASCII only (as crates.io requires) and a letter first.
fn package_name_problem(name: &str) -> Option<String> {
    const KEYWORDS: &[&str] = &[
        "Self", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do",
        "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop",
        "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return", "self", "static", "struct",
        "super", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while",
        "yield",
    ];
    // Rust's own libraries, cargo's folders in `target/` (a binary there would clash), and
    // file names Windows reserves.
    const RESERVED: &[&str] = &[
        "alloc",
        "core",
        "proc_macro",
        "proc-macro",
        "std",
        "test",
        "build",
        "deps",
        "examples",
        "incremental",
        "con",
        "prn",
        "aux",
        "nul",
    ];
    let lower = name.to_ascii_lowercase();
    let windows_device = (lower.starts_with("com") || lower.starts_with("lpt"))
        && lower.len() == 4
        && lower.ends_with(|c: char| c.is_ascii_digit());
    if name.is_empty() {
        Some("is empty".into())
    } else if name.len() > 64 {
        Some("is longer than 64 characters".into())
    } else if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        Some(format!(
            "holds {c:?}: only ASCII letters, digits, `-` and `_` are allowed"
        ))
    } else if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        Some("does not start with a letter".into())
    } else if KEYWORDS.contains(&name) {
        Some("is a Rust keyword".into())
    } else if RESERVED.contains(&lower.as_str()) || windows_device {
        Some("is reserved (by Rust, cargo or Windows)".into())
    } else {
        None
    }
}

/// A TOML basic string holding `text`.
fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `template` with every `{{key}}` of `values` replaced, in one pass (a value is never expanded
/// again); unknown placeholders stay as they are.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let value = after.find("}}").and_then(|end| {
            values
                .iter()
                .find(|(key, _)| *key == &after[..end])
                .map(|(_, v)| (end, v))
        });
        match value {
            Some((end, value)) => {
                out.push_str(value);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// What `shacl-mcp new` writes.
struct NewCrate<'a> {
    name: &'a str,
    dna_module: &'a str,
    dna_file: &'a str,
    dependencies: &'a Dependencies,
}

impl NewCrate<'_> {
    /// Every file of the crate but the DNA: its path in the crate and its text.
    fn files(&self) -> Vec<(&'static str, String)> {
        let runtime = self.dependencies.runtime();
        let compiler = self.dependencies.compiler();
        let values = [
            ("name", self.name),
            ("dna_module", self.dna_module),
            ("dna_file", self.dna_file),
            ("runtime_dependency", runtime.as_str()),
            ("compiler_dependency", compiler.as_str()),
        ];
        TEMPLATES
            .iter()
            .map(|(path, template)| (*path, fill(template, &values)))
            .collect()
    }

    /// Writes the crate to `target` (missing or empty) with `dna` copied to `dna/`. On failure
    /// it removes what it wrote, the folder too when it made it.
    fn write(&self, target: &Path, dna: &Path) -> std::io::Result<()> {
        let made = !target.exists();
        let written = (|| {
            std::fs::create_dir_all(target.join("src"))?;
            std::fs::create_dir_all(target.join("dna"))?;
            std::fs::copy(dna, target.join("dna").join(self.dna_file))?;
            for (path, text) in self.files() {
                std::fs::write(target.join(path), text)?;
            }
            Ok(())
        })();
        if written.is_err() {
            if made {
                let _ = std::fs::remove_dir_all(target);
            } else {
                for entry in std::fs::read_dir(target).into_iter().flatten().flatten() {
                    let _ = std::fs::remove_dir_all(entry.path()).or_else(|_| std::fs::remove_file(entry.path()));
                }
            }
        }
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_replaces_known_placeholders_once() {
        let values = [("name", "demo"), ("dna_module", "{{name}}")];
        assert_eq!(fill("[{{name}}] {{name}}!", &values), "[demo] demo!");
        // A value is not expanded again; unknown and unclosed placeholders stay.
        assert_eq!(fill("mod {{dna_module}};", &values), "mod {{name}};");
        assert_eq!(fill("{{other}} {{name}}", &values), "{{other}} demo");
        assert_eq!(fill("{ {{name}} }", &values), "{ demo }");
        assert_eq!(fill("{{name", &values), "{{name");
        assert_eq!(fill("", &values), "");
        assert_eq!(fill("no placeholders: {}", &values), "no placeholders: {}");
    }

    fn demo(dependencies: &Dependencies) -> Vec<(&'static str, String)> {
        let new = NewCrate {
            name: "my-tasks",
            dna_module: "tasks",
            dna_file: "tasks.json",
            dependencies,
        };
        new.files()
    }

    #[test]
    fn every_template_is_filled() {
        let root = PathBuf::from("/src/shacl \"mcp\"");
        for deps in [Dependencies::Published, Dependencies::Path(root)] {
            for (path, text) in demo(&deps) {
                assert!(!text.contains("{{"), "{path} keeps a placeholder:\n{text}");
            }
        }
    }

    #[test]
    fn the_crate_depends_on_the_runtime_by_version_or_path() {
        let file = |files: Vec<(&str, String)>, path: &str| files.into_iter().find(|(p, _)| *p == path).unwrap().1;
        let published = file(demo(&Dependencies::Published), "Cargo.toml");
        assert!(published.contains("name = \"my-tasks\""), "{published}");
        assert!(published.contains("[[bin]]\nname = \"my-tasks\""), "{published}");
        assert!(published.contains("shacl-mcp = { version = \"0.1\", default-features = false }"));
        assert!(published.contains("[build-dependencies]\nshacl-mcp-compiler = \"0.1\""));
        assert!(published.contains("\n[workspace]\n"), "{published}");

        let local = file(demo(&Dependencies::Path(PathBuf::from("/src/shacl-mcp"))), "Cargo.toml");
        assert!(local.contains("shacl-mcp = { path = \"/src/shacl-mcp/runtime\", default-features = false }"));
        assert!(local.contains("shacl-mcp-compiler = { path = \"/src/shacl-mcp/compiler\" }"));

        let main = file(demo(&Dependencies::Published), "src/main.rs");
        assert!(
            main.contains("pub mod tasks {\n    shacl_mcp::include_dna!(tasks);\n}"),
            "{main}"
        );
        assert!(main.contains("shacl_mcp::serve::<tasks::Dna>(env!(\"CARGO_PKG_NAME\"), env!(\"CARGO_PKG_VERSION\"))"));
        let build = file(demo(&Dependencies::Published), "build.rs");
        assert!(build.contains(".dna(\"dna/tasks.json\")"), "{build}");
        let readme = file(demo(&Dependencies::Published), "README.md");
        assert!(readme.contains("claude mcp add my-tasks -- "), "{readme}");
        assert!(readme.contains("claude mcp add --transport http my-tasks http://127.0.0.1:3001/mcp"));
        assert!(readme.contains("\"args\": [\"--stdio\"]"));
        assert!(readme.contains("SHACL_MCP_ADMIN_CREDENTIAL"));
    }

    #[test]
    fn toml_strings_are_escaped() {
        assert_eq!(toml_string("/a/b"), r#""/a/b""#);
        assert_eq!(toml_string(r#"C:\x "y""#), r#""C:\\x \"y\"""#);
        assert_eq!(toml_string("a\nb"), r#""a\u000Ab""#);
    }

    #[test]
    fn package_names() {
        for good in ["demo", "my-chat", "my_chat", "Chat2", "a", "x-1_y"] {
            assert_eq!(package_name_problem(good), None, "{good}");
        }
        let long = "a".repeat(65);
        for (bad, why) in [
            ("", "is empty"),
            (long.as_str(), "longer than 64"),
            ("my chat", "holds ' '"),
            ("café", "holds 'é'"),
            ("a.b", "holds '.'"),
            ("a/b", "holds '/'"),
            ("2fa", "does not start with a letter"),
            ("-x", "does not start with a letter"),
            ("_x", "does not start with a letter"),
            ("fn", "keyword"),
            ("self", "keyword"),
            ("Self", "keyword"),
            ("test", "reserved"),
            ("std", "reserved"),
            ("proc-macro", "reserved"),
            ("deps", "reserved"),
            ("build", "reserved"),
            ("CON", "reserved"),
            ("com1", "reserved"),
            ("lpt9", "reserved"),
        ] {
            let problem = package_name_problem(bad).unwrap_or_else(|| panic!("{bad:?} should be refused"));
            assert!(problem.contains(why), "{bad:?}: {problem}");
        }
        assert_eq!(package_name_problem("command"), None);
    }

    #[test]
    fn the_dna_file_names_the_module() {
        let pair = |file: &str| dna_module_and_file(file);
        assert_eq!(pair("tasks.json"), ("tasks".into(), "tasks.json".into()));
        assert_eq!(pair("My-Chat.ttl"), ("my_chat".into(), "My-Chat.ttl".into()));
        assert_eq!(pair("2024.json"), ("model".into(), "model.json".into()));
        assert_eq!(pair("type.ttl"), ("model".into(), "model.ttl".into()));
        assert_eq!(pair("shacl-mcp.json"), ("model".into(), "model.json".into()));
        assert_eq!(pair("dna"), ("dna".into(), "dna".into()));
    }

    #[test]
    fn only_a_missing_or_empty_folder_takes_the_crate() {
        let dir = std::env::temp_dir().join(format!("shacl-mcp-new-occupied-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(occupied(&dir), None);
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(occupied(&dir), None);
        std::fs::write(dir.join("x"), "").unwrap();
        assert!(occupied(&dir).unwrap().contains("is not empty"));
        assert!(occupied(&dir.join("x")).unwrap().contains("is not a directory"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
