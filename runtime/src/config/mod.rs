//! Serving configuration: flags, a TOML file with the same keys, and the environment, merged
//! (flags win over the file). Shared by `shacl-mcp serve` and generated server binaries.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::mcp::Secret;

mod database;

use database::is_postgres_url;
pub use database::{Database, default_db, postgres_schema};

/// The environment variable that holds the admin credential.
pub const CREDENTIAL_ENV: &str = "SHACL_MCP_ADMIN_CREDENTIAL";
/// The SMTP url for email verification when no flag or config key gives one (it may carry
/// `user:password@`).
pub const SMTP_URL_ENV: &str = "SHACL_MCP_SMTP_URL";
/// SMTP credentials, when not in the url.
pub const SMTP_USER_ENV: &str = "SHACL_MCP_SMTP_USER";
pub const SMTP_PASSWORD_ENV: &str = "SHACL_MCP_SMTP_PASSWORD";
/// The database when no flag or config key gives one: a SQLite path or a `postgres://` url.
/// The environment keeps a url's password out of the process list.
pub const DB_ENV: &str = "SHACL_MCP_DB";

/// Where and how to serve.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub dna: Vec<PathBuf>,
    pub db: Database,
    pub transport: Transport,
    pub dynamic_class_tools: bool,
    pub jsonrpc_validation_errors: bool,
    pub http_sessions: bool,
    pub allowed_hosts: Vec<String>,
    pub allowed_origins: Vec<String>,
    pub max_body: Option<usize>,
    pub admin_credential: Option<Secret>,
    /// Multi-user mode: accounts, per-user perspectives and keys.
    pub multi_user: bool,
    /// Multi-user mode: signup and code logins verified by mail.
    pub email_verification: bool,
    /// Mail goes into this folder, one `.eml` per message (development, tests).
    pub email_outbox: Option<PathBuf>,
    /// Mail goes through this SMTP server (a secret: it may carry credentials).
    pub smtp_url: Option<Secret>,
    /// SMTP user and password, when not in the url.
    pub smtp_credentials: Option<(String, Secret)>,
    /// The sender of the mail (`Name <address>`).
    pub mail_from: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http(SocketAddr),
}

/// The default HTTP address.
pub const DEFAULT_HTTP: &str = "127.0.0.1:3001";

/// The TOML file: every key optional, the same names as the flags (camelCase as in
/// tool-surface.md's `dynamicClassTools`). Unknown keys are an error.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConfigFile {
    pub dna: Option<Vec<PathBuf>>,
    pub db: Option<PathBuf>,
    pub stdio: Option<bool>,
    pub http: Option<String>,
    pub dynamic_class_tools: Option<bool>,
    pub jsonrpc_validation_errors: Option<bool>,
    pub http_sessions: Option<bool>,
    pub allowed_hosts: Option<Vec<String>>,
    pub allowed_origins: Option<Vec<String>>,
    pub max_body: Option<usize>,
    pub admin_credential_file: Option<PathBuf>,
    pub multi_user: Option<bool>,
    pub email_verification: Option<bool>,
    pub email_outbox: Option<PathBuf>,
    pub smtp_url: Option<String>,
    pub mail_from: Option<String>,
}

