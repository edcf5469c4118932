//! Putting it together: a store, the engine, the server, a transport. `shacl-mcp serve` and
//! generated server binaries both end here.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use std::sync::mpsc::Receiver;

use crate::accounts::{
    AccountOptions, Accounts, JWT_SECRET_ENV, MIN_SECRET_LEN, Mailer, jwt_secret_from_env, load_jwt_secret,
};
use crate::clock::{RandomIds, SystemClock};
use crate::config::{Database, MultiUser, ServeConfig, Transport, postgres_schema};
use crate::engine::{Engine, FixedDna};
use crate::mcp::http::serve_http;
use crate::mcp::stdio::serve_stdio;
use crate::mcp::{McpServer, ServerOptions};
use crate::store::postgres::PostgresStore;
use crate::store::sqlite::SqliteStore;
use crate::store::{EventLog, LinkStore, UserStore};

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
    let server = server(&config, fixed, server_name, server_version, custom_tools)?;
    let multi_user = config.multi_user.is_some();
    match config.transport {
        Transport::Stdio => serve_stdio(server).await.map_err(|e| e.to_string()),
        Transport::Http(options) => {
            if server.options().admin_credential.is_none() && !multi_user {
                tracing::warn!(
                    kind = "auth",
                    "no admin credential ({}): any local process may call this server",
                    crate::config::CREDENTIAL_ENV
                );
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

/// The server `config` describes, on its store, before any transport: what [`serve`] runs,
/// and what `shacl-mcp call` talks to over an in-memory pipe. Call it inside a Tokio runtime:
/// on a shared database it follows the models other nodes add from there.
pub fn server(
    config: &ServeConfig,
    fixed: FixedDna,
    server_name: &str,
    server_version: &str,
    custom_tools: Vec<crate::mcp::CustomTool>,
) -> Result<McpServer, String> {
    let opened = open_store(&config.db)?;
    let multi_user = config.multi_user.is_some();
    tracing::info!(kind = "start", db = %config.db.describe(), did = opened.store.did(), classes = fixed.classes().len(), multi_user);
    let accounts = match &config.multi_user {
        Some(settings) => Some(Arc::new(accounts(&config.db, settings, &opened)?)),
        None => None,
    };
    let engine = Arc::new(Engine::new(opened.store, fixed, Arc::new(RandomIds)));
    let options = ServerOptions {
        server_name: server_name.to_string(),
        server_version: server_version.to_string(),
        custom_tools,
        accounts,
        local_store: matches!(config.db, Database::Sqlite(_)),
        ..config.server.clone()
    };
    let server = McpServer::new(engine, options);
    if let Some(changes) = opened.model_changes {
        follow_model_changes(changes, server.clone());
    }
    Ok(server)
}

/// A store opened for serving, with what a shared database adds.
struct OpenedStore {
    store: Arc<dyn LinkStore>,
    users: Arc<dyn UserStore>,
    /// Several nodes on one database: where their rate limits meet.
    events: Option<Arc<dyn EventLog>>,
    /// Perspectives whose models another node (or this one) changed.
    model_changes: Option<Receiver<String>>,
}

fn open_store(db: &Database) -> Result<OpenedStore, String> {
    match db {
        Database::Sqlite(path) => {
            let store = Arc::new(
                SqliteStore::open(path, Arc::new(SystemClock))
                    .map_err(|e| format!("cannot open the store {}: {e}", path.display()))?,
            );
            Ok(OpenedStore {
                store: store.clone(),
                users: store,
                events: None,
                model_changes: None,
            })
        }
        Database::Postgres(url) => {
            let (url, schema) = postgres_schema(url.expose())?;
            let clock = Arc::new(SystemClock);
            let store = match &schema {
                Some(schema) => PostgresStore::connect_in_schema(&url, schema, clock),
                None => PostgresStore::connect(&url, clock),
            };
            let store = Arc::new(store.map_err(|e| format!("cannot open the store {}: {e}", db.describe()))?);
            let changes = store
                .watch_models()
                .map_err(|e| format!("cannot listen for model changes on {}: {e}", db.describe()))?;
            Ok(OpenedStore {
                store: store.clone(),
                users: store.clone(),
                events: Some(store),
                model_changes: Some(changes),
            })
        }
    }
}

/// Hands every model change the database reports to the server (which re-reads the models and
/// tells its clients), in order, on a thread of its own: the receiver blocks.
fn follow_model_changes(changes: Receiver<String>, server: McpServer) {
    let runtime = tokio::runtime::Handle::current();
    let spawned = std::thread::Builder::new().name("model-changes".into()).spawn(move || {
        for perspective in changes {
            tracing::debug!(kind = "models", perspective = %perspective, "models changed in the database");
            runtime.block_on(server.models_changed(&perspective));
        }
        tracing::warn!(kind = "models", "no longer told of model changes by the database");
    });
    if let Err(e) = spawned {
        tracing::error!(kind = "models", error = %e, "cannot follow model changes");
    }
}

/// Multi-user mode's accounts: the token secret, the mailer, the options. Nodes sharing a
/// PostgreSQL database must share the secret too, so there it comes from the environment only.
fn accounts(db: &Database, config: &MultiUser, opened: &OpenedStore) -> Result<Accounts, String> {
    let env = std::env::var(JWT_SECRET_ENV).ok();
    let jwt = match db {
        Database::Sqlite(path) => load_jwt_secret(path, env)?,
        Database::Postgres(_) => jwt_secret_from_env(env)?.ok_or_else(|| {
            format!(
                "multi-user mode on PostgreSQL needs {JWT_SECRET_ENV}: every node behind the load balancer must sign tokens with the same secret (at least {MIN_SECRET_LEN} characters)"
            )
        })?,
    };
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
    let accounts = Accounts::new(opened.users.clone(), jwt, Arc::new(SystemClock), options)?;
    Ok(match &opened.events {
        Some(log) => accounts.share_limits(log.clone()),
        None => accounts,
    })
}

#[cfg(feature = "smtp")]
fn smtp(url: &crate::mcp::Secret, config: &MultiUser, from: Option<&str>) -> Result<Mailer, String> {
    let credentials = config
        .smtp_credentials
        .as_ref()
        .map(|(user, password)| (user.clone(), password.expose().to_string()));
    Mailer::smtp(url.expose(), credentials, from)
}

#[cfg(not(feature = "smtp"))]
fn smtp(_url: &crate::mcp::Secret, _config: &MultiUser, _from: Option<&str>) -> Result<Mailer, String> {
    Err("this server was built without SMTP (the shacl-mcp feature `smtp`): use --email-outbox DIR, or build with the feature".into())
}
