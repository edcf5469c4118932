//! The `main` of a server binary for one compiled DNA (`shacl-mcp new` writes one): the flags
//! of `shacl-mcp serve` less `--dna`, with per-class tools on by default. No clap: a generated
//! server carries neither a code generator nor an argument-parser generator.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::compiled::CompiledDna;
use crate::config::{DEFAULT_HTTP, Flags};
use crate::engine::FixedDna;

/// Parses the process's arguments and serves `D` until stdin ends or Ctrl-C.
/// `name` and `version` are the serving crate's (`serverInfo`), usually
/// `env!("CARGO_PKG_NAME")` and `env!("CARGO_PKG_VERSION")`.
pub fn serve<D: CompiledDna>(name: &str, version: &str) -> ExitCode {
    serve_with::<D>(name, version, Vec::new())
}

/// [`serve`] with hand-written tools beside the generated ones.
pub fn serve_with<D: CompiledDna>(name: &str, version: &str, custom_tools: Vec<crate::mcp::CustomTool>) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
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
            eprintln!("error: {e}\n\n{}", usage(name));
            return ExitCode::from(2);
        }
    };
    crate::run::init_logging();
    let config = match flags.into_config(true) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let fixed = match FixedDna::compiled::<D>() {
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

enum Parsed {
    Flags(Box<Flags>),
    Help,
    Version,
}

fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut flags = Flags::default();
    let mut i = 0;
    while i < args.len() {
        let (key, inline) = match args[i].split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k.to_string(), Some(v.to_string())),
            _ => (args[i].clone(), None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            i += 1;
            args.get(i).cloned().ok_or_else(|| format!("{key} needs {what}"))
        };
        let boolean = |text: String| -> Result<bool, String> {
            match text.as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                other => Err(format!("{key} takes true or false, not {other:?}")),
            }
        };
        match key.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "-V" | "--version" => return Ok(Parsed::Version),
            "--stdio" => flags.stdio = true,
            "--http" => {
                // The address is optional: `--http` alone is 127.0.0.1:3001.
                let next = inline
                    .clone()
                    .or_else(|| args.get(i + 1).filter(|a| !a.starts_with("--")).cloned());
                if next.is_some() && inline.is_none() {
                    i += 1;
                }
                flags.http = Some(next.unwrap_or_else(|| DEFAULT_HTTP.to_string()));
            }
            "--db" => flags.db = Some(PathBuf::from(value("a path or a postgres:// url")?)),
            "--dynamic-class-tools" => flags.dynamic_class_tools = Some(boolean(value("true or false")?)?),
            "--jsonrpc-validation-errors" => flags.jsonrpc_validation_errors = Some(boolean(value("true or false")?)?),
            "--http-sessions" => flags.http_sessions = Some(boolean(value("true or false")?)?),
            "--allowed-host" => flags.allowed_hosts.push(value("a host")?),
            "--allowed-origin" => flags.allowed_origins.push(value("an origin")?),
            "--max-body" => {
                let text = value("a number of bytes")?;
                flags.max_body = Some(
                    text.parse()
                        .map_err(|_| format!("--max-body takes a number of bytes, not {text:?}"))?,
                );
            }
            "--admin-credential-file" => flags.admin_credential_file = Some(PathBuf::from(value("a file")?)),
            "--multi-user" => {
                // The value is optional: `--multi-user` alone is true.
                let next = inline
                    .clone()
                    .or_else(|| args.get(i + 1).filter(|a| *a == "true" || *a == "false").cloned());
                if next.is_some() && inline.is_none() {
                    i += 1;
                }
                flags.multi_user = Some(boolean(next.unwrap_or_else(|| "true".to_string()))?);
            }
            "--email-verification" => flags.email_verification = Some(boolean(value("true or false")?)?),
            "--email-outbox" => flags.email_outbox = Some(PathBuf::from(value("a folder")?)),
            "--smtp-url" => flags.smtp_url = Some(value("an smtp:// or smtps:// url")?),
            "--mail-from" => flags.mail_from = Some(value("a mailbox")?),
            "--config" => flags.config = Some(PathBuf::from(value("a file")?)),
            "--dna" => return Err("this server's DNA is compiled in; --dna is for `shacl-mcp serve`".to_string()),
            other => return Err(format!("unknown argument {other:?}")),
        }
        i += 1;
    }
    if flags.stdio && flags.http.is_some() {
        return Err("--stdio and --http exclude each other".to_string());
    }
    Ok(Parsed::Flags(Box::new(flags)))
}

fn usage(name: &str) -> String {
    format!(
        "Usage: {name} [--stdio | --http [ADDR]] [--db PATH|URL] [--dynamic-class-tools true|false]
       [--jsonrpc-validation-errors true|false] [--http-sessions true|false]
       [--allowed-host HOST]... [--allowed-origin ORIGIN]... [--max-body BYTES]
       [--admin-credential-file FILE] [--multi-user [true|false]]
       [--email-verification true|false] [--email-outbox DIR] [--smtp-url URL]
       [--mail-from MAILBOX] [--config FILE]

An MCP server for its compiled DNA: stdio by default, streamable HTTP at /mcp with --http
(default {DEFAULT_HTTP}). Per-class tools are on unless --dynamic-class-tools false.
The admin credential comes from SHACL_MCP_ADMIN_CREDENTIAL or --admin-credential-file.
Multi-user mode signs tokens with SHACL_MCP_JWT_SECRET, else a secret generated into
<db>.jwt-secret; SMTP credentials come from SHACL_MCP_SMTP_USER and SHACL_MCP_SMTP_PASSWORD."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(args: &[&str]) -> Result<Flags, String> {
        match parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())? {
            Parsed::Flags(f) => Ok(*f),
            _ => Err("not flags".into()),
        }
    }

    #[test]
    fn parses_the_serve_flags() {
        let f = flags(&["--http", "--db", ":memory:", "--dynamic-class-tools=false"]).unwrap();
        assert_eq!(f.http.as_deref(), Some(DEFAULT_HTTP));
        assert_eq!(f.db, Some(PathBuf::from(":memory:")));
        assert_eq!(f.dynamic_class_tools, Some(false));
        let f = flags(&["--http", "127.0.0.1:4000", "--allowed-host", "a", "--allowed-host", "b"]).unwrap();
        assert_eq!(f.http.as_deref(), Some("127.0.0.1:4000"));
        assert_eq!(f.allowed_hosts, ["a", "b"]);
        assert!(flags(&["--dna", "x.json"]).unwrap_err().contains("compiled in"));
        assert!(flags(&["--dynamic-class-tools", "yes"]).is_err());
        assert!(flags(&["--stdio", "--http"]).is_err());
        assert!(flags(&["--frob"]).is_err());
        let f = flags(&["--multi-user", "--http"]).unwrap();
        assert_eq!((f.multi_user, f.http.is_some()), (Some(true), true));
        let f = flags(&[
            "--multi-user",
            "false",
            "--email-verification",
            "true",
            "--email-outbox",
            "out",
        ])
        .unwrap();
        assert_eq!((f.multi_user, f.email_verification), (Some(false), Some(true)));
        assert_eq!(f.email_outbox, Some(PathBuf::from("out")));
        assert_eq!(flags(&["--multi-user=true"]).unwrap().multi_user, Some(true));
        assert!(flags(&["--multi-user=maybe"]).is_err());
        let config = flags(&[]).unwrap().into_config(true).unwrap();
        assert!(
            config.dynamic_class_tools,
            "a generated binary has per-class tools on by default"
        );
    }
}
