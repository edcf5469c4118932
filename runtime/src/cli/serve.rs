//! `shacl-mcp serve`: any DNA, no compile.

use std::path::PathBuf;

use clap::Args;

use crate::config::{DEFAULT_HTTP, Flags};
use crate::engine::FixedDna;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// DNA files (SHACL JSON or Turtle): the fixed DNA, present in every perspective.
    #[arg(long = "dna", value_name = "FILE", num_args = 1..)]
    dna: Vec<PathBuf>,
    /// The store: a SQLite file (default: the platform data directory), `:memory:`, or a
    /// PostgreSQL url `postgres://user@host:port/db[?schema=NAME]` that several nodes share
    /// (else SHACL_MCP_DB, which keeps a password out of the process list).
    #[arg(long, value_name = "PATH|URL")]
    db: Option<PathBuf>,
    /// Serve newline-delimited JSON-RPC on stdin/stdout (the default).
    #[arg(long, conflicts_with = "http")]
    stdio: bool,
    /// Serve streamable HTTP at /mcp on ADDR (default 127.0.0.1:3001).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_HTTP)]
    http: Option<String>,
    /// Per-class tools (`channel_create`, ...) beside the static ones.
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set)]
    dynamic_class_tools: Option<bool>,
    /// Report schema and shape failures as JSON-RPC -32602 instead of tool results.
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set)]
    jsonrpc_validation_errors: Option<bool>,
    /// HTTP with sessions (Mcp-Session-Id) instead of stateless requests.
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set)]
    http_sessions: Option<bool>,
    /// Another Host the HTTP server answers to (behind a proxy); repeatable.
    #[arg(long = "allowed-host", value_name = "HOST")]
    allowed_hosts: Vec<String>,
    /// Another Origin allowed to call the HTTP server; repeatable.
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    allowed_origins: Vec<String>,
    /// Largest HTTP request body in bytes (default 4 MiB).
    #[arg(long, value_name = "BYTES")]
    max_body: Option<usize>,
    /// A file whose first line is the admin credential (else SHACL_MCP_ADMIN_CREDENTIAL).
    #[arg(long, value_name = "FILE")]
    admin_credential_file: Option<PathBuf>,
    /// Multi-user mode: accounts (signup, login_email), each user's own perspectives and key.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    multi_user: Option<bool>,
    /// Multi-user mode: verify signups and code logins by mail.
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set)]
    email_verification: Option<bool>,
    /// Write mail into DIR, one .eml file per message, instead of sending it (development).
    #[arg(long, value_name = "DIR")]
    email_outbox: Option<PathBuf>,
    /// Send mail through this SMTP server (smtps://host:465, smtp://host:587?tls=required; else
    /// SHACL_MCP_SMTP_URL; credentials in SHACL_MCP_SMTP_USER and SHACL_MCP_SMTP_PASSWORD).
    #[arg(long, value_name = "URL")]
    smtp_url: Option<String>,
    /// The sender of the mail, `Name <address>`.
    #[arg(long, value_name = "MAILBOX")]
    mail_from: Option<String>,
    /// A TOML file with the same keys (camelCase: dynamicClassTools, ...); flags win.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

impl ServeArgs {
    fn into_flags(self) -> Flags {
        Flags {
            dna: self.dna,
            db: self.db,
            stdio: self.stdio,
            http: self.http,
            dynamic_class_tools: self.dynamic_class_tools,
            jsonrpc_validation_errors: self.jsonrpc_validation_errors,
            http_sessions: self.http_sessions,
            allowed_hosts: self.allowed_hosts,
            allowed_origins: self.allowed_origins,
            max_body: self.max_body,
            admin_credential_file: self.admin_credential_file,
            multi_user: self.multi_user,
            email_verification: self.email_verification,
            email_outbox: self.email_outbox,
            smtp_url: self.smtp_url,
            mail_from: self.mail_from,
            config: self.config,
        }
    }
}

/// Runs the server; the exit code is 1 for a bad DNA or configuration.
pub fn run(args: ServeArgs) -> std::process::ExitCode {
    crate::run::init_logging();
    let config = match args.into_flags().into_config(false) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    let fixed = if config.dna.is_empty() {
        FixedDna::empty()
    } else {
        match FixedDna::load(&config.dna) {
            Ok((fixed, notes)) => {
                if !notes.0.is_empty() {
                    eprintln!("{notes}");
                }
                fixed
            }
            Err(diags) => {
                eprintln!("{diags}");
                return std::process::ExitCode::from(1);
            }
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    match runtime.block_on(crate::run::serve(
        config,
        fixed,
        "shacl-mcp",
        env!("CARGO_PKG_VERSION"),
        Vec::new(),
    )) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
