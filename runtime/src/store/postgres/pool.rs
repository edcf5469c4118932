//! Connections: the store's private runtime that drives them, and a small pool.
//!
//! tokio-postgres splits a connection in two: a `Connection` future that does the I/O, spawned
//! on the store's own runtime, and a `Client` whose futures talk to it over channels. A store
//! call awaits a client future with `futures::executor::block_on`, which works on any thread,
//! inside another tokio runtime or not (the sync `postgres` crate runs a tokio runtime's
//! `block_on` instead, and panics when called from inside one).

use std::ops::Deref;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use futures::executor::block_on;
use tokio::runtime::{Builder, Handle, Runtime};
use tokio_postgres::{Config, NoTls};

use super::client::{PgClient, Session, database_error, set_up};
use crate::store::StoreError;

/// Connections a store opens at most; a call finding all of them busy waits for one.
const MAX_OPEN: usize = 16;
/// Idle connections kept for reuse; more are closed when handed back.
const MAX_IDLE: usize = 8;
/// How long a call waits for a busy pool before it fails.
const POOL_WAIT: Duration = Duration::from_secs(30);

/// Locks a mutex, recovering it when a panicking thread poisoned it: the data behind each of
/// this module's mutexes is consistent between any two statements.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The store's own runtime: one worker thread runs every connection's I/O. Shut down without
/// waiting when the store drops, so that dropping a store inside an async context cannot panic.
pub(super) struct Background {
    /// `None` only inside `drop`.
    runtime: Option<Runtime>,
    handle: Handle,
}

impl Background {
    pub fn new() -> Result<Self, StoreError> {
        let runtime = Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("shacl-mcp-postgres")
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| StoreError::Database(format!("cannot start the PostgreSQL runtime: {e}")))?;
        Ok(Background {
            handle: runtime.handle().clone(),
            runtime: Some(runtime),
        })
    }

    pub fn handle(&self) -> &Handle {
        &self.handle
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

struct PoolState {
    idle: Vec<PgClient>,
    /// Connections open, idle or in use.
    open: usize,
}

/// A store's connections to one database.
pub(super) struct Pool {
    config: Config,
    session: Session,
    runtime: Handle,
    state: Mutex<PoolState>,
    freed: Condvar,
}

impl Pool {
    pub fn new(config: Config, session: Session, runtime: Handle) -> Self {
        Pool {
            config,
            session,
            runtime,
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                open: 0,
            }),
            freed: Condvar::new(),
        }
    }

    /// An idle connection, a new one, or (all busy) the first one handed back.
    pub fn take(&self) -> Result<Pooled<'_>, StoreError> {
        let deadline = Instant::now() + POOL_WAIT;
        let mut state = lock(&self.state);
        loop {
            while let Some(client) = state.idle.pop() {
                if client.is_closed() {
                    state.open -= 1;
                    continue;
                }
                return Ok(Pooled {
                    client: Some(client),
                    pool: self,
                    reused: true,
                    keep: true,
                });
            }
            if state.open < MAX_OPEN {
                state.open += 1;
                drop(state);
                return match self.connect() {
                    Ok(client) => Ok(Pooled {
                        client: Some(client),
                        pool: self,
                        reused: false,
                        keep: true,
                    }),
                    Err(e) => {
                        self.release_slot();
                        Err(e)
                    }
                };
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(StoreError::Database(format!(
                    "all {MAX_OPEN} connections to PostgreSQL stayed busy for {}s",
                    POOL_WAIT.as_secs()
                )));
            }
            state = self
                .freed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// A connection inside a transaction begun with `sql`. A pooled connection the server closed
    /// meanwhile (restart, idle timeout) is replaced once by a new one.
    pub fn begin(&self, sql: &str) -> Result<Pooled<'_>, StoreError> {
        let mut conn = self.take()?;
        match conn.begin(sql) {
            Ok(()) => Ok(conn),
            Err(_) if conn.reused => {
                conn.discard();
                drop(conn);
                let mut conn = self.take()?;
                if let Err(e) = conn.begin(sql) {
                    conn.discard();
                    return Err(e);
                }
                Ok(conn)
            }
            Err(e) => {
                conn.discard();
                Err(e)
            }
        }
    }

    /// A new connection, its I/O spawned on the store's runtime, its session set.
    fn connect(&self) -> Result<PgClient, StoreError> {
        let config = self.config.clone();
        let session = self.session.clone();
        let connecting = self.runtime.spawn(async move {
            let (client, connection) = config.connect(NoTls).await?;
            tokio::spawn(async move {
                if let Err(e) = connection.await {
                    tracing::debug!("a PostgreSQL connection ended: {}", database_error(e));
                }
            });
            set_up(&client, &session).await?;
            Ok::<_, tokio_postgres::Error>(client)
        });
        let client = block_on(connecting)
            .map_err(|e| StoreError::Database(format!("the PostgreSQL runtime stopped: {e}")))?
            .map_err(database_error)?;
        Ok(PgClient::new(client))
    }

    fn release_slot(&self) {
        lock(&self.state).open -= 1;
        self.freed.notify_one();
    }

    /// Keeps `client` for reuse when `keep` (and it is open and the idle list has room); closes
    /// it otherwise.
    fn give_back(&self, client: PgClient, keep: bool) {
        let mut state = lock(&self.state);
        if keep && state.idle.len() < MAX_IDLE && !client.is_closed() {
            state.idle.push(client);
        } else {
            state.open -= 1;
        }
        drop(state);
        self.freed.notify_one();
    }
}

/// A connection taken from the pool, handed back on drop. Whoever holds it ends any
/// transaction first, or [`Pooled::discard`]s it.
pub(super) struct Pooled<'a> {
    /// `None` only inside `drop`.
    client: Option<PgClient>,
    pool: &'a Pool,
    /// Taken from the idle list rather than opened for this call.
    reused: bool,
    /// Handed back for reuse on drop (else closed).
    keep: bool,
}

impl Pooled<'_> {
    /// Has the connection closed on drop instead of handed back (its state is unknown).
    pub fn discard(&mut self) {
        self.keep = false;
    }

    /// Rolls back whatever is open; a connection that cannot be brought back to rest is
    /// discarded.
    pub fn end(&mut self) {
        if self.rollback().is_err() {
            self.discard();
        }
    }

    /// Ends a read-only transaction without waiting for PostgreSQL's answer: a round trip fewer
    /// for every read. The `ROLLBACK` is sent now; whoever takes the connection next sends its
    /// `BEGIN` behind it, and the driver keeps a connection's requests in order and skips the
    /// answers nobody waits for. A connection found closed is discarded here; one that breaks
    /// meanwhile fails that `BEGIN`, and the pool replaces it ([`Pool::begin`]).
    pub fn end_unawaited(&mut self) {
        if !self.send_batch("ROLLBACK") {
            self.discard();
        }
    }
}

impl Deref for Pooled<'_> {
    type Target = PgClient;
    fn deref(&self) -> &PgClient {
        // Only `drop` takes the client out.
        self.client.as_ref().expect("the client is taken out in drop only")
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            self.pool.give_back(client, self.keep);
        }
    }
}
