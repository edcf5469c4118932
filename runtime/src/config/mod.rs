//! Serving configuration: flags, a TOML file with the same keys, and the environment, merged
//! (flags win over the file). Shared by `shacl-mcp serve` and generated server binaries; the
//! settings themselves are listed once, in [`SETTINGS`].

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crate::mcp::http::HttpOptions;
use crate::mcp::{Secret, ServerOptions};

mod database;
mod settings;
pub(crate) mod table;
mod value;

use database::is_postgres_url;
pub use database::{Database, default_db, postgres_schema};
pub use settings::{CONFIG_FLAG, EXCLUSIVE, SETTINGS, Settings, config_help};
pub use table::{Kind, Setting};
pub use value::SettingValue;

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

/// Where and how to serve: the settings resolved (flags over the config file over the
/// defaults, secrets read), as the server's own option types.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub dna: Vec<PathBuf>,
    pub db: Database,
    pub transport: Transport,
    /// The handler's settings (per-class tools, JSON-RPC validation errors, the admin
    /// credential); the serving program fills in the rest (its name, its tools, the accounts).
    pub server: ServerOptions,
    /// Multi-user mode; `None` is single-user mode.
    pub multi_user: Option<MultiUser>,
}

/// stdio, or streamable HTTP with its options (address, sessions, body limit, hosts, origins).
#[derive(Clone, Debug)]
pub enum Transport {
    Stdio,
    Http(HttpOptions),
}

/// Multi-user mode's settings.
#[derive(Clone, Debug, Default)]
pub struct MultiUser {
    /// Signup and code logins verified by mail.
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

/// The default HTTP address.
pub const DEFAULT_HTTP: &str = "127.0.0.1:3001";

impl Settings {
    /// Reads a config file; relative paths in it are taken from the file's folder.
    pub fn read(path: &Path) -> Result<Settings, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read config {}: {e}", path.display()))?;
        let mut file: Settings = toml::from_str(&text).map_err(|e| format!("config {}: {e}", path.display()))?;
        file.rebase(path.parent().unwrap_or(Path::new(".")));
        Ok(file)
    }
}

/// The serve flags as given (`shacl-mcp serve` and generated binaries parse the same ones,
/// [`SETTINGS`]); [`Flags::into_config`] merges them over a config file.
#[derive(Clone, Debug, Default)]
pub struct Flags {
    pub settings: Settings,
    /// `--config FILE`.
    pub config: Option<PathBuf>,
}

impl Flags {
    /// Flags over the config file over the defaults; `default_class_tools` is `false` for
    /// `shacl-mcp serve` and `true` for a generated server binary (docs/tools.md).
    pub fn into_config(self, default_class_tools: bool) -> Result<ServeConfig, String> {
        let file = match &self.config {
            Some(path) => Settings::read(path)?,
            None => Settings::default(),
        };
        let transport = transport(&self.settings, &file)?;
        let given = self.settings.or(file);
        let multi_user = multi_user(&given)?;
        let credential_file = given.admin_credential_file.as_deref();
        let server = ServerOptions {
            class_tools: given.dynamic_class_tools.unwrap_or(default_class_tools),
            jsonrpc_validation_errors: given.jsonrpc_validation_errors.unwrap_or(false),
            admin_credential: admin_credential(credential_file)?,
            ..ServerOptions::default()
        };
        let db = given
            .db
            .clone()
            .or_else(|| std::env::var_os(DB_ENV).filter(|v| !v.is_empty()).map(PathBuf::from))
            .unwrap_or_else(default_db);
        let transport = match transport {
            None => Transport::Stdio,
            Some(addr) => Transport::Http(http_options(addr, &given)),
        };
        Ok(ServeConfig {
            dna: given.dna.unwrap_or_default(),
            db: Database::from_setting(db),
            transport,
            server,
            multi_user,
        })
    }
}

/// The HTTP address, or `None` for stdio. On the command line `--stdio` and `--http` exclude
/// each other; a flag wins over the file, and in the file `stdio = true` wins over `http`.
fn transport(flags: &Settings, file: &Settings) -> Result<Option<SocketAddr>, String> {
    let chosen = |layer: &Settings| match (layer.stdio, &layer.http) {
        (Some(true), _) => Some(None),
        (_, Some(addr)) => Some(Some(addr.clone())),
        _ => None,
    };
    match chosen(flags).or_else(|| chosen(file)).flatten() {
        Some(addr) => parse_addr(&addr).map(Some),
        None => Ok(None),
    }
}

fn http_options(addr: SocketAddr, given: &Settings) -> HttpOptions {
    let defaults = HttpOptions::default();
    HttpOptions {
        addr,
        sessions: given.http_sessions.unwrap_or(defaults.sessions),
        max_body: given.max_body.unwrap_or(defaults.max_body),
        allowed_hosts: given.allowed_hosts.clone().unwrap_or_default(),
        allowed_origins: given.allowed_origins.clone().unwrap_or_default(),
        ..defaults
    }
}

