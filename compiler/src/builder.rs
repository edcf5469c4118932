//! [`Builder`]: build.rs support, in the manner of prost-build. The code comes from
//! [`codegen::generate_files`], as for `#[shacl_model]` and `shacl-mcp generate`.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::codegen::{self, Options};
use crate::shape::Origin;
use crate::{Diagnostic, Diagnostics, Severity, naming};

/// Generates one Rust module per DNA into `OUT_DIR`, for build.rs.
///
/// ```no_run
/// // build.rs
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     println!("cargo:rerun-if-changed=build.rs");
///     shacl_mcp_compiler::Builder::new()
///         .dna("dna/chat.json") // → $OUT_DIR/chat.rs
///         .dna_files("zoo", ["dna/animals.json", "dna/keepers.ttl"]) // one DNA → $OUT_DIR/zoo.rs
///         .compile()?;
///     Ok(())
/// }
/// ```
///
/// and in the crate: `pub mod chat { shacl_mcp::include_dna!(chat); }`.
///
/// For every input file it prints `cargo:rerun-if-changed`, so cargo reruns the script (and
/// rebuilds the crate) only when a DNA file changes; add `cargo:rerun-if-changed=build.rs`
/// yourself to track build.rs too. A module is written only when its content changed, so the
/// file keeps its mtime when a touched DNA generates the same code. Every diagnostic is printed
/// for cargo with its file and location (errors as `cargo::error`, which fails the build;
/// warnings and notes as `cargo:warning`), and any error also comes back from
/// [`Builder::compile`].
#[derive(Clone, Debug, Default)]
pub struct Builder {
    dnas: Vec<DnaInput>,
    out_dir: Option<PathBuf>,
    options: Options,
}

/// One DNA: its module name (`None`: from the first file's stem) and its files.
#[derive(Clone, Debug)]
struct DnaInput {
    name: Option<String>,
    files: Vec<PathBuf>,
}

impl Builder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a DNA from one file; its module is the file stem in snake_case
    /// (`dna/chat.json` → `chat.rs`, included with `include_dna!(chat)`).
    pub fn dna(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.dnas.push(DnaInput {
            name: None,
            files: vec![path.as_ref().to_path_buf()],
        });
        self
    }

    /// Adds a DNA made of several files, read as one DNA, as the module `name`.
    pub fn dna_files<P: AsRef<Path>>(&mut self, name: &str, paths: impl IntoIterator<Item = P>) -> &mut Self {
        self.dnas.push(DnaInput {
            name: Some(name.to_string()),
            files: paths.into_iter().map(|p| p.as_ref().to_path_buf()).collect(),
        });
        self
    }

    /// Where the modules go; by default the `OUT_DIR` cargo gives build scripts.
    pub fn out_dir(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.out_dir = Some(path.as_ref().to_path_buf());
        self
    }

    /// The path generated code uses for the runtime (default `::shacl_mcp`), for a crate
    /// that renames or re-exports it.
    pub fn shacl_mcp_path(&mut self, path: impl Into<String>) -> &mut Self {
        self.options.shacl_mcp_path = path.into();
        self
    }

    /// Generates every DNA, printing cargo's directives to stdout. On error the build fails
    /// (through `cargo::error`) and the returned [`BuildError`] holds every diagnostic.
    pub fn compile(&self) -> Result<(), BuildError> {
        self.compile_to(&mut std::io::stdout().lock())
    }

    /// [`Builder::compile`] with cargo's directives written to `cargo`.
    fn compile_to(&self, cargo: &mut dyn Write) -> Result<(), BuildError> {
        let mut cargo = CargoOutput(cargo);
        let out_dir = match self
            .out_dir
            .clone()
            .or_else(|| std::env::var_os("OUT_DIR").map(PathBuf::from))
        {
            Some(dir) => dir,
            None => {
                cargo.directives("cargo::error=", &BuildError::NoOutDir.to_string());
                return Err(BuildError::NoOutDir);
            }
        };
        let mut all = Diagnostics::default();
        let mut modules: Vec<String> = Vec::new();
        for dna in &self.dnas {
            for file in &dna.files {
                cargo.rerun_if_changed(file);
            }
            let diags = match self.compile_one(dna, &out_dir, &modules) {
                Ok((name, diags)) => {
                    modules.push(name);
                    diags
                }
                Err(diags) => diags,
            };
            cargo.diagnostics(&diags);
            all.extend(diags);
        }
        if all.has_errors() {
            Err(BuildError::Diagnostics(all))
        } else {
            Ok(())
        }
    }

    /// Generates and writes one DNA's module; its name and notes, or its diagnostics (those of
    /// the name too: all problems at once).
    fn compile_one(
        &self,
        dna: &DnaInput,
        out_dir: &Path,
        taken: &[String],
    ) -> Result<(String, Diagnostics), Diagnostics> {
        let name = module_name(dna, taken);
        let paths: Vec<&Path> = dna.files.iter().map(PathBuf::as_path).collect();
        let generated = if paths.is_empty() {
            Err(Diagnostics::default())
        } else {
            codegen::generate_files(&paths, &self.options)
        };
        let (name, (code, diags)) = match (name, generated) {
            (Ok(name), Ok(generated)) => (name, generated),
            (name, generated) => {
                let mut all = name.err().unwrap_or_default();
                all.extend(generated.map_or_else(|diags| diags, |(_, diags)| diags));
                return Err(all);
            }
        };
        let target = out_dir.join(format!("{name}.rs"));
        match write_if_changed(&target, code.as_bytes()) {
            Ok(_) => Ok((name, diags)),
            Err(e) => {
                let mut all = diags;
                let d = Diagnostic::error(
                    "unwritable-file",
                    Origin::default(),
                    format!("cannot write the generated module: {e}"),
                );
                all.push(d.help("check that the output directory exists and is writable"));
                Err(all.in_file(&target.display().to_string()))
            }
        }
    }
}

