//! The serve settings, each once: `shacl-mcp serve`'s flags (clap), a generated binary's flags
//! and `--help`, and the config file's keys are all made from this table. A new setting is a
//! new entry here, and a use of it in [`super::Flags::into_config`].

use std::path::PathBuf;

use super::DEFAULT_HTTP;
use super::table::{Kind, serve_settings};

serve_settings! {
    /// DNA files (SHACL JSON or Turtle): the fixed DNA, present in every perspective.
    dna: Vec<PathBuf> { flag: "dna", key: "dna", value: "FILE", kind: Kind::Values, in_binary: false },
    /// The store: a SQLite file, `:memory:`, or a PostgreSQL url
    /// `postgres://user@host:port/db[?schema=NAME]` that several nodes share (else SHACL_MCP_DB,
    /// which keeps a password out of the process list).
    db: PathBuf {
        flag: "db", key: "db", value: "PATH|URL", kind: Kind::Value,
        default: "shacl-mcp/store.db in the platform data directory", secret: true,
    },
    /// Serve newline-delimited JSON-RPC on stdin/stdout (the default).
    stdio: bool { flag: "stdio", key: "stdio", value: "", kind: Kind::Switch },
    /// Serve streamable HTTP at /mcp on ADDR.
    http: String {
        flag: "http", key: "http", value: "ADDR", kind: Kind::OptionalValue { missing: DEFAULT_HTTP },
    },
    /// Per-class tools (`channel_create`, ...) beside the static ones.
    dynamic_class_tools: bool {
        flag: "dynamic-class-tools", key: "dynamicClassTools", value: "true|false", kind: Kind::Value,
        default: "false",
    },
    /// Report schema and shape failures as JSON-RPC -32602 instead of tool results.
    jsonrpc_validation_errors: bool {
        flag: "jsonrpc-validation-errors", key: "jsonrpcValidationErrors", value: "true|false",
        kind: Kind::Value, default: "false",
    },
    /// HTTP with sessions (Mcp-Session-Id) instead of stateless requests.
    http_sessions: bool {
        flag: "http-sessions", key: "httpSessions", value: "true|false", kind: Kind::Value, default: "false",
    },
    /// Another Host the HTTP server answers to (behind a proxy); repeatable.
    allowed_hosts: Vec<String> { flag: "allowed-host", key: "allowedHosts", value: "HOST", kind: Kind::Repeated },
    /// Another Origin allowed to call the HTTP server; repeatable.
    allowed_origins: Vec<String> {
        flag: "allowed-origin", key: "allowedOrigins", value: "ORIGIN", kind: Kind::Repeated,
    },
    /// Largest HTTP request body in bytes.
    max_body: usize { flag: "max-body", key: "maxBody", value: "BYTES", kind: Kind::Value, default: "4 MiB" },
    /// A file whose first line is the admin credential (else SHACL_MCP_ADMIN_CREDENTIAL; never a
    /// flag of its own: it would show in the process list).
    admin_credential_file: PathBuf {
        flag: "admin-credential-file", key: "adminCredentialFile", value: "FILE", kind: Kind::Value,
    },
    /// Multi-user mode: accounts (signup, login_email), each user's own perspectives and key.
    multi_user: bool {
        flag: "multi-user", key: "multiUser", value: "true|false", kind: Kind::OptionalValue { missing: "true" },
        default: "false",
    },
    /// Multi-user mode: verify signups and code logins by mail.
    email_verification: bool {
        flag: "email-verification", key: "emailVerification", value: "true|false", kind: Kind::Value,
        default: "false",
    },
    /// Write mail into DIR, one .eml file per message, instead of sending it (development).
    email_outbox: PathBuf { flag: "email-outbox", key: "emailOutbox", value: "DIR", kind: Kind::Value },
    /// Send mail through this SMTP server (smtps://host:465, smtp://host:587?tls=required; else
    /// SHACL_MCP_SMTP_URL; credentials in SHACL_MCP_SMTP_USER and SHACL_MCP_SMTP_PASSWORD).
    smtp_url: String { flag: "smtp-url", key: "smtpUrl", value: "URL", kind: Kind::Value, secret: true },
    /// The sender of the mail, `Name <address>`.
    mail_from: String { flag: "mail-from", key: "mailFrom", value: "MAILBOX", kind: Kind::Value },
}

/// Settings that exclude each other on the command line (a config file may hold both: the
/// first wins there, as in [`super::Flags::into_config`]).
pub const EXCLUSIVE: &[(&str, &str)] = &[("stdio", "http")];

/// `--config FILE`: not a setting (a config file cannot name another), the flag that names the
/// file the settings come from.
pub const CONFIG_FLAG: &str = "config";

/// The help text of `--config`, with every key.
pub fn config_help() -> String {
    let keys: Vec<&str> = SETTINGS.iter().map(|s| s.key).collect();
    format!(
        "A TOML file with the same settings, keys in camelCase ({}); flags win, unknown keys are errors.",
        keys.join(", ")
    )
}
