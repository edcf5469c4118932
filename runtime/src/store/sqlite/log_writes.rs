//! A VFS that hands each commit's write-ahead log to the operating system in one write.
//!
//! SQLite appends a commit to the log a frame at a time, and each frame in two writes (its
//! 24-byte header, then the page): a create of four links is 26 frames, 52 `pwrite`s, about
//! 100 µs of system calls on the machines we measure, a third of the create. This VFS wraps
//! the platform's default one and, for the log file alone, gathers writes that follow one
//! another into a buffer, written with one call when the commit frame's page arrives. Every
//! other file (the database, the journal of an in-memory store) is the default VFS's own, with
//! nothing in between.
//!
//! Why nothing changes but the number of calls:
//! - Frames are only read, by this connection or any other, after the commit that contains
//!   them is published in the log's index (the `-shm` file), which SQLite does after the commit
//!   frame is written; the buffer is written before that write returns. A crash before it is
//!   a crash before the commit, as it was.
//! - Any other operation on the log (read, sync, truncate, size, lock, file control, close)
//!   writes the buffer first, and so does a write that does not follow it (SQLite rewriting a
//!   frame of the open transaction in place): the file sees the writes in their order.
//! - A failed write of the buffer is the failed write of the commit (or of the operation that
//!   wrote it): the transaction fails as it would have.
//!
//! The writer's connection opens the database through it ([`register`]); the readers, which
//! never write the log, through the default VFS.
//!
//! The checkpoint thread's connection, which writes the database file and never the log, opens
//! it through a second registration of the same VFS,
//! [`register_yielding`], whose log file gives the core away ([`std::thread::yield_now`]) after
//! each `fsync` and every few frames it reads. Woken by the `fsync` of the log at the start of a
//! checkpoint, that thread took the core of the worker handling a call and copied pages for
//! about a millisecond while the worker waited in the core's run queue and the other core
//! idled (a tenth of a stream of creates' time). Yielding hands the core back at the next frame,
//! at normal priority: under `SCHED_IDLE` instead, a thread starved on busy cores held the
//! backstop, and every write, for up to 1.4 s.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use rusqlite::ffi;

/// The name the VFS is registered under.
pub(super) const NAME: &str = "shacl-mcp-log-writes";
/// The name of its yielding registration, for the checkpoint thread.
pub(super) const YIELDING_NAME: &str = "shacl-mcp-checkpoint";
/// A yielding log file yields after this many reads (a checkpoint reads each frame once).
const YIELD_EVERY_READS: u32 = 8;

/// How many callers wait for a checkpoint to end ([`hurry`]): while any does, no file yields.
static HURRIED: AtomicUsize = AtomicUsize::new(0);

/// Stops yielding files from yielding while the guard lives: its holder waits for the
/// checkpoint (the writer's backstop, an erasure). On cores kept busy, a checkpoint that yields
/// every few frames gives each busy thread a time slice each time: the backstop waited up to
/// 96 ms for one, against 16 ms for a checkpoint that does not yield.
pub(super) fn hurry() -> Hurry {
    HURRIED.fetch_add(1, Ordering::SeqCst);
    Hurry
}

/// See [`hurry`].
pub(super) struct Hurry;

impl Drop for Hurry {
    fn drop(&mut self) {
        HURRIED.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Gives the core away, unless someone waits for this checkpoint.
fn yield_unless_hurried() {
    if HURRIED.load(Ordering::Relaxed) == 0 {
        std::thread::yield_now();
        #[cfg(test)]
        tests::YIELDS.set(tests::YIELDS.get() + 1);
    }
}

/// The size of a log frame's header, before its page.
const FRAME_HEADER: usize = 24;
/// Gathered writes beyond this are written at once (a transaction spilling many pages).
const MOST_GATHERED: usize = 4 << 20;
/// The most one write hands the default VFS: the unix VFS writes at most 128 KiB - 1 bytes a
/// call (`seekAndWriteFd` masks the length with `0x1ffff`) and calls a shorter write a full
/// disk. 120 KiB is a commit of 29 frames in one call.
const MOST_PER_WRITE: usize = 120 << 10;
/// The buffer kept between commits: a commit of 60 pages.
const KEPT_CAPACITY: usize = 256 << 10;

/// Registers the VFS (once per process) and returns its name, or `None` when SQLite has no
/// default VFS to wrap (then the default is used as it is).
pub(super) fn register() -> Option<&'static str> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let registered = *REGISTERED.get_or_init(|| register_as(c"shacl-mcp-log-writes", open::<false>));
    registered.then_some(NAME)
}

/// Registers the yielding VFS for the checkpoint thread (once per process) and returns its name,
/// or `None` as [`register`] does.
pub(super) fn register_yielding() -> Option<&'static str> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let registered = *REGISTERED.get_or_init(|| register_as(c"shacl-mcp-checkpoint", open::<true>));
    registered.then_some(YIELDING_NAME)
}

