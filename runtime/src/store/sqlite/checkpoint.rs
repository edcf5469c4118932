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
//! On Linux the thread runs under the `SCHED_IDLE` policy ([`yield_to_calls`]). A checkpoint
//! is about a millisecond of copying, which the thread starts as soon as the `fsync` of the log
//! wakes it. At normal priority it took the core from the worker in the middle of a call, and the
//! worker waited for it there while the other core idled: a create overlapping a checkpoint took
//! 1–1.5 ms against 0.3, and such creates were a tenth of a stream's time (a `perf sched` trace;
//! nice 19 did not stop it). Under `SCHED_IDLE` the thread runs on a core no call wants.

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

    /// The writer's own checkpoint, after a commit that left the log at `pages` pages: none
    /// below [`BACKSTOP_PAGES`]; above, a PASSIVE one once this thread's checkpoint under way
    /// (if any) has ended, so that it copies the whole log and the next write restarts it.
    /// Installed as the writer's WAL hook (in place of SQLite's autocheckpoint, which does the
    /// same but skips its checkpoint while another runs).
    pub fn backstop(&self) -> impl FnMut(&mut Wal, c_int) -> rusqlite::Result<()> + Send + 'static {
        let shared = self.shared.clone();
        move |wal, pages| {
            if pages >= BACKSTOP_PAGES {
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
    yield_to_calls();
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

/// Puts the calling thread under `SCHED_IDLE`: it runs only on a core no thread of normal
/// policy wants, and never preempts one. The price is a checkpoint delayed while both cores are
/// busy; the log then grows until the writer's [`Checkpointer::backstop`] (which waits for this
/// thread's checkpoint to end, so a commit can wait for it too). The policy cannot be raised
/// again without `CAP_SYS_NICE`, so it is set once. A refusal only leaves the thread as it was.
#[cfg(target_os = "linux")]
fn yield_to_calls() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is a valid `sched_param` that outlives the call, which only reads it; pid 0
    // is the calling thread.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } != 0 {
        let error = std::io::Error::last_os_error();
        tracing::debug!(kind = "checkpoint", %error, "the checkpoint thread keeps the normal policy");
    }
}

#[cfg(not(target_os = "linux"))]
fn yield_to_calls() {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The policy of the calling thread, from `/proc` (field 41 of its `stat`).
    fn policy() -> i32 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        // The name (field 2) is in parentheses and may hold spaces: count from its end.
        let after_name = stat.rsplit_once(')').unwrap().1;
        after_name.split_whitespace().nth(41 - 3).unwrap().parse().unwrap()
    }

    #[test]
    fn the_checkpoint_thread_gives_way_to_calls() {
        let (before, after) = std::thread::spawn(|| {
            let before = policy();
            super::yield_to_calls();
            (before, policy())
        })
        .join()
        .unwrap();
        assert_eq!((before, after), (libc::SCHED_OTHER, libc::SCHED_IDLE));
    }
}
