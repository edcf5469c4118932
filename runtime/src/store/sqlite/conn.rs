//! Connections: the writer behind its mutex, and the pool of read connections.

use std::ops::Deref;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread::{self, ThreadId};

use rusqlite::{Connection, OpenFlags};

use super::checkpoint::Checkpointer;
use crate::store::StoreError;

/// Read connections kept open for reuse; more are opened when all are busy, and closed after.
const IDLE_READERS: usize = 4;
/// Page cache of each read connection, in KiB (SQLite's default is 2 MiB). A query narrowed to
/// 1,000 of 100,000 instances probes rows on some 2,000 pages; with the default cache every query
/// copied them from the operating system again (a third of its time). Pages are cached as they
/// are read, so an idle store does not grow.
const READ_CACHE_KIB: i64 = 32 * 1024;
pub(super) const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Locks a mutex, recovering it when a panicking thread poisoned it: every transaction ends
/// (commit or rollback) before its guard is released, so the data behind it is consistent.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The writer connection and the thread holding it, so that a second write (or an in-memory read)
/// on the thread that holds it is an error instead of a deadlock.
pub(super) struct Writer {
    conn: Mutex<Connection>,
    holder: Mutex<Option<ThreadId>>,
    /// A database file's checkpoints, off the commit path (`None` in memory).
    checkpointer: Option<Checkpointer>,
}

impl Writer {
    pub fn new(conn: Connection) -> Self {
        Writer {
            conn: Mutex::new(conn),
            holder: Mutex::new(None),
            checkpointer: None,
        }
    }

    /// The writer of a database file: commits leave the checkpoints to `checkpointer`.
    pub fn with_checkpointer(mut conn: Connection, checkpointer: Checkpointer) -> Result<Self, StoreError> {
        // Replaces SQLite's automatic checkpoint (a WAL hook of its own).
        conn.wal_hook(Some(checkpointer.backstop()))?;
        Ok(Writer {
            checkpointer: Some(checkpointer),
            ..Writer::new(conn)
        })
    }

    pub fn lock(&self) -> Result<WriterGuard<'_>, StoreError> {
        let me = thread::current().id();
        if *lock(&self.holder) == Some(me) {
            return Err(StoreError::Database(
                "this thread already holds the store's writer (an open WriteTx, or a ReadTx of an in-memory store)"
                    .into(),
            ));
        }
        let conn = lock(&self.conn);
        *lock(&self.holder) = Some(me);
        Ok(WriterGuard {
            conn,
            holder: &self.holder,
            checkpointer: self.checkpointer.as_ref(),
        })
    }
}

pub(super) struct WriterGuard<'a> {
    conn: MutexGuard<'a, Connection>,
    holder: &'a Mutex<Option<ThreadId>>,
    checkpointer: Option<&'a Checkpointer>,
}

impl WriterGuard<'_> {
    /// Tells the checkpointer of a commit (after `COMMIT`).
    pub fn committed(&self) {
        if let Some(c) = self.checkpointer {
            c.committed();
        }
    }

    /// Keeps the checkpointer's checkpoints out of the way while the guard lives.
    pub fn hold_checkpoints(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        self.checkpointer.map(Checkpointer::hold)
    }
}

impl Deref for WriterGuard<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl Drop for WriterGuard<'_> {
    fn drop(&mut self) {
        // Runs before the connection's guard (a field) is released.
        *lock(self.holder) = None;
    }
}

/// Read connections to one database file.
pub(super) struct ReadPool {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl ReadPool {
    pub fn new(path: PathBuf) -> Self {
        ReadPool {
            path,
            idle: Mutex::new(Vec::new()),
        }
    }

    pub fn take(&self) -> Result<Connection, StoreError> {
        if let Some(conn) = lock(&self.idle).pop() {
            return Ok(conn);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&self.path, flags)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        configure(&conn)?;
        conn.pragma_update(None, "query_only", "ON")?;
        conn.pragma_update(None, "cache_size", -READ_CACHE_KIB)?;
        Ok(conn)
    }

    pub fn give_back(&self, conn: Connection) {
        let mut idle = lock(&self.idle);
        if idle.len() < IDLE_READERS {
            idle.push(conn);
        } else {
            drop(idle);
            drop(conn);
        }
    }
}

/// What every connection of a store has, the writer's and the readers': cached statements,
/// stable query plans, the SQL functions the store's statements call, and deleted content
/// overwritten with zeros (so that forget leaves nothing in free space).
pub(super) fn configure(conn: &Connection) -> Result<(), StoreError> {
    conn.set_prepared_statement_cache_capacity(64);
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    super::schema::register_functions(conn)?;
    conn.pragma_update(None, "secure_delete", "ON")?;
    Ok(())
}

/// Starts a transaction, first ending one a failed rollback may have left open.
pub(super) fn begin(conn: &Connection, sql: &str) -> Result<(), StoreError> {
    if !conn.is_autocommit() {
        conn.execute_batch("ROLLBACK")?;
    }
    conn.prepare_cached(sql)?.execute([])?;
    Ok(())
}

/// Rolls back whatever is open; `false` when the connection could not be brought back to rest.
pub(super) fn end(conn: &Connection) -> bool {
    conn.is_autocommit() || conn.prepare_cached("ROLLBACK").and_then(|mut s| s.execute([])).is_ok()
}