/// The module name of a DNA: the name given, or the first file's stem in snake_case. It must be
/// a plain Rust identifier, since `include_dna!(name)` names it, and not `taken` already.
fn module_name(dna: &DnaInput, taken: &[String]) -> Result<String, Diagnostics> {
    let (name, from) = match &dna.name {
        Some(name) => (name.clone(), "the name given"),
        None => {
            let stem = dna
                .files
                .first()
                .and_then(|f| f.file_stem())
                .map(|s| s.to_string_lossy());
            (naming::snake(&stem.unwrap_or_default()), "the file name")
        }
    };
    let rename = "name the module with `Builder::dna_files(name, files)`";
    let problem = if dna.files.is_empty() {
        let d = Diagnostic::error("no-files", Origin::default(), format!("the DNA `{name}` has no files"));
        d.help("pass at least one SHACL JSON or Turtle file")
    } else if let Some(problem) = module_name_problem(&name) {
        let message = format!("the module name `{name}` (from {from}) {problem}");
        let d = Diagnostic::error("invalid-module-name", Origin::default(), message);
        d.help(format!("{rename}, e.g. `chat` or `my_model`"))
    } else if taken.contains(&name) {
        let message = format!("another DNA of this build already generates the module `{name}`");
        let d = Diagnostic::error("duplicate-module", Origin::default(), message);
        d.help(format!("{rename} for one of them"))
    } else {
        return Ok(name);
    };
    // The name belongs to the build script's call; its first file is the nearest place to point at.
    let file = dna
        .files
        .first()
        .map_or("build.rs".to_string(), |f| f.display().to_string());
    Err(Diagnostics(vec![problem]).in_file(&file))
}

/// Why `name` cannot name a generated module, if it cannot: it must be ASCII letters, digits
/// and `_`, not start with a digit, and not be `_` or a keyword (`include_dna!` takes an ident).
fn module_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name == "_" {
        Some("is empty")
    } else if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Some("is not a Rust identifier (only ASCII letters, digits and `_`)")
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        Some("is not a Rust identifier (it starts with a digit)")
    } else if naming::field_ident(name) != name {
        Some("is a Rust keyword")
    } else {
        None
    }
}

/// Writes `bytes` to `path` unless the file already holds exactly them; whether it wrote.
fn write_if_changed(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, bytes)?;
    Ok(true)
}

