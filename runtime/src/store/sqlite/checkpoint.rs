//! Checkpoints off the commit path. SQLite's automatic checkpoint runs inside the commit that
//! crosses its threshold (1,000 WAL pages): that commit copies the log into the database and
//! fsyncs it, which made the p99 of a create 6-7 ms against a p50 under 0.5 ms. This thread
//! checkpoints instead, on a connection of its own, in PASSIVE mode (it never waits for, nor
//! blocks, readers and the writer), shortly after commits: a burst of commits is one
//! checkpoint. The log restarts when a writer finds it wholly checkpointed; commits so close
//! together that it never is still meet the writer's own checkpoint, at 16,000 pages (64 MiB of
//! 4 KiB pages) instead of 1,000, with most of the log already copied
//! ([`Checkpointer::backstop`]). It pauses the writer, and every write queued behind it, for a
//! wait on this thread's checkpoint and an fsync of the database: at 4,000 pages that pause came
//! every 150 creates of a steady stream and was most of 16 clients' queueing. That one waits for a
//! checkpoint of this thread under way rather than giving up on it as SQLite's own would: a
//! checkpoint slowed by the disk (its fsync) otherwise let the log grow without bound while
//! commits went on.
//!
//! Durability is unchanged: in WAL mode a commit is in the log before `COMMIT` returns, and a
//! checkpoint only moves committed pages into the database file.
//!
//! The thread's connection opens the database through the yielding registration of the
//! log-writes VFS ([`super::log_writes::register_yielding`]), so a checkpoint gives the core
//! back to the calls every few pages; whoever waits for it ([`Checkpointer::backstop`],
//! [`Checkpointer::hold`]) turns that off meanwhile ([`super::log_writes::hurry`]).

use std::ffi::c_int;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::hooks::Wal;
use rusqlite::wal::CheckpointMode;
use rusqlite::{Connection, OpenFlags};

use super::conn::{BUSY_TIMEOUT, lock};
use crate::store::StoreError;

/// How long after a commit the checkpoint waits for more commits to join it.
const GATHER: Duration = Duration::from_millis(20);
/// The log size (in pages) at which a commit checkpoints in line after all: a backstop for
/// commits so close together that the checkpoint thread never finds the log quiet enough to
/// restart it. SQLite's automatic checkpoint is at 1,000. The price of a higher one is disk: the
/// log of a steady stream of writes grows to this size before it restarts.
pub(super) const BACKSTOP_PAGES: c_int = 16000;

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
        let conn = match super::log_writes::register_yielding() {
            Some(vfs) => Connection::open_with_flags_and_vfs(path, flags, vfs)?,
            None => Connection::open_with_flags(path, flags)?,
        };
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

    /// The writer's own checkpoint, after a commit that left the log at `pages` pages: none
    /// below [`BACKSTOP_PAGES`]; above, a PASSIVE one once this thread's checkpoint under way
    /// (if any) has ended, so that it copies the whole log and the next write restarts it.
    /// Installed as the writer's WAL hook (in place of SQLite's autocheckpoint, which does the
    /// same but skips its checkpoint while another runs).
    pub fn backstop(&self) -> impl FnMut(&mut Wal, c_int) -> rusqlite::Result<()> + Send + 'static {
        let shared = self.shared.clone();
        move |wal, pages| {
            if pages >= BACKSTOP_PAGES {
                let _hurry = super::log_writes::hurry();
                let _running = lock(&shared.running);
                if let Err(e) = wal.checkpoint_v2(CheckpointMode::PASSIVE) {
                    tracing::warn!(kind = "checkpoint", error = %e, "the writer's WAL checkpoint failed; the next commit retries it");
                }
            }
            // An error here would be COMMIT's, though the commit has happened: never one.
            Ok(())
        }
    }

    /// Waits for a running checkpoint to end and keeps the next from starting while the guard
    /// lives (an erasure truncating the log).
    pub fn hold(&self) -> MutexGuard<'_, ()> {
        let _hurry = super::log_writes::hurry();
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
