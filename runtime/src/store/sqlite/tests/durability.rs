//! Files and schema versions.

use super::*;

#[test]
fn schema_version_is_stored_and_a_newer_one_refused() {
    let dir = TempDir::new();
    let path = dir.0.join("store.db");
    let did = {
        let store = SqliteStore::open(&path, clock()).unwrap();
        let version: i64 = lock_writer(&store)
            .query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        lock_writer(&store)
            .execute(
                "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
                [SCHEMA_VERSION + 1],
            )
            .unwrap();
        store.did().to_string()
    };
    match SqliteStore::open(&path, clock()) {
        Err(StoreError::SchemaTooNew { found, supported })
            if found == SCHEMA_VERSION + 1 && supported == SCHEMA_VERSION => {}
        other => panic!("expected SchemaTooNew, got {other:?}"),
    }
    let conn = Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
        [SCHEMA_VERSION],
    )
    .unwrap();
    drop(conn);
    assert_eq!(SqliteStore::open(&path, clock()).unwrap().did(), did);
    assert!(SqliteStore::open(Path::new(":memory:"), clock()).is_ok());
    assert!(SqliteStore::open(Path::new(""), clock()).is_err());
    std::fs::write(dir.0.join("junk.db"), b"this is not a database, not at all, no").unwrap();
    assert!(matches!(
        SqliteStore::open(&dir.0.join("junk.db"), clock()),
        Err(StoreError::Database(_))
    ));
}

/// Checkpoints run off the commit path (sqlite/checkpoint.rs) with the writer's as a backstop:
/// the write-ahead log is copied back and restarted as commits go on, even back to back, so it
/// stays bounded, near the backstop's size, instead of holding every page ever written (148 MB
/// for these 4,000 commits).
/// The bound holds however slow the checkpoint thread is (under a loaded disk its fsync took
/// long enough for the log to reach 32 MB while SQLite's own backstop skipped): the backstop
/// waits for it.
#[test]
fn the_log_is_checkpointed_off_the_commit_path_and_stays_small() {
    let dir = TempDir::new();
    let path = dir.0.join("store.db");
    let store = SqliteStore::open(&path, clock()).unwrap();
    seed(&store, &[]);
    let wal = dir.0.join("store.db-wal");
    let mut largest = 0;
    for i in 0..4000 {
        let source = format!("ad4m://n/{i}");
        add(&store, &[(&source, "app://name", "literal:string:x")]);
        largest = largest.max(std::fs::metadata(&wal).map_or(0, |m| m.len()));
    }
    // A frame is a page and its 24-byte header; the log passes the backstop by a commit at most.
    let bound = (crate::store::sqlite::checkpoint::BACKSTOP_PAGES as u64 + 100) * (4096 + 24);
    assert!(largest < bound, "the log grew to {largest} bytes");
    drop(store);
    let reopened = SqliteStore::open(&path, clock()).unwrap();
    let tx = reopened.read().unwrap();
    let names = LinkPattern {
        predicate: Some("app://name"),
        ..LinkPattern::default()
    };
    assert_eq!(tx.count_links(P, names).unwrap(), 4000);
}