type OpenFn =
    unsafe extern "C" fn(*mut ffi::sqlite3_vfs, *const c_char, *mut ffi::sqlite3_file, c_int, *mut c_int) -> c_int;

/// Registers the default VFS wrapped by [`wrap`] under `name`; whether it is registered.
fn register_as(name: &'static CStr, open: OpenFn) -> bool {
    // SAFETY: sqlite3_vfs_find(NULL) returns the default VFS, which lives for the process;
    // the VFS built from it is leaked, so it does too, as registration requires.
    unsafe {
        let default = ffi::sqlite3_vfs_find(std::ptr::null());
        if default.is_null() {
            return false;
        }
        let vfs = Box::leak(Box::new(wrap(default, name, open)));
        ffi::sqlite3_vfs_register(vfs, 0) == ffi::SQLITE_OK
    }
}

/// The default VFS `default` named `name`, with its `xOpen` replaced by `open` and room in each
/// file for a [`LogFile`] before the default's own.
unsafe fn wrap(default: *mut ffi::sqlite3_vfs, name: &'static CStr, open: OpenFn) -> ffi::sqlite3_vfs {
    // SAFETY: the caller passes the default VFS, valid for the process.
    let mut vfs = unsafe { *default };
    let inner_size = usize::try_from(vfs.szOsFile).unwrap_or(0);
    vfs.szOsFile = c_int::try_from(inner_offset() + inner_size).unwrap_or(c_int::MAX);
    vfs.pNext = std::ptr::null_mut();
    vfs.zName = name.as_ptr();
    vfs.pAppData = default.cast();
    vfs.xOpen = Some(open);
    vfs
}

/// A log file: SQLite's file header (its methods are [`LOG_METHODS`]), the gathered writes, then
/// the default VFS's file at [`inner_offset`].
#[repr(C)]
struct LogFile {
    base: ffi::sqlite3_file,
    inner: *mut ffi::sqlite3_file,
    gathered: Vec<u8>,
    /// Where `gathered` goes in the file.
    at: i64,
    /// The last write was the header of a commit frame: its page ends the commit.
    commit_page_next: bool,
    /// Opened through [`register_yielding`]: yield after syncs and every few reads.
    yields: bool,
    /// Reads since the last yield.
    reads: u32,
}

/// Where a [`LogFile`]'s inner file starts, aligned for any file of the default VFS.
const fn inner_offset() -> usize {
    let align = 16;
    std::mem::size_of::<LogFile>().div_ceil(align) * align
}

/// The default VFS, kept in `pAppData` by [`wrap`].
unsafe fn default_vfs(vfs: *mut ffi::sqlite3_vfs) -> *mut ffi::sqlite3_vfs {
    // SAFETY: `vfs` is the one built by `wrap`.
    unsafe { (*vfs).pAppData.cast() }
}

