//! The PostgreSQL store's tests: every shared case ([`crate::store::tests`]) and what only a shared
//! database has (several nodes, notifications, dropped connections). They run when
//! `SHACL_MCP_TEST_POSTGRES` holds a URL (`postgres://user@127.0.0.1:5432/postgres`), each store
//! in a fresh schema, dropped at the end; without it they pass, saying so on stderr, unless
//! `SHACL_MCP_REQUIRE_POSTGRES=1` (CI), which makes a missing URL a failure.

mod nodes;
mod plans;
mod resilience;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::client::{Session, parse_url};
use super::pool::{Background, Pool, lock};
use super::*;
use crate::store::tests::{Fixture, TestStore};

const URL_ENV: &str = "SHACL_MCP_TEST_POSTGRES";
const REQUIRE_ENV: &str = "SHACL_MCP_REQUIRE_POSTGRES";

mod shared {
    use super::PgFixture;

    crate::store::tests::store_cases!(PgFixture::from_env());
}

/// Stores in schemas of their own (`shacl_mcp_test_<pid>_<n>_<name>`), dropped with the fixture.
pub(super) struct PgFixture {
    url: String,
    prefix: String,
    schemas: Mutex<Vec<String>>,
}

impl PgFixture {
    /// `None`, with a note on stderr, when no database is configured.
    pub fn from_env() -> Option<Self> {
        static FIXTURES: AtomicU64 = AtomicU64::new(0);
        match std::env::var(URL_ENV) {
            Ok(url) if !url.trim().is_empty() => Some(PgFixture {
                url,
                prefix: format!(
                    "shacl_mcp_test_{}_{}",
                    std::process::id(),
                    FIXTURES.fetch_add(1, Ordering::SeqCst)
                ),
                schemas: Mutex::new(Vec::new()),
            }),
            _ => {
                assert!(
                    std::env::var(REQUIRE_ENV).as_deref() != Ok("1"),
                    "{REQUIRE_ENV}=1 but {URL_ENV} is not set"
                );
                eprintln!("skipped: set {URL_ENV} to a PostgreSQL URL to test the PostgreSQL store");
                None
            }
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// The fixture's schema `name`, dropped with the fixture.
    pub fn schema(&self, name: &str) -> String {
        let schema = format!("{}_{name}", self.prefix);
        let mut schemas = lock(&self.schemas);
        if !schemas.contains(&schema) {
            schemas.push(schema.clone());
        }
        schema
    }

    /// A store (a node) in the fixture's schema `name`.
    pub fn node(&self, name: &str, clock: Arc<dyn Clock>) -> PostgresStore {
        PostgresStore::connect_in_schema(&self.url, &self.schema(name), clock).unwrap()
    }

    /// Runs `sql` on a connection of its own, outside any schema.
    pub fn execute_sql(&self, sql: &str) {
        let background = Background::new().unwrap();
        let session = Session { search_path: None };
        let pool = Pool::new(parse_url(&self.url).unwrap(), session, background.handle().clone());
        pool.take().unwrap().batch(sql).unwrap();
    }
}

impl Fixture for PgFixture {
    fn open(&self, clock: Arc<dyn Clock>) -> Box<dyn TestStore> {
        static STORES: AtomicU64 = AtomicU64::new(0);
        let name = format!("s{}", STORES.fetch_add(1, Ordering::SeqCst));
        Box::new(self.node(&name, clock))
    }

    fn open_named(&self, name: &str, clock: Arc<dyn Clock>) -> Box<dyn TestStore> {
        Box::new(self.node(name, clock))
    }

    fn blob_literal(&self, bytes: &[u8]) -> String {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("decode('{hex}', 'hex')")
    }

    fn text_holds_nul(&self) -> bool {
        false
    }

    fn downgrade_before_changes_sql(&self) -> String {
        format!(
            "{UNDO_V7} DROP TABLE changes; UPDATE meta SET value = convert_to('4', 'UTF8') WHERE key = 'schema_version';"
        )
    }

    fn downgrade_before_lang_keys_sql(&self, target: &str, old_key: &str) -> String {
        format!(
            "{UNDO_V7} UPDATE links SET value_key = '{old_key}' WHERE target = '{target}'; \
             UPDATE meta SET value = convert_to('5', 'UTF8') WHERE key = 'schema_version';"
        )
    }

    fn downgrade_before_value_keys_sql(&self) -> String {
        format!(
            "{UNDO_V7} DROP TABLE changes; DROP INDEX links_predicate_key; ALTER TABLE links DROP COLUMN value_key; \
             UPDATE meta SET value = convert_to('3', 'UTF8') WHERE key = 'schema_version';"
        )
    }

    fn downgrade_before_superseded_sql(&self) -> String {
        format!("{UNDO_V7} UPDATE meta SET value = convert_to('6', 'UTF8') WHERE key = 'schema_version';")
    }
}

/// Takes a store of schema version 7 back to version 6: no `superseded` flag (dropping the column
/// drops the index that holds it), and the index by predicate and value key without it.
const UNDO_V7: &str = "ALTER TABLE links DROP COLUMN superseded; \
    CREATE INDEX links_predicate_key ON links(perspective, predicate, value_key, source);";

impl Drop for PgFixture {
    fn drop(&mut self) {
        let schemas = std::mem::take(&mut *lock(&self.schemas));
        if schemas.is_empty() || std::thread::panicking() {
            // A failed test leaves its schemas to look at.
            return;
        }
        let drops: Vec<String> = schemas
            .iter()
            .map(|schema| format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE;"))
            .collect();
        self.execute_sql(&drops.concat());
    }
}

impl TestStore for PostgresStore {
    fn execute_sql(&self, sql: &str) {
        self.pool.take().unwrap().batch(sql).unwrap();
    }

    fn count_sql(&self, sql: &str) -> i64 {
        get(&self.pool.take().unwrap().query_one(sql, &[]).unwrap(), 0).unwrap()
    }
}
