//! Checkpoints off the commit path. SQLite's automatic checkpoint runs inside the commit that
//! crosses its threshold (1,000 WAL pages): that commit copies the log into the database and
//! fsyncs it, which made the p99 of a create 6-7 ms against a p50 under 0.5 ms. This thread
//! checkpoints instead, on a connection of its own, in PASSIVE mode (it never waits for, nor
//! blocks, readers and the writer), shortly after commits: a burst of commits is one
//! checkpoint. The log restarts when a writer finds it wholly checkpointed; commits so close
//! together that it never is still meet the writer's own checkpoint, at 4,000 pages instead of
//! 1,000, with most of the log already copied (`INLINE_CHECKPOINT_PAGES`, conn.rs).
//!
//! Durability is unchanged: in WAL mode a commit is in the log before `COMMIT` returns, and a
//! checkpoint only moves committed pages into the database file.

use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::conn::{BUSY_TIMEOUT, lock};
use crate::store::StoreError;

/// How long after a commit the checkpoint waits for more commits to join it.
const GATHER: Duration = Duration::from_millis(20);

#[derive(Default)]
struct State {
    /// A commit since the last checkpoint.
    pending: bool,
    stop: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    /// Held while a checkpoint runs, and by [`Checkpointer::hold`]: an erasure's TRUNCATE
    /// checkpoint would find this thread's checkpoint in its way and give up.
    running: Mutex<()>,
}

/// The checkpointing thread of one database file; stops (after a last checkpoint) on drop.
pub(super) struct Checkpointer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    pub fn start(path: &Path) -> Result<Checkpointer, StoreError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let shared = Arc::new(Shared {
            state: Mutex::default(),
            wake: Condvar::new(),
            running: Mutex::new(()),
        });
        let theirs = shared.clone();
        let thread = std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || run(&conn, &theirs))
            .map_err(|e| StoreError::Database(format!("cannot start the checkpoint thread: {e}")))?;
        Ok(Checkpointer {
            shared,
            thread: Some(thread),
        })
    }

    /// Called after each commit.
    pub fn committed(&self) {
        let mut state = lock(&self.shared.state);
        if !state.pending {
            state.pending = true;
            self.shared.wake.notify_one();
        }
    }

    /// Waits for a running checkpoint to end and keeps the next from starting while the guard
    /// lives (an erasure truncating the log).
    pub fn hold(&self) -> MutexGuard<'_, ()> {
        lock(&self.shared.running)
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        lock(&self.shared.state).stop = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn run(conn: &Connection, shared: &Shared) {
    loop {
        let stop = {
            let mut guard = lock(&shared.state);
            while !guard.pending && !guard.stop {
                guard = shared
                    .wake
                    .wait(guard)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
            guard.stop
        };
        if !stop {
            std::thread::sleep(GATHER);
        }
        lock(&shared.state).pending = false;
        let _running = lock(&shared.running);
        if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            tracing::warn!(kind = "checkpoint", error = %e, "the WAL checkpoint failed; the next commit retries it");
        }
        if stop {
            return;
        }
    }
}
