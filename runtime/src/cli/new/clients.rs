//! What `shacl-mcp new` prints when the crate is written: how to build and serve it, and the
//! client configuration to paste (Claude Desktop, Claude Code over stdio and over HTTP), with
//! the absolute path of the binary the crate builds.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::config::DEFAULT_HTTP;

/// The release binary `cargo build --release` makes in `crate_dir`: in `$CARGO_TARGET_DIR`
/// when that is set (relative to the crate, as cargo run there takes it), else in the crate's
/// own `target/`.
pub fn release_binary(crate_dir: &Path, name: &str, target_dir: Option<PathBuf>) -> PathBuf {
    let target = match target_dir.filter(|t| !t.as_os_str().is_empty()) {
        Some(dir) => crate_dir.join(dir),
        None => crate_dir.join("target"),
    };
    target
        .join("release")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// Claude Desktop's `claude_desktop_config.json` with this one server, over stdio.
pub fn claude_desktop(name: &str, binary: &Path) -> String {
    let config = json!({
        "mcpServers": { name: { "command": binary.display().to_string(), "args": ["--stdio"] } }
    });
    serde_json::to_string_pretty(&config).unwrap_or_default()
}

/// The text after the crate is written. `crate_dir` is absolute.
pub fn next_steps(name: &str, crate_dir: &Path, binary: &Path, module: &str, dna_file: &str) -> String {
    let dir = shell_word(&crate_dir.display().to_string());
    let bin = shell_word(&binary.display().to_string());
    let url = format!("http://{DEFAULT_HTTP}/mcp");
    let desktop = claude_desktop(name, binary);
    format!(
        "Created `{name}` in {dir}: an MCP server for the DNA `{module}` (dna/{dna_file}).

Build and try it:
    cd {dir}
    cargo run -- --stdio       # newline-delimited JSON-RPC on stdin/stdout
    cargo run -- --http        # streamable HTTP at {url}
    cargo build --release      # the binary the clients below start: {bin}

Claude Desktop: add to claude_desktop_config.json (Settings > Developer > Edit Config), over stdio:
{desktop}

Claude Code, over stdio:
    claude mcp add {name} -- {bin} --stdio

Claude Code, over streamable HTTP, with the server started first ({bin} --http):
    claude mcp add --transport http {name} {url}

README.md has every flag, credentials for HTTP, and multi-user mode.
"
    )
}

/// `text` as one shell word: as it is when it holds only characters no shell treats
/// specially, else in single quotes.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_is_in_the_target_dir_cargo_uses() {
        let dir = Path::new("/src/demo");
        let exe = std::env::consts::EXE_SUFFIX;
        assert_eq!(
            release_binary(dir, "demo", None),
            PathBuf::from(format!("/src/demo/target/release/demo{exe}"))
        );
        assert_eq!(
            release_binary(dir, "demo", Some("/tmp/t".into())),
            PathBuf::from(format!("/tmp/t/release/demo{exe}"))
        );
        assert_eq!(
            release_binary(dir, "demo", Some("out".into())),
            PathBuf::from(format!("/src/demo/out/release/demo{exe}"))
        );
    }

    #[test]
    fn paths_are_quoted_for_the_shell_and_escaped_in_json() {
        assert_eq!(shell_word("/src/demo/target"), "/src/demo/target");
        assert_eq!(shell_word("/My Files/it's"), r"'/My Files/it'\''s'");
        let config: serde_json::Value =
            serde_json::from_str(&claude_desktop("demo", Path::new("/My \"Files\"/demo"))).unwrap();
        assert_eq!(config["mcpServers"]["demo"]["command"], "/My \"Files\"/demo");
        assert_eq!(config["mcpServers"]["demo"]["args"], json!(["--stdio"]));
    }
}