/// `xOpen`: the log file wrapped in a [`LogFile`] (one that yields when `YIELDS`, for
/// [`register_yielding`]); any other file is the default VFS's own, opened in the same memory.
unsafe extern "C" fn open<const YIELDS: bool>(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY: SQLite gives `file` szOsFile bytes (the size `wrap` set), and `vfs` is ours.
    unsafe {
        let default = default_vfs(vfs);
        let Some(default_open) = (*default).xOpen else {
            return ffi::SQLITE_CANTOPEN;
        };
        if flags & ffi::SQLITE_OPEN_WAL == 0 {
            return default_open(default, name, file, flags, out_flags);
        }
        let log = file.cast::<LogFile>();
        let inner = file.cast::<u8>().add(inner_offset()).cast::<ffi::sqlite3_file>();
        (*inner).pMethods = std::ptr::null();
        let rc = default_open(default, name, inner, flags, out_flags);
        if rc != ffi::SQLITE_OK || (*inner).pMethods.is_null() {
            // SQLite calls no method of a file whose pMethods is NULL after xOpen.
            if !(*inner).pMethods.is_null()
                && let Some(close) = (*(*inner).pMethods).xClose
            {
                close(inner);
            }
            (*file).pMethods = std::ptr::null();
            return if rc == ffi::SQLITE_OK { ffi::SQLITE_CANTOPEN } else { rc };
        }
        log.write(LogFile {
            base: ffi::sqlite3_file { pMethods: &LOG_METHODS },
            inner,
            gathered: Vec::new(),
            at: 0,
            commit_page_next: false,
            yields: YIELDS,
            reads: 0,
        });
        ffi::SQLITE_OK
    }
}

/// The inner file's methods.
unsafe fn methods(log: *mut LogFile) -> &'static ffi::sqlite3_io_methods {
    // SAFETY: `open` left a valid inner file with methods; SQLite's methods tables are static.
    unsafe { &*(*(*log).inner).pMethods }
}

/// Writes the gathered writes (if any) to the file, in pieces the default VFS takes whole.
unsafe fn write_gathered(log: *mut LogFile) -> c_int {
    // SAFETY: `log` is a file `open` initialised and SQLite has not closed.
    unsafe {
        let Some(write) = methods(log).xWrite else {
            return ffi::SQLITE_IOERR_WRITE;
        };
        let log = &mut *log;
        let mut rc = ffi::SQLITE_OK;
        let mut at = log.at;
        for piece in log.gathered.chunks(MOST_PER_WRITE) {
            // A piece is at most MOST_PER_WRITE bytes: it fits a c_int.
            rc = write(log.inner, piece.as_ptr().cast(), piece.len() as c_int, at);
            #[cfg(test)]
            tests::INNER_WRITES.set(tests::INNER_WRITES.get() + 1);
            if rc != ffi::SQLITE_OK {
                break;
            }
            at += piece.len() as i64;
        }
        log.gathered.clear();
        // A spill of many pages does not keep its buffer for the connection's life.
        log.gathered.shrink_to(KEPT_CAPACITY);
        rc
    }
}

/// Writes the gathered writes, then calls the inner file's `$method` with the arguments.
macro_rules! after_gathered {
    ($log:expr, $method:ident, $($arg:expr),*) => {{
        let log = $log.cast::<LogFile>();
        // SAFETY: SQLite calls a method only on a file `open` initialised with LOG_METHODS.
        unsafe {
            let rc = write_gathered(log);
            if rc != ffi::SQLITE_OK {
                return rc;
            }
            match methods(log).$method {
                Some(method) => method((*log).inner, $($arg),*),
                None => ffi::SQLITE_IOERR,
            }
        }
    }};
}

unsafe extern "C" fn log_write(file: *mut ffi::sqlite3_file, data: *const c_void, amount: c_int, offset: i64) -> c_int {
    let log = file.cast::<LogFile>();
    // SAFETY: as in `after_gathered`; `data` holds `amount` bytes for the call.
    unsafe {
        let Ok(len) = usize::try_from(amount) else {
            return ffi::SQLITE_IOERR_WRITE;
        };
        let bytes = std::slice::from_raw_parts(data.cast::<u8>(), len);
        let state = &mut *log;
        let follows = !state.gathered.is_empty() && state.at + state.gathered.len() as i64 == offset;
        if !follows {
            let rc = write_gathered(log);
            if rc != ffi::SQLITE_OK {
                return rc;
            }
            (*log).at = offset;
        }
        let state = &mut *log;
        state.gathered.extend_from_slice(bytes);
        // A frame header whose "database size after commit" is set heads the commit frame.
        let commit_header = len == FRAME_HEADER && bytes[4..8] != [0, 0, 0, 0];
        let ends_commit = std::mem::replace(&mut state.commit_page_next, commit_header);
        if ends_commit || state.gathered.len() >= MOST_GATHERED {
            return write_gathered(log);
        }
        ffi::SQLITE_OK
    }
}

