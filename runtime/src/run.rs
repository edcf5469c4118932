//! Putting it together: a store, the engine, the server, a transport. `shacl-mcp serve` and
//! generated server binaries both end here.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::accounts::{AccountOptions, Accounts, JWT_SECRET_ENV, Mailer, load_jwt_secret};
use crate::clock::{RandomIds, SystemClock};
use crate::config::{ServeConfig, Transport, default_db};
use crate::engine::{Engine, FixedDna};
use crate::mcp::http::{HttpOptions, serve_http};
use crate::mcp::stdio::serve_stdio;
use crate::mcp::{McpServer, ServerOptions};
use crate::store::sqlite::SqliteStore;

/// Logs go to stderr, one line per event with the time since start; stdout is the protocol.
pub fn init_logging() {
    let level = match std::env::var("SHACL_MCP_LOG").as_deref() {
        Ok("debug") => tracing::Level::DEBUG,
        Ok("warn") => tracing::Level::WARN,
        Ok("error") => tracing::Level::ERROR,
        Ok("trace") => tracing::Level::TRACE,
        _ => tracing::Level::INFO,
    };
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    // rmcp's own events (its per-message debug lines, the client's info) stay below warnings:
    // our lines carry a `kind` and never a header or a secret.
    let filter = tracing_subscriber::filter::Targets::new()
        .with_default(level)
        .with_target("rmcp", tracing::Level::WARN);
    let format = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_timer(tracing_subscriber::fmt::time::uptime())
        .with_target(false)
        .with_ansi(false);
    let _ = tracing_subscriber::registry().with(format).with(filter).try_init();
}

/// Serves `fixed` as `config` says until the transport ends (stdin closes) or Ctrl-C.
pub async fn serve(
    config: ServeConfig,
    fixed: FixedDna,
    server_name: &str,
    server_version: &str,
    custom_tools: Vec<crate::mcp::CustomTool>,
) -> Result<(), String> {
    let db = config.db.clone().unwrap_or_else(default_db);
    let store = SqliteStore::open(&db, Arc::new(SystemClock))
        .map_err(|e| format!("cannot open the store {}: {e}", db.display()))?;
    tracing::info!(kind = "start", db = %db.display(), did = store_did(&store), classes = fixed.classes().len(), multi_user = config.multi_user);
    let store = Arc::new(store);
    let accounts = if config.multi_user {
        Some(Arc::new(accounts(&config, &db, store.clone())?))
    } else {
        None
    };
    let engine = Arc::new(Engine::new(store, fixed, Arc::new(RandomIds)));
    let options = ServerOptions {
        class_tools: config.dynamic_class_tools,
        jsonrpc_validation_errors: config.jsonrpc_validation_errors,
        admin_credential: config.admin_credential.clone(),
        server_name: server_name.to_string(),
        server_version: server_version.to_string(),
        custom_tools,
        accounts,
    };
    let server = McpServer::new(engine, options);
    match config.transport {
        Transport::Stdio => serve_stdio(server).await.map_err(|e| e.to_string()),
        Transport::Http(addr) => {
            if config.admin_credential.is_none() && !config.multi_user {
                tracing::warn!(
                    kind = "auth",
                    "no admin credential ({}): any local process may call this server",
                    crate::config::CREDENTIAL_ENV
                );
            }
            let mut options = HttpOptions {
                addr,
                sessions: config.http_sessions,
                allowed_hosts: config.allowed_hosts.clone(),
                allowed_origins: config.allowed_origins.clone(),
                ..HttpOptions::default()
            };
            if let Some(max) = config.max_body {
                options.max_body = max;
            }
            let shutdown = CancellationToken::new();
            let on_signal = shutdown.clone();
            tokio::spawn(async move {
                let _ = tokio::signal::ctrl_c().await;
                tracing::info!(kind = "stop", "interrupted");
                on_signal.cancel();
            });
            serve_http(server, options, shutdown).await.map_err(|e| e.to_string())
        }
    }
}

/// Multi-user mode's accounts: the token secret for `db`, the mailer, the options.
fn accounts(config: &ServeConfig, db: &std::path::Path, store: Arc<SqliteStore>) -> Result<Accounts, String> {
    let jwt = load_jwt_secret(db, std::env::var(JWT_SECRET_ENV).ok())?;
    let from = config.mail_from.as_deref();
    let mailer = match (&config.email_outbox, &config.smtp_url) {
        (Some(dir), _) => Some(Mailer::outbox(dir, from)?),
        (None, Some(url)) => Some(smtp(url, config, from)?),
        (None, None) => None,
    };
    if let Some(mailer) = &mailer {
        tracing::info!(kind = "mail", mailer = ?mailer, verification = config.email_verification);
    }
    let options = AccountOptions {
        email_verification: config.email_verification,
        mailer,
        ..AccountOptions::default()
    };
    Accounts::new(store, jwt, Arc::new(SystemClock), options)
}

#[cfg(feature = "smtp")]
fn smtp(url: &crate::mcp::Secret, config: &ServeConfig, from: Option<&str>) -> Result<Mailer, String> {
    let credentials = config
        .smtp_credentials
        .as_ref()
        .map(|(user, password)| (user.clone(), password.expose().to_string()));
    Mailer::smtp(url.expose(), credentials, from)
}

#[cfg(not(feature = "smtp"))]
fn smtp(_url: &crate::mcp::Secret, _config: &ServeConfig, _from: Option<&str>) -> Result<Mailer, String> {
    Err("this server was built without SMTP (the shacl-mcp feature `smtp`): use --email-outbox DIR, or build with the feature".into())
}

fn store_did(store: &SqliteStore) -> String {
    use crate::store::LinkStore;
    store.did().to_string()
}
