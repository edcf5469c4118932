//! The store the engine suite runs on: SQLite, or PostgreSQL when `SHACL_MCP_TEST_POSTGRES`
//! holds a url. The same tests run on both (`.ci/run` runs them once per store); each test on
//! PostgreSQL gets a schema of its own, so tests run in parallel without seeing each other.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use shacl_mcp::clock::Clock;
use shacl_mcp::store::postgres::PostgresStore;
use shacl_mcp::store::sqlite::SqliteStore;
use shacl_mcp::store::{LinkStore, UserStore};

/// The environment variable with the url of a PostgreSQL database the tests may write to.
pub const POSTGRES_ENV: &str = "SHACL_MCP_TEST_POSTGRES";

fn postgres_url() -> Option<String> {
    std::env::var(POSTGRES_ENV).ok().filter(|url| !url.trim().is_empty())
}

/// A store as both interfaces the runtime needs of it.
#[derive(Clone)]
pub struct AnyStore {
    pub links: Arc<dyn LinkStore>,
    pub users: Arc<dyn UserStore>,
}

impl AnyStore {
    fn new<S: LinkStore + UserStore + 'static>(store: S) -> AnyStore {
        let store = Arc::new(store);
        AnyStore {
            links: store.clone(),
            users: store,
        }
    }
}

/// Where one test keeps its data: a SQLite file in a folder of its own, or a PostgreSQL schema
/// of its own. Opening it again is a restart (SQLite) or another node (PostgreSQL).
pub struct TestDb {
    place: Place,
}

enum Place {
    Sqlite(PathBuf),
    Postgres { url: String, schema: String },
}

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A name no other test of this run (or of an earlier run) uses.
fn unique(name: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "t_{name}_{}_{}_{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

impl TestDb {
    pub fn new(name: &str) -> TestDb {
        let place = match postgres_url() {
            Some(url) => Place::Postgres {
                url,
                schema: unique(name).to_lowercase(),
            },
            None => {
                let dir = std::env::temp_dir().join(format!("shacl-mcp-{}", unique(name)));
                std::fs::create_dir_all(&dir).expect("temp dir");
                Place::Sqlite(dir.join("store.db"))
            }
        };
        TestDb { place }
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self.place, Place::Postgres { .. })
    }

    pub fn open(&self, clock: Arc<dyn Clock>) -> AnyStore {
        match &self.place {
            Place::Sqlite(path) => AnyStore::new(SqliteStore::open(path, clock).expect("open SQLite")),
            Place::Postgres { url, schema } => {
                AnyStore::new(PostgresStore::connect_in_schema(url, schema, clock).expect("connect to PostgreSQL"))
            }
        }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Place::Sqlite(path) = &self.place
            && let Some(dir) = path.parent()
        {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A fresh store for one test: SQLite in memory, or a new PostgreSQL schema.
pub fn fresh_store(clock: Arc<dyn Clock>) -> AnyStore {
    match postgres_url() {
        Some(url) => AnyStore::new(
            PostgresStore::connect_in_schema(&url, &unique("engine").to_lowercase(), clock)
                .expect("connect to PostgreSQL"),
        ),
        None => AnyStore::new(SqliteStore::open_in_memory(clock).expect("open SQLite in memory")),
    }
}
