//! The SQLite link store, the embedded default.
//!
//! One database file in WAL mode: a single writer connection behind a mutex (a [`WriteTx`] holds
//! it from `BEGIN IMMEDIATE` to `COMMIT`), and a small pool of read connections whose
//! [`ReadTx`]s each see one snapshot. An in-memory store reads through its writer connection.
//! Each write transaction that adds links is signed by the node's Ed25519 key, generated on
//! first open and kept in the database; the store's DID is that key's `did:key`. In multi-user
//! mode a user's transactions are signed by that user's key ([`LinkStore::write_as`]), and the
//! same database keeps the accounts (`users`, [`UserStore`](crate::store::UserStore)).
//!
//! [`WriteTx`]: crate::store::WriteTx
//! [`ReadTx`]: crate::store::ReadTx

mod changes;
mod checkpoint;
mod conn;
mod erase;
mod log_writes;
mod order_key;
mod queries;
mod schema;
mod superseded;
#[cfg(test)]
mod tests;
mod tx;
mod users;
mod verify;

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::Receiver;

use rusqlite::{Connection, OpenFlags};

pub use crate::store::keys::{did_key, public_key_from_did};
pub use crate::store::sql::HAS_CHILD;
pub use schema::SCHEMA_VERSION;
pub(crate) use schema::VALUE_KEY_FN;

use checkpoint::Checkpointer;
use conn::{BUSY_TIMEOUT, ReadPool, Writer, configure};
use tx::{SqliteReadTx, SqliteWriteTx};

use crate::clock::Clock;
use crate::store::changes::Feed;
use crate::store::{AuthorKey, ChangeLabeller, LinkStore, ReadTx, StoreError, VerifyReport, WriteTx};

/// A [`LinkStore`] in one SQLite database.
pub struct SqliteStore {
    writer: Writer,
    /// Read connections to the file; `None` in memory, where reads use the writer.
    readers: Option<ReadPool>,
    key: AuthorKey,
    clock: Arc<dyn Clock>,
    feed: Feed,
}

impl SqliteStore {
    /// Opens (creating it and its folder if need be) the database at `path`, migrating it to
    /// [`SCHEMA_VERSION`]. The path `:memory:` opens a store in memory.
    pub fn open(path: &Path, clock: Arc<dyn Clock>) -> Result<SqliteStore, StoreError> {
        if path == Path::new(":memory:") {
            return Self::open_in_memory(clock);
        }
        if path.as_os_str().is_empty() {
            return Err(StoreError::Database("the database path is empty".into()));
        }
        if let Some(folder) = path.parent()
            && !folder.as_os_str().is_empty()
        {
            std::fs::create_dir_all(folder)
                .map_err(|e| StoreError::Database(format!("cannot create {}: {e}", folder.display())))?;
        }
        // No SQLITE_OPEN_URI: a path is a file name, even one that starts with `file:`.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        // The writer's connection, the only one that writes the log, writes each commit to it in
        // one call (log_writes.rs).
        let mut conn = match log_writes::register() {
            Some(vfs) => Connection::open_with_flags_and_vfs(path, flags, vfs)?,
            None => Connection::open_with_flags(path, flags)?,
        };
        conn.busy_timeout(BUSY_TIMEOUT)?;
        configure(&conn)?;
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let key = schema::migrate(&mut conn)?;
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let checkpointer = Checkpointer::start(&path)?;
        Ok(SqliteStore {
            writer: Writer::with_checkpointer(conn, checkpointer)?,
            readers: Some(ReadPool::new(path)),
            key,
            clock,
            feed: Feed::default(),
        })
    }

    /// A store that lives as long as this value; every read and write goes through one connection.
    pub fn open_in_memory(clock: Arc<dyn Clock>) -> Result<SqliteStore, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        configure(&conn)?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let key = schema::migrate(&mut conn)?;
        Ok(SqliteStore {
            writer: Writer::new(conn),
            readers: None,
            key,
            clock,
            feed: Feed::default(),
        })
    }

    /// A read transaction with its concrete type (what [`LinkStore::read`] boxes).
    fn begin_read(&self) -> Result<SqliteReadTx<'_>, StoreError> {
        SqliteReadTx::begin(&self.writer, self.readers.as_ref())
    }
}

impl LinkStore for SqliteStore {
    fn read(&self) -> Result<Box<dyn ReadTx + '_>, StoreError> {
        Ok(Box::new(self.begin_read()?))
    }

    fn write(&self) -> Result<Box<dyn WriteTx + '_>, StoreError> {
        Ok(Box::new(SqliteWriteTx::begin(
            &self.writer,
            &self.key,
            self.clock.as_ref(),
            &self.feed,
        )?))
    }

    fn write_as<'a>(&'a self, author: &'a AuthorKey) -> Result<Box<dyn WriteTx + 'a>, StoreError> {
        Ok(Box::new(SqliteWriteTx::begin(
            &self.writer,
            author,
            self.clock.as_ref(),
            &self.feed,
        )?))
    }

    fn did(&self) -> &str {
        self.key.did()
    }

    fn verify(&self) -> Result<VerifyReport, StoreError> {
        let tx = self.begin_read()?;
        verify::verify(tx.conn(), self.key.did())
    }

    fn set_change_labeller(&self, labeller: Arc<dyn ChangeLabeller>) {
        self.feed.set_labeller(labeller);
    }

    fn watch_changes(&self) -> Result<Receiver<String>, StoreError> {
        Ok(self.feed.subscribe())
    }

    /// Another process may write to the same file: its commits are not heard.
    fn hears_every_writer(&self) -> bool {
        false
    }
}

impl fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the key.
        f.debug_struct("SqliteStore")
            .field("did", &self.key.did())
            .field("in_memory", &self.readers.is_none())
            .finish()
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        StoreError::Database(error.to_string())
    }
}
