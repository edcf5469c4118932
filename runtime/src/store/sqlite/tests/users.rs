//! The migration from schema version 1 to 2 (and on to the latest).

use super::*;
use crate::store::tests::users::new_user;
use crate::store::{AuthorKey, UserStore};

#[test]
fn a_version_1_database_migrates_to_2() {
    let dir = TempDir::new();
    let path = dir.0.join("store.db");
    let did = SqliteStore::open(&path, clock()).unwrap().did().to_string();
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(&format!(
            "{UNDO_V6} DROP TABLE changes; DROP INDEX links_predicate_key; ALTER TABLE links DROP COLUMN value_key; \
             DROP TABLE users; DROP TABLE email_codes; UPDATE meta SET value = 1 WHERE key = 'schema_version';",
        ))
        .unwrap();
    }
    let store = SqliteStore::open(&path, clock()).unwrap();
    assert_eq!(store.did(), did, "the node key survives");
    let version: i64 = lock_writer(&store)
        .query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    let key = AuthorKey::generate().unwrap();
    assert!(store.add_user(&new_user("ada@example.org", &key)).unwrap());
}