/// What a build script says to cargo on stdout: one directive a line. Values cannot hold
/// newlines, so a multi-line text becomes one directive per line.
struct CargoOutput<'a>(&'a mut dyn Write);

impl CargoOutput<'_> {
    fn rerun_if_changed(&mut self, path: &Path) {
        self.directives("cargo:rerun-if-changed=", &path.display().to_string());
    }

    /// Errors as `cargo::error` (stable since cargo 1.84: it fails the build), warnings and
    /// notes as `cargo:warning`, each rendered like rustc, with file and location.
    fn diagnostics(&mut self, diags: &Diagnostics) {
        for d in diags.iter() {
            let prefix = match d.severity {
                Severity::Error => "cargo::error=",
                Severity::Warning | Severity::Note => "cargo:warning=",
            };
            self.directives(prefix, &d.to_string());
        }
    }

    fn directives(&mut self, prefix: &str, text: &str) {
        for line in text.lines() {
            // A build script whose stdout is gone cannot report anything anyway.
            let _ = writeln!(self.0, "{prefix}{line}");
        }
    }
}

/// Why [`Builder::compile`] failed. Its `Display` (and `Debug`, so that `.expect()` and
/// `main() -> Result` show it readably) is every diagnostic, rendered like rustc.
pub enum BuildError {
    /// Neither [`Builder::out_dir`] nor the `OUT_DIR` of a build script.
    NoOutDir,
    /// Every diagnostic of every DNA of the build (warnings and notes too); at least one error.
    Diagnostics(Diagnostics),
}