impl ConfigFile {
    /// Reads a config file; relative paths in it are taken from the file's folder.
    pub fn read(path: &Path) -> Result<ConfigFile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read config {}: {e}", path.display()))?;
        let mut file: ConfigFile = toml::from_str(&text).map_err(|e| format!("config {}: {e}", path.display()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        let rebase = |p: &mut PathBuf| {
            if p.is_relative() && p.as_os_str() != ":memory:" && !p.to_str().is_some_and(is_postgres_url) {
                *p = base.join(&*p);
            }
        };
        file.dna.iter_mut().flatten().for_each(rebase);
        file.db.iter_mut().for_each(rebase);
        file.admin_credential_file.iter_mut().for_each(rebase);
        file.email_outbox.iter_mut().for_each(rebase);
        Ok(file)
    }
}

/// Serving flags as given (`shacl-mcp serve` and generated binaries parse the same ones);
/// [`Flags::into_config`] merges them over a config file.
#[derive(Clone, Debug, Default)]
pub struct Flags {
    pub dna: Vec<PathBuf>,
    pub db: Option<PathBuf>,
    pub stdio: bool,
    pub http: Option<String>,
    pub dynamic_class_tools: Option<bool>,
    pub jsonrpc_validation_errors: Option<bool>,
    pub http_sessions: Option<bool>,
    pub allowed_hosts: Vec<String>,
    pub allowed_origins: Vec<String>,
    pub max_body: Option<usize>,
    pub admin_credential_file: Option<PathBuf>,
    pub multi_user: Option<bool>,
    pub email_verification: Option<bool>,
    pub email_outbox: Option<PathBuf>,
    pub smtp_url: Option<String>,
    pub mail_from: Option<String>,
    pub config: Option<PathBuf>,
}

impl Flags {
    /// Flags over the config file over the defaults; `default_class_tools` is `false` for
    /// `shacl-mcp serve` and `true` for a generated server binary (tool-surface.md).
    pub fn into_config(self, default_class_tools: bool) -> Result<ServeConfig, String> {
        let file = match &self.config {
            Some(path) => ConfigFile::read(path)?,
            None => ConfigFile::default(),
        };
        let dna = if self.dna.is_empty() {
            file.dna.unwrap_or_default()
        } else {
            self.dna
        };
        let file_http = if file.stdio == Some(true) { None } else { file.http };
        let transport = match (self.stdio, self.http.or(file_http)) {
            (false, Some(addr)) => Transport::Http(parse_addr(&addr)?),
            _ => Transport::Stdio,
        };
        let credential_file = self.admin_credential_file.or(file.admin_credential_file);
        let or = |flags: Vec<String>, file: Option<Vec<String>>| {
            if flags.is_empty() {
                file.unwrap_or_default()
            } else {
                flags
            }
        };
        let multi_user = self.multi_user.or(file.multi_user).unwrap_or(false);
        let email_verification = self.email_verification.or(file.email_verification).unwrap_or(false);
        if email_verification && !multi_user {
            return Err("email verification is for multi-user mode: add --multi-user".into());
        }
        let smtp_url = self
            .smtp_url
            .or(file.smtp_url)
            .or_else(|| std::env::var(SMTP_URL_ENV).ok())
            .and_then(Secret::new);
        let smtp_credentials = match (std::env::var(SMTP_USER_ENV), std::env::var(SMTP_PASSWORD_ENV)) {
            (Ok(user), Ok(password)) if !user.is_empty() => Secret::new(password).map(|p| (user, p)),
            _ => None,
        };
        Ok(ServeConfig {
            dna,
            db: Database::from_setting(
                self.db
                    .or(file.db)
                    .or_else(|| std::env::var_os(DB_ENV).filter(|v| !v.is_empty()).map(PathBuf::from))
                    .unwrap_or_else(default_db),
            ),
            transport,
            dynamic_class_tools: self
                .dynamic_class_tools
                .or(file.dynamic_class_tools)
                .unwrap_or(default_class_tools),
            jsonrpc_validation_errors: self
                .jsonrpc_validation_errors
                .or(file.jsonrpc_validation_errors)
                .unwrap_or(false),
            http_sessions: self.http_sessions.or(file.http_sessions).unwrap_or(false),
            allowed_hosts: or(self.allowed_hosts, file.allowed_hosts),
            allowed_origins: or(self.allowed_origins, file.allowed_origins),
            max_body: self.max_body.or(file.max_body),
            admin_credential: admin_credential(credential_file.as_deref())?,
            multi_user,
            email_verification,
            email_outbox: self.email_outbox.or(file.email_outbox),
            smtp_url,
            smtp_credentials,
            mail_from: self.mail_from.or(file.mail_from),
        })
    }
}

/// Reads the admin credential: a file (its first line) wins over the environment.
pub fn admin_credential(file: Option<&Path>) -> Result<Option<Secret>, String> {
    if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the credential file {}: {e}", path.display()))?;
        let first = text.lines().next().unwrap_or_default().trim().to_string();
        return Secret::new(first)
            .map(Some)
            .ok_or_else(|| format!("the credential file {} is empty", path.display()));
    }
    Ok(std::env::var(CREDENTIAL_ENV).ok().and_then(Secret::new))
}

/// Parses `ADDR` or `PORT` (`:3001`, `3001`, `0.0.0.0:8080`).
pub fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    if let Ok(port) = text.trim_start_matches(':').parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse()
        .map_err(|_| format!("`{text}` is not an address such as 127.0.0.1:3001"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert_eq!(parse_addr("3001").unwrap(), "127.0.0.1:3001".parse().unwrap());
        assert_eq!(parse_addr(":8080").unwrap(), "127.0.0.1:8080".parse().unwrap());
        assert_eq!(parse_addr("0.0.0.0:9").unwrap(), "0.0.0.0:9".parse().unwrap());
        assert!(parse_addr("nowhere").is_err());
    }

    #[test]
    fn config_keys_are_strict() {
        let file: ConfigFile =
            toml::from_str("dna = [\"a.json\"]\ndynamicClassTools = true\nhttp = \"127.0.0.1:4000\"").unwrap();
        assert_eq!(file.dynamic_class_tools, Some(true));
        assert!(toml::from_str::<ConfigFile>("dynamic_class_tools = true").is_err());
        let file: ConfigFile = toml::from_str(
            "multiUser = true\nemailVerification = true\nemailOutbox = \"out\"\nsmtpUrl = \"smtps://mail.example.org\"\nmailFrom = \"x <x@example.org>\"",
        )
        .unwrap();
        assert_eq!((file.multi_user, file.email_verification), (Some(true), Some(true)));
        assert_eq!(file.email_outbox, Some(PathBuf::from("out")));
    }

    #[test]
    fn email_verification_needs_multi_user() {
        let flags = Flags {
            email_verification: Some(true),
            ..Flags::default()
        };
        assert!(flags.into_config(false).unwrap_err().contains("--multi-user"));
        let flags = Flags {
            email_verification: Some(true),
            multi_user: Some(true),
            email_outbox: Some(PathBuf::from("out")),
            ..Flags::default()
        };
        let config = flags.into_config(false).unwrap();
        assert!(config.multi_user && config.email_verification);
        assert!(!format!("{config:?}").contains("smtps://"));
    }
}