unsafe extern "C" fn log_close(file: *mut ffi::sqlite3_file) -> c_int {
    let log = file.cast::<LogFile>();
    // SAFETY: SQLite closes a file once; the LogFile `open` wrote is dropped here.
    unsafe {
        let written = write_gathered(log);
        let closed = match methods(log).xClose {
            Some(close) => close((*log).inner),
            None => ffi::SQLITE_OK,
        };
        std::ptr::drop_in_place(log);
        (*file).pMethods = std::ptr::null();
        if written != ffi::SQLITE_OK { written } else { closed }
    }
}

unsafe extern "C" fn log_read(file: *mut ffi::sqlite3_file, data: *mut c_void, amount: c_int, offset: i64) -> c_int {
    let rc = after_gathered!(file, xRead, data, amount, offset);
    // SAFETY: as in `after_gathered`.
    let log = unsafe { &mut *file.cast::<LogFile>() };
    if log.yields {
        log.reads += 1;
        if log.reads >= YIELD_EVERY_READS {
            log.reads = 0;
            yield_unless_hurried();
        }
    }
    rc
}

unsafe extern "C" fn log_truncate(file: *mut ffi::sqlite3_file, size: i64) -> c_int {
    after_gathered!(file, xTruncate, size)
}

unsafe extern "C" fn log_sync(file: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    let rc = after_gathered!(file, xSync, flags);
    // SAFETY: as in `after_gathered`.
    if unsafe { (*file.cast::<LogFile>()).yields } {
        // Woken by the disk, this thread may have just taken the core of a worker.
        yield_unless_hurried();
    }
    rc
}

unsafe extern "C" fn log_file_size(file: *mut ffi::sqlite3_file, size: *mut i64) -> c_int {
    after_gathered!(file, xFileSize, size)
}

unsafe extern "C" fn log_lock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    after_gathered!(file, xLock, level)
}

unsafe extern "C" fn log_unlock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    after_gathered!(file, xUnlock, level)
}

unsafe extern "C" fn log_check_reserved_lock(file: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    after_gathered!(file, xCheckReservedLock, out)
}

unsafe extern "C" fn log_file_control(file: *mut ffi::sqlite3_file, op: c_int, arg: *mut c_void) -> c_int {
    after_gathered!(file, xFileControl, op, arg)
}

unsafe extern "C" fn log_sector_size(file: *mut ffi::sqlite3_file) -> c_int {
    let log = file.cast::<LogFile>();
    // SAFETY: as in `after_gathered`.
    unsafe { methods(log).xSectorSize.map_or(0, |size| size((*log).inner)) }
}

unsafe extern "C" fn log_device_characteristics(file: *mut ffi::sqlite3_file) -> c_int {
    let log = file.cast::<LogFile>();
    // SAFETY: as in `after_gathered`.
    unsafe {
        methods(log)
            .xDeviceCharacteristics
            .map_or(0, |chars| chars((*log).inner))
    }
}

/// Version 1: SQLite calls the shared-memory and memory-map methods on the database file only,
/// never on the log, and a version 1 file tells it this one has neither.
static LOG_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 1,
    xClose: Some(log_close),
    xRead: Some(log_read),
    xWrite: Some(log_write),
    xTruncate: Some(log_truncate),
    xSync: Some(log_sync),
    xFileSize: Some(log_file_size),
    xLock: Some(log_lock),
    xUnlock: Some(log_unlock),
    xCheckReservedLock: Some(log_check_reserved_lock),
    xFileControl: Some(log_file_control),
    xSectorSize: Some(log_sector_size),
    xDeviceCharacteristics: Some(log_device_characteristics),
    xShmMap: None,
    xShmLock: None,
    xShmBarrier: None,
    xShmUnmap: None,
    xFetch: None,
    xUnfetch: None,
};

#[cfg(test)]
mod tests;
