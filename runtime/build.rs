//! The commit `shacl-mcp --version` names (`shacl-mcp 0.1.0 (commit 1a2b3c4d5e6f)`), as
//! `SHACL_MCP_VERSION`: from `.cargo_vcs_info.json` in a packaged crate (`cargo package` writes
//! it; `cargo install shacl-mcp` builds from one), else from `git rev-parse` in a checkout, else
//! none (the version alone). No dependencies, one `git` run, and reruns only when the checkout's
//! HEAD or the branch it points to moves.

use std::path::{Path, PathBuf};
use std::process::Command;

/// As many hex digits as the version shows.
const SHORT: usize = 12;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    // A packaged crate first: unpacked somewhere under a git checkout of something else (a home
    // folder kept in git), `git` would name that repository's commit.
    let commit = packaged_commit(&manifest).or_else(|| checkout_commit(&manifest));
    let text = match commit {
        Some(sha) => format!("{version} (commit {})", &sha[..SHORT]),
        None => version,
    };
    println!("cargo::rustc-env=SHACL_MCP_VERSION={text}");
}

/// `git.sha1` of `.cargo_vcs_info.json`:
/// `{ "git": { "sha1": "…", "dirty": true }, "path_in_vcs": "runtime" }`.
fn packaged_commit(manifest: &Path) -> Option<String> {
    let file = manifest.join(".cargo_vcs_info.json");
    let text = std::fs::read_to_string(&file).ok()?;
    println!("cargo::rerun-if-changed={}", file.display());
    let after = &text[text.find("\"sha1\"")? + "\"sha1\"".len()..];
    let value = after.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    commit_id(&value[..value.find('"')?])
}

/// HEAD of the checkout the crate is built in, watching the files that say where HEAD is.
fn checkout_commit(manifest: &Path) -> Option<String> {
    let output = Command::new("git")
        .current_dir(manifest)
        .args([
            "rev-parse",
            "HEAD",
            "--absolute-git-dir",
            "--git-common-dir",
            "--symbolic-full-name",
            "HEAD",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8(output.stdout).ok()?;
    let mut lines = text.lines();
    let (sha, git_dir, common_dir, head_ref) = (lines.next()?, lines.next()?, lines.next()?, lines.next()?);
    // A worktree has HEAD in its own git dir and the branches in the common one.
    let git_dir = Path::new(git_dir);
    let common_dir = manifest.join(common_dir);
    println!("cargo::rerun-if-changed={}", git_dir.join("HEAD").display());
    if head_ref.starts_with("refs/") {
        watch_ref(&common_dir, head_ref);
    }
    commit_id(sha)
}

/// The branch's own file; when it is packed (`git pack-refs`), `packed-refs` and the folder a
/// new commit writes the branch's file into. Only files that exist: cargo reruns every build
/// for one that does not.
fn watch_ref(common_dir: &Path, head_ref: &str) {
    let loose = common_dir.join(head_ref);
    let watched = if loose.is_file() {
        vec![loose]
    } else {
        let folder = loose.parent().map(Path::to_path_buf);
        [Some(common_dir.join("packed-refs")), folder]
            .into_iter()
            .flatten()
            .collect()
    };
    for path in watched.iter().filter(|p| p.exists()) {
        println!("cargo::rerun-if-changed={}", path.display());
    }
}

/// A full commit id (40 or 64 hex digits), or nothing.
fn commit_id(text: &str) -> Option<String> {
    let text = text.trim();
    let full = matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit());
    full.then(|| text.to_ascii_lowercase())
}
