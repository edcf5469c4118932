//! The SQLite store's tests: every shared case ([`crate::store::tests`]) over in-memory and file
//! stores, and what only SQLite has (the single writer, query plans, files, migrations).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::*;
use crate::clock::SystemClock;
use crate::store::tests::{Fixture, P, TestStore, add, all_sources, clock, seed, triples};
use crate::store::{LinkPattern, Order, SourceQuery};

mod durability;
mod links;
mod sources;
mod users;

mod shared {
    use super::SqliteFixture;

    crate::store::tests::store_cases!(Some(SqliteFixture::new()));
}

/// Fresh stores in memory; lasting ones in files of a temporary folder.
struct SqliteFixture {
    dir: TempDir,
}

impl SqliteFixture {
    fn new() -> Self {
        SqliteFixture { dir: TempDir::new() }
    }
}

impl Fixture for SqliteFixture {
    fn open(&self, clock: Arc<dyn Clock>) -> Box<dyn TestStore> {
        Box::new(SqliteStore::open_in_memory(clock).unwrap())
    }

    fn open_named(&self, name: &str, clock: Arc<dyn Clock>) -> Box<dyn TestStore> {
        Box::new(SqliteStore::open(&self.dir.0.join(name).join("store.db"), clock).unwrap())
    }

    fn blob_literal(&self, bytes: &[u8]) -> String {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("x'{hex}'")
    }

    fn text_holds_nul(&self) -> bool {
        true
    }

    fn downgrade_before_changes_sql(&self) -> String {
        format!("{UNDO_V6} DROP TABLE changes; UPDATE meta SET value = 3 WHERE key = 'schema_version';")
    }

    fn downgrade_before_lang_keys_sql(&self, target: &str, old_key: &str) -> String {
        format!(
            "{UNDO_V6} UPDATE links SET value_key = '{old_key}' WHERE target = '{target}'; \
             UPDATE meta SET value = 4 WHERE key = 'schema_version';"
        )
    }

    fn downgrade_before_superseded_sql(&self) -> String {
        format!("{UNDO_V7} UPDATE meta SET value = 6 WHERE key = 'schema_version';")
    }

    fn downgrade_before_value_keys_sql(&self) -> String {
        format!(
            "{UNDO_V6} DROP TABLE changes; DROP INDEX links_predicate_key; ALTER TABLE links DROP COLUMN value_key; \
             UPDATE meta SET value = 2 WHERE key = 'schema_version';"
        )
    }
}

impl TestStore for SqliteStore {
    fn execute_sql(&self, sql: &str) {
        lock_writer(self).execute_batch(sql).unwrap();
    }

    fn count_sql(&self, sql: &str) -> i64 {
        lock_writer(self).query_row(sql, [], |row| row.get(0)).unwrap()
    }
}

/// Takes a store of schema version 9 back to version 8 (and nothing more): its links without
/// their sources' order keys.
macro_rules! undo_v9 {
    () => {
        "DROP INDEX links_predicate_value; ALTER TABLE links DROP COLUMN first_ts; \
         ALTER TABLE links DROP COLUMN first_seq; \
         CREATE INDEX links_predicate_value ON links(perspective, predicate, value_key, target, source, superseded); "
    };
}
pub(super) use undo_v9;

/// Takes a store of schema version 9 back to version 6 (the index by predicate and value
/// without the `superseded` flag, and no flag).
const UNDO_V7: &str = concat!(
    undo_v9!(),
    "DROP INDEX links_predicate_value; ALTER TABLE links DROP COLUMN superseded; \
    CREATE INDEX links_predicate_value ON links(perspective, predicate, value_key, target, source);"
);

/// Takes a store of schema version 9 back to version 5's indexes (and nothing more).
const UNDO_V6: &str = concat!(
    undo_v9!(),
    "DROP INDEX links_predicate_value; ALTER TABLE links DROP COLUMN superseded; \
    CREATE INDEX links_predicate_target ON links(perspective, predicate, target, source); \
    CREATE INDEX links_predicate_key ON links(perspective, predicate, value_key, source);"
);

fn store() -> SqliteStore {
    SqliteStore::open_in_memory(clock()).unwrap()
}

/// A folder under the system temp dir, removed on drop.
pub(super) struct TempDir(pub(super) PathBuf);

impl TempDir {
    pub(super) fn new() -> Self {
        static COUNT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "shacl-mcp-store-{}-{}-{}",
            std::process::id(),
            SystemClock.now_micros(),
            COUNT.fetch_add(1, Ordering::SeqCst)
        );
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn lock_writer(store: &SqliteStore) -> conn::WriterGuard<'_> {
    store.writer.lock().unwrap()
}