impl BuildError {
    /// The diagnostics, when the failure is in the DNAs.
    pub fn diagnostics(&self) -> Option<&Diagnostics> {
        match self {
            BuildError::NoOutDir => None,
            BuildError::Diagnostics(diags) => Some(diags),
        }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NoOutDir => write!(
                f,
                "no output directory: OUT_DIR is not set (call `Builder::out_dir`, or run from build.rs)"
            ),
            BuildError::Diagnostics(diags) => write!(f, "shacl-mcp could not compile the DNA:\n\n{diags}"),
        }
    }
}

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for BuildError {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    fn shared_dna(file: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../dna").join(file)
    }

    fn bad_dna(file: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/bad-dna")
            .join(file)
    }

    /// A fresh, empty directory under the system temp dir, unique to the test, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(test: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("shacl-mcp-builder-{}-{test}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    impl std::ops::Deref for TempDir {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    /// Compiles, returning the result and what cargo would have read.
    fn compile(builder: &Builder) -> (Result<(), BuildError>, String) {
        let mut out = Vec::new();
        let result = builder.compile_to(&mut out);
        (result, String::from_utf8(out).unwrap())
    }

    #[test]
    fn writes_the_module_named_after_the_file() {
        let dir = TempDir::new("writes");
        let (result, cargo) = compile(Builder::new().dna(shared_dna("zoo.json")).out_dir(&*dir));
        result.unwrap();
        let written = std::fs::read_to_string(dir.join("zoo.rs")).unwrap();
        let expected = codegen::generate_files(&[&shared_dna("zoo.json")], &Options::default())
            .unwrap()
            .0;
        assert_eq!(written, expected);
        // zoo's note (Animal's added marker) reaches cargo as a warning, with file and line.
        assert!(cargo.contains("cargo:warning=note[no-marker]"), "{cargo}");
        assert!(
            cargo.contains("cargo:warning=  --> ") && cargo.contains("zoo.json"),
            "{cargo}"
        );
        assert!(!cargo.contains("cargo::error="), "{cargo}");
    }

    #[test]
    fn prints_rerun_if_changed_for_every_input() {
        let dir = TempDir::new("rerun");
        let (result, cargo) = compile(
            Builder::new()
                .dna(shared_dna("tasks.json"))
                .dna_files("chat_both", [shared_dna("chat.json"), shared_dna("zoo.json")])
                .out_dir(&*dir),
        );
        // (chat and zoo together may not make a valid DNA: the reruns come first regardless.)
        let _ = result;
        let reruns: Vec<&str> = cargo
            .lines()
            .filter(|l| l.starts_with("cargo:rerun-if-changed="))
            .collect();
        let expected: Vec<String> = ["tasks.json", "chat.json", "zoo.json"]
            .iter()
            .map(|f| format!("cargo:rerun-if-changed={}", shared_dna(f).display()))
            .collect();
        assert_eq!(reruns, expected);
    }

    #[test]
    fn an_unchanged_module_is_not_rewritten() {
        let dir = TempDir::new("unchanged");
        let mut builder = Builder::new();
        builder.dna(shared_dna("chat.json")).out_dir(&*dir);
        compile(&builder).0.unwrap();
        let target = dir.join("chat.rs");
        // Backdate the file, so an unwanted rewrite shows whatever the clock's resolution.
        let past = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&target)
            .unwrap()
            .set_modified(past)
            .unwrap();

        compile(&builder).0.unwrap();
        assert_eq!(std::fs::metadata(&target).unwrap().modified().unwrap(), past);

        // A stale module is replaced.
        std::fs::write(&target, "stale").unwrap();
        compile(&builder).0.unwrap();
        let expected = codegen::generate_files(&[&shared_dna("chat.json")], &Options::default())
            .unwrap()
            .0;
        assert_eq!(std::fs::read_to_string(&target).unwrap(), expected);
    }

    #[test]
    fn a_bad_dna_fails_with_every_diagnostic() {
        let dir = TempDir::new("bad");
        let bad = bad_dna("unknown-key.json");
        let (result, cargo) = compile(Builder::new().dna(&bad).dna(shared_dna("chat.json")).out_dir(&*dir));
        let error = result.unwrap_err();
        let diags = error.diagnostics().unwrap();
        assert_eq!(diags.errors(), 3, "{error}");
        let text = error.to_string();
        assert_eq!(text.matches("error[unknown-key]").count(), 3, "{text}");
        let at = format!("{}:8:49 (/classes/0/properties/0/datatyp)", bad.display());
        assert!(text.contains(&at), "{text}");
        assert!(text.ends_with("3 errors, 1 note"), "{text}");
        assert_eq!(format!("{error:?}"), text);
        // Every line of every error reaches cargo as its own `cargo::error`.
        assert_eq!(cargo.matches("cargo::error=error[unknown-key]").count(), 3, "{cargo}");
        assert!(cargo.contains(&format!("cargo::error=  --> {at}")), "{cargo}");
        assert!(
            cargo.contains("cargo::error=   = help: did you mean `datatype`?"),
            "{cargo}"
        );
        // No module for the bad DNA; the good one is still written.
        assert!(!dir.join("unknown_key.rs").exists());
        assert!(dir.join("chat.rs").exists());
    }

    #[test]
    fn module_names_must_be_identifiers_and_distinct() {
        let dir = TempDir::new("names");
        let (result, cargo) = compile(
            Builder::new()
                .dna(shared_dna("chat.json"))
                .dna(shared_dna("chat.ttl"))
                .dna_files("type", [shared_dna("zoo.json")])
                .dna_files("my-zoo", [shared_dna("zoo.json")])
                .dna_files("empty", Vec::<PathBuf>::new())
                .out_dir(&*dir),
        );
        let error = result.unwrap_err();
        let codes: Vec<&str> = error
            .diagnostics()
            .unwrap()
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.code)
            .collect();
        assert_eq!(
            codes,
            [
                "duplicate-module",
                "invalid-module-name",
                "invalid-module-name",
                "no-files"
            ]
        );
        assert!(
            cargo.contains("`type` (from the name given) is a Rust keyword"),
            "{cargo}"
        );
        // File stems become snake_case module names.
        assert_eq!(module_name_problem(&naming::snake("My-Chat.v2")), None);
        for bad in ["", "_", "2fa", "self", "match", "a-b", "café"] {
            assert!(module_name_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn without_out_dir_it_says_so() {
        if std::env::var_os("OUT_DIR").is_some() {
            return;
        }
        let (result, cargo) = compile(Builder::new().dna(shared_dna("chat.json")));
        assert!(matches!(result, Err(BuildError::NoOutDir)));
        assert!(cargo.starts_with("cargo::error=no output directory"), "{cargo}");
    }
}