/// Multi-user mode's settings when it is on; email verification without it is an error.
fn multi_user(given: &Settings) -> Result<Option<MultiUser>, String> {
    let email_verification = given.email_verification.unwrap_or(false);
    if !given.multi_user.unwrap_or(false) {
        if email_verification {
            return Err("email verification is for multi-user mode: add --multi-user".into());
        }
        return Ok(None);
    }
    let smtp_url = given
        .smtp_url
        .clone()
        .or_else(|| std::env::var(SMTP_URL_ENV).ok())
        .and_then(Secret::new);
    let smtp_credentials = match (std::env::var(SMTP_USER_ENV), std::env::var(SMTP_PASSWORD_ENV)) {
        (Ok(user), Ok(password)) if !user.is_empty() => Secret::new(password).map(|p| (user, p)),
        _ => None,
    };
    Ok(Some(MultiUser {
        email_verification,
        email_outbox: given.email_outbox.clone(),
        smtp_url,
        smtp_credentials,
        mail_from: given.mail_from.clone(),
    }))
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
        let file: Settings =
            toml::from_str("dna = [\"a.json\"]\ndynamicClassTools = true\nhttp = \"127.0.0.1:4000\"").unwrap();
        assert_eq!(file.dynamic_class_tools, Some(true));
        assert!(toml::from_str::<Settings>("dynamic_class_tools = true").is_err());
        let file: Settings = toml::from_str(
            "multiUser = true\nemailVerification = true\nemailOutbox = \"out\"\nsmtpUrl = \"smtps://mail.example.org\"\nmailFrom = \"x <x@example.org>\"",
        )
        .unwrap();
        assert_eq!((file.multi_user, file.email_verification), (Some(true), Some(true)));
        assert_eq!(file.email_outbox, Some(PathBuf::from("out")));
        assert!(!format!("{file:?}").contains("mail.example.org"), "{file:?}");
    }

    fn flags(settings: Settings, config: Option<PathBuf>) -> Flags {
        Flags { settings, config }
    }

    #[test]
    fn flags_win_over_the_file_whose_paths_are_its_folders() {
        let dir = std::env::temp_dir().join(format!("shacl-mcp-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("serve.toml");
        std::fs::write(
            &file,
            "dna = [\"chat.json\"]\ndb = \":memory:\"\nhttp = \"4000\"\nhttpSessions = true\nallowedHosts = [\"a\"]\nmaxBody = 10",
        )
        .unwrap();
        let given = Settings {
            allowed_hosts: Some(vec!["b".into()]),
            dynamic_class_tools: Some(false),
            ..Settings::default()
        };
        let config = flags(given, Some(file.clone())).into_config(true).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(config.dna, [dir.join("chat.json")]);
        assert!(matches!(&config.db, Database::Sqlite(p) if p.as_os_str() == ":memory:"));
        let Transport::Http(http) = &config.transport else {
            panic!("{config:?}")
        };
        assert_eq!(http.addr, "127.0.0.1:4000".parse().unwrap());
        assert!(http.sessions);
        assert_eq!(
            (http.max_body, http.allowed_hosts.as_slice()),
            (10, ["b".to_string()].as_slice())
        );
        assert!(!config.server.class_tools);
    }

    #[test]
    fn stdio_and_http_a_flag_wins_over_the_file() {
        let layer = |stdio: Option<bool>, http: Option<&str>| Settings {
            stdio,
            http: http.map(str::to_string),
            ..Settings::default()
        };
        let none = layer(None, None);
        let to = |addr: &str| Ok(Some(parse_addr(addr).unwrap()));
        assert_eq!(transport(&none, &none), Ok(None));
        assert_eq!(transport(&none, &layer(None, Some("4000"))), to("4000"));
        assert_eq!(transport(&none, &layer(Some(true), Some("4000"))), Ok(None));
        assert_eq!(
            transport(&layer(Some(true), None), &layer(None, Some("4000"))),
            Ok(None)
        );
        assert_eq!(
            transport(&layer(None, Some("5000")), &layer(Some(true), None)),
            to("5000")
        );
        assert!(transport(&layer(None, Some("nowhere")), &none).is_err());
    }

    #[test]
    fn email_verification_needs_multi_user() {
        let given = Settings {
            email_verification: Some(true),
            ..Settings::default()
        };
        assert!(
            flags(given, None)
                .into_config(false)
                .unwrap_err()
                .contains("--multi-user")
        );
        let given = Settings {
            email_verification: Some(true),
            multi_user: Some(true),
            email_outbox: Some(PathBuf::from("out")),
            smtp_url: Some("smtps://user:pw@mail.example.org".into()),
            ..Settings::default()
        };
        let config = flags(given, None).into_config(false).unwrap();
        assert!(config.multi_user.as_ref().is_some_and(|m| m.email_verification));
        assert!(!format!("{config:?}").contains("smtps://"));
    }
}
