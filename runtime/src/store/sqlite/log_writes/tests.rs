//! The log-writes VFS against SQLite's own: what a connection through it commits is on disk when
//! the commit returns, whole, in one write to the log, and reads back through the default VFS
//! after spills, rollbacks and rewrites.

use std::cell::Cell;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::super::tests::TempDir;

thread_local! {
    /// Writes of gathered bytes to an inner log file, by this thread (each test runs on its own).
    pub(super) static INNER_WRITES: Cell<u64> = const { Cell::new(0) };
    /// Yields of a yielding log file, by this thread.
    pub(super) static YIELDS: Cell<u64> = const { Cell::new(0) };
}

fn open_through_vfs(path: &Path) -> Connection {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let vfs = super::register().expect("the VFS registers");
    let conn = Connection::open_with_flags_and_vfs(path, flags, vfs).unwrap();
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))
        .unwrap();
    conn.pragma_update(None, "synchronous", "NORMAL").unwrap();
    // The log only grows: each commit's frames stay where the test can count them.
    conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    conn.execute_batch("CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        .unwrap();
    conn
}

fn db(dir: &TempDir) -> PathBuf {
    dir.0.join("store.db")
}

/// The rows and the sum of their keys, read by a connection of the default VFS.
fn read_plainly(path: &Path) -> (i64, i64) {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.query_row("SELECT COUNT(*), COALESCE(SUM(k), 0) FROM t", [], |row| {
        Ok((row.get(0)?, row.get(1)?))
    })
    .unwrap()
}

fn insert(conn: &Connection, keys: std::ops::Range<i64>) {
    let mut statement = conn.prepare_cached("INSERT INTO t (k, v) VALUES (?1, ?2)").unwrap();
    for k in keys {
        statement.execute((k, vec![(k % 251) as u8; 1000])).unwrap();
    }
}

#[test]
fn a_commit_is_one_write_to_the_log_and_on_disk_when_it_returns() {
    let dir = TempDir::new();
    let path = db(&dir);
    let conn = open_through_vfs(&path);
    let log = dir.0.join("store.db-wal");
    let before = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
    let writes_before = INNER_WRITES.get();

    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    insert(&conn, 0..60);
    conn.execute_batch("COMMIT").unwrap();

    assert_eq!(
        INNER_WRITES.get() - writes_before,
        1,
        "the commit's frames in one write"
    );
    let frame = 4096 + 24;
    let after = std::fs::metadata(&log).unwrap().len();
    assert!(
        after - before >= 15 * frame,
        "60 rows of 1000 bytes are 15 pages or more: {before} -> {after}"
    );
    assert_eq!((after - 32) % frame, 0, "the log ends on a whole frame");

    // Copied while the connection is open (no checkpoint, no close), as a crash leaves them.
    let copy = TempDir::new();
    std::fs::copy(&path, db(&copy)).unwrap();
    std::fs::copy(&log, copy.0.join("store.db-wal")).unwrap();
    let copied = Connection::open(db(&copy)).unwrap();
    let rows: i64 = copied
        .query_row("SELECT COUNT(*) FROM t", [], |row| row.get(0))
        .unwrap();
    assert_eq!(rows, 60);
    drop(conn);
}

#[test]
fn spilled_rolled_back_and_rewritten_transactions_read_back_whole() {
    let dir = TempDir::new();
    let path = db(&dir);
    let conn = open_through_vfs(&path);
    // A cache of a few pages: a transaction of many rows spills frames to the log before its
    // commit, and pages it changes again are rewritten in place.
    conn.pragma_update(None, "cache_size", 8).unwrap();
    let (mut rows, mut sum) = (0i64, 0i64);
    for round in 0..12i64 {
        let keys = round * 1000..round * 1000 + 300;
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        insert(&conn, keys.clone());
        conn.execute("UPDATE t SET v = zeroblob(900) WHERE k % 7 = ?1", [round % 7])
            .unwrap();
        if round % 3 == 2 {
            conn.execute_batch("ROLLBACK").unwrap();
        } else {
            conn.execute_batch("COMMIT").unwrap();
            rows += 300;
            sum += keys.sum::<i64>();
        }
        assert_eq!(read_plainly(&path), (rows, sum), "after round {round}");
    }
    let check: String = conn.query_row("PRAGMA integrity_check", [], |row| row.get(0)).unwrap();
    assert_eq!(check, "ok");
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    drop(conn);
    assert_eq!(read_plainly(&path), (rows, sum));
}

#[test]
fn files_other_than_the_log_are_the_default_vfs_own() {
    let dir = TempDir::new();
    let path = db(&dir);
    let conn = open_through_vfs(&path);
    let writes_before = INNER_WRITES.get();
    // A rollback journal, not a log: nothing is gathered.
    conn.pragma_update_and_check(None, "journal_mode", "DELETE", |row| row.get::<_, String>(0))
        .unwrap();
    insert(&conn, 0..20);
    assert_eq!(INNER_WRITES.get(), writes_before);
    drop(conn);
    assert_eq!(read_plainly(&path), (20, (0..20).sum()));
}

/// The checkpoint thread's registration: a checkpoint through it copies the whole log into the
/// database, giving the core away as it reads the frames, and not while someone waits for it.
#[test]
fn a_checkpoint_through_the_yielding_registration_copies_the_log_and_yields() {
    let dir = TempDir::new();
    let path = db(&dir);
    let writer = open_through_vfs(&path);
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let vfs = super::register_yielding().expect("the VFS registers");
    let checkpointer = Connection::open_with_flags_and_vfs(&path, flags, vfs).unwrap();
    let checkpoint = || -> (i64, i64, i64) {
        checkpointer
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })
            .unwrap()
    };

    // One yield after the log's sync, one every eight of the ~55 pages copied. `hurry` is the
    // process's: a store of a test running beside this one may hold it through a checkpoint of
    // its own, so a round without yields is tried again (a few times at most).
    let mut written = 0;
    let mut yielded = 0;
    for _ in 0..5 {
        insert(&writer, written..written + 200);
        written += 200;
        let yields_before = YIELDS.get();
        // Not busy, and the log truncated: every frame is in the database file.
        assert_eq!(checkpoint(), (0, 0, 0));
        assert_eq!(std::fs::metadata(dir.0.join("store.db-wal")).unwrap().len(), 0);
        assert_eq!(read_plainly(&path), (written, (0..written).sum()));
        yielded = YIELDS.get() - yields_before;
        if yielded >= 5 {
            break;
        }
    }
    assert!(yielded >= 5, "{yielded} yields");

    insert(&writer, written..written + 200);
    written += 200;
    let yields_before = YIELDS.get();
    let hurry = super::hurry();
    assert_eq!(checkpoint(), (0, 0, 0));
    drop(hurry);
    assert_eq!(YIELDS.get(), yields_before);
    assert_eq!(read_plainly(&path), (written, (0..written).sum()));
}
