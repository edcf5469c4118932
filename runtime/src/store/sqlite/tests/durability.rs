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
