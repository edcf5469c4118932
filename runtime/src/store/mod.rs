//! The link store: perspectives, signed links and the models registered per perspective.
//!
//! The interface speaks of perspectives and links, never of classes: instance semantics live in
//! [`crate::engine`]. A tool call is one [`WriteTx`]; dropping it without [`WriteTx::commit`]
//! rolls everything back. [`sqlite::SqliteStore`] is the embedded default;
//! [`postgres::PostgresStore`] lets several nodes share one PostgreSQL database.
//!
//! What the two stores share lives here once: the signed encodings ([`signing`]), the redaction of
//! signed lists on erasure ([`redaction`]), the checks of [`LinkStore::verify`] ([`verify`]) and
//! the SQL text both build alike ([`sql`]).

mod changes;
pub mod keys;
pub mod postgres;
mod redaction;
mod signing;
mod source_sql;
mod sql;
pub mod sqlite;
#[cfg(test)]
mod tests;
mod users;
mod verify;

use std::fmt;

pub use changes::{Change, ChangeLabeller, FORGOTTEN};
pub use keys::AuthorKey;
pub use users::{CodeCheck, EventLog, NewUser, UserRecord, UserStore};

/// A perspective: a named graph of links.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Perspective {
    pub uuid: String,
    pub name: String,
    /// DID of the agent that created it.
    pub owner: String,
    pub neighbourhood: Option<String>,
}

/// A link to write; author and timestamp come from the transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewLink {
    pub source: String,
    pub predicate: String,
    pub target: String,
    pub local: bool,
}

/// A stored link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub source: String,
    pub predicate: String,
    pub target: String,
    /// DID of the agent whose key signed the link's transaction.
    pub author: String,
    /// Microseconds since the Unix epoch, UTC.
    pub timestamp: i64,
    /// Orders links written in the same microsecond; increases with every link written.
    pub seq: i64,
    pub local: bool,
}

/// A pattern over links: `None` matches anything.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkPattern<'a> {
    pub source: Option<&'a str>,
    pub predicate: Option<&'a str>,
    pub target: Option<&'a str>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    #[default]
    OldestFirst,
    NewestFirst,
}

/// Which sources to find: those with every `all_of` link, with at least one link of each
/// `any_of` group, with a link matching each `keyed` condition, among `among`, and (with
/// `child_of`) under a parent by `ad4m://has_child`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceQuery {
    /// `(predicate, target)` links every result has.
    pub all_of: Vec<(String, String)>,
    /// Groups of `(predicate, target)`: every result has at least one link of each group.
    pub any_of: Vec<Vec<(String, String)>>,
    /// Only sources `s` with a link `(parent, ad4m://has_child, s)`.
    pub child_of: Option<String>,
    /// Conditions on the value keys of links ([`crate::value_key`]): every result has, for each,
    /// a link of its predicate whose key matches.
    pub keyed: Vec<KeyCondition>,
    /// Only these sources.
    pub among: Option<Vec<String>>,
}

/// Links of `predicate` whose value key is one of `keys` or lies in one of `ranges`. With
/// neither, no link matches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyCondition {
    pub predicate: String,
    pub keys: Vec<String>,
    pub ranges: Vec<KeyRange>,
    /// With `Some(counted)`, the matching link must also be the last (by timestamp, then seq) of
    /// its source and predicate among the links whose key lies in `counted` (every link, when
    /// it is empty): a scalar's value is its last readable link, and `counted` are the keys a
    /// link of its type is read from.
    pub last: Option<Vec<KeyRange>>,
}

/// Value keys from `low` to `high`, both included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRange {
    pub low: String,
    pub high: String,
}

/// A model (class shape) registered in one perspective with `add_model`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredModel {
    pub class_name: String,
    /// The SHACL JSON of the class as registered.
    pub shacl_json: String,
}

/// What [`LinkStore::verify`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    pub transactions: u64,
    pub links: u64,
    /// One line per transaction or link that failed to verify.
    pub failures: Vec<String>,
}

/// What an erasure ([`WriteTx::erase_links`], [`WriteTx::erase_perspective`]) took away.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Erased {
    /// Link rows deleted.
    pub links: u64,
    /// Rows of the sources index deleted (sources left with no link).
    pub index_entries: u64,
    /// Hashes of the erased links taken out of the signed lists of their transactions.
    pub hashes: u64,
    /// Hashes of links removed earlier (by an update or a remove) that sat in the same lists,
    /// taken out with them: they may be earlier values of what is erased.
    pub stale_hashes: u64,
    /// Transactions left with no link, deleted with their signatures.
    pub transactions: u64,
    /// Transactions that keep other links: their lists lost the erased hashes, and a redaction
    /// signed by the node key now stands in for the author's signature.
    pub transactions_redacted: u64,
    /// Models deleted (a whole perspective only).
    pub models: u64,
    /// Perspective rows deleted (a whole perspective only).
    pub perspectives: u64,
}

/// What became of the write-ahead log after an erasure committed ([`WriteTx::commit_erasure`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalState {
    /// Checkpointed and truncated to zero bytes: no page from before the erasure is left in it.
    Truncated,
    /// The store keeps no write-ahead log (in memory).
    NoWal,
    /// Readers kept the checkpoint from finishing: the log may still hold earlier pages.
    NotTruncated { reason: String },
    /// A database server keeps the log (PostgreSQL): the store can neither checkpoint nor truncate
    /// it. The server's write-ahead log, its archives, replicas and backups keep the erased rows
    /// as long as the operator has them kept, and the rows' old versions stay in the tables' free
    /// space until vacuum reuses it.
    ServerManaged,
}

/// Reads within one consistent snapshot.
pub trait ReadTx {
    /// Every perspective, in order of creation.
    fn perspectives(&self) -> Result<Vec<Perspective>, StoreError>;
    fn perspective(&self, uuid: &str) -> Result<Option<Perspective>, StoreError>;
    /// Links matching `pattern`, ordered by (timestamp, seq), a page of them.
    fn links(
        &self,
        perspective: &str,
        pattern: LinkPattern<'_>,
        limit: Option<u64>,
        offset: u64,
    ) -> Result<Vec<Link>, StoreError>;
    fn count_links(&self, perspective: &str, pattern: LinkPattern<'_>) -> Result<u64, StoreError>;
    /// Sources matching `query`, ordered by each source's first link (timestamp, then seq), reversed
    /// for [`Order::NewestFirst`]. `all_of` and `any_of` empty with no `child_of` means every source.
    fn sources(&self, perspective: &str, query: &SourceQuery, order: Order) -> Result<Vec<String>, StoreError>;
    /// The sources of [`ReadTx::sources`] from `offset`, at most `limit` of them, and how many
    /// there are in all: a page read through the store's indexes, without the rest.
    fn source_page(
        &self,
        perspective: &str,
        query: &SourceQuery,
        order: Order,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<String>, u64), StoreError>;
    /// The links out of `sources` (of `predicates` only, unless it is empty), ordered by
    /// (timestamp, seq) within each source.
    fn links_from(&self, perspective: &str, sources: &[String], predicates: &[String])
    -> Result<Vec<Link>, StoreError>;
    /// (timestamp, seq) of the first link out of `source`, if it has any.
    fn first_link(&self, perspective: &str, source: &str) -> Result<Option<(i64, i64)>, StoreError>;
    /// The models of a perspective, in order of first registration.
    fn models(&self, perspective: &str) -> Result<Vec<StoredModel>, StoreError>;
    /// Every perspective but `except` that holds links matching `pattern`, with how many, in
    /// order of creation: what an erasure in `except` leaves elsewhere.
    fn count_links_elsewhere(
        &self,
        except: &str,
        pattern: LinkPattern<'_>,
    ) -> Result<Vec<(Perspective, u64)>, StoreError>;
    /// The perspective's change log ([`Change`]) after `position`, in order, at most `limit` rows.
    fn changes(&self, perspective: &str, after: i64, limit: u64) -> Result<Vec<Change>, StoreError>;
    /// The last position of the perspective's change log (0 when it has no row).
    fn change_head(&self, perspective: &str) -> Result<i64, StoreError>;
    /// Every perspective with the last position of its change log, in order of creation.
    fn change_heads(&self) -> Result<Vec<(String, i64)>, StoreError>;
}

/// A write transaction: reads see its own writes; nothing is visible to others until commit.
pub trait WriteTx: ReadTx {
    fn add_perspective(&mut self, perspective: &Perspective) -> Result<(), StoreError>;
    /// Writes a link with the transaction's author and the clock's time.
    fn add_link(&mut self, perspective: &str, link: NewLink) -> Result<Link, StoreError>;
    /// Removes every link matching `pattern` (all of whose given parts match); returns how many.
    fn remove_links(&mut self, perspective: &str, pattern: LinkPattern<'_>) -> Result<u64, StoreError>;
    /// Registers or replaces a model; `true` when one of that name was replaced.
    fn put_model(&mut self, perspective: &str, model: &StoredModel) -> Result<bool, StoreError>;
    /// Signs the links written (one signature per transaction), writes a change-log row per
    /// source touched ([`Change`]) and commits.
    fn commit(self: Box<Self>) -> Result<(), StoreError>;
    /// Erases for good the links matching any of `patterns` in the perspective: unlike
    /// [`WriteTx::remove_links`], their hashes leave the signed lists of the transactions that
    /// wrote them (which are redacted or, left empty, deleted), and their index rows go.
    /// Redactions are signed with the transaction's key and [`LinkStore::verify`] accepts only
    /// the node's: erase in a transaction of [`LinkStore::write`].
    fn erase_links(&mut self, perspective: &str, patterns: &[LinkPattern<'_>]) -> Result<Erased, StoreError>;
    /// Erases a perspective for good: every link (as [`WriteTx::erase_links`]), model and index
    /// row of it, and the perspective itself.
    fn erase_perspective(&mut self, perspective: &str) -> Result<Erased, StoreError>;
    /// Commits an erasure (a transaction that wrote no links), then has the freed storage
    /// overwritten where the store can: SQLite deletes securely, and its write-ahead log is
    /// checkpointed and truncated (retried briefly while readers hold it). A database server
    /// keeps its own log and free space ([`WalState::ServerManaged`]). Every change-log row of
    /// a source left with no link is deleted (its IRI leaves the database), and one row of
    /// source [`FORGOTTEN`] per perspective says that something there was erased; a source that
    /// keeps links gets a row as in [`WriteTx::commit`].
    fn commit_erasure(self: Box<Self>) -> Result<WalState, StoreError>;
}

pub trait LinkStore: Send + Sync {
    fn read(&self) -> Result<Box<dyn ReadTx + '_>, StoreError>;
    fn write(&self) -> Result<Box<dyn WriteTx + '_>, StoreError>;
    /// A write transaction whose links `author` signs (a user's key, in multi-user mode).
    fn write_as<'a>(&'a self, author: &'a AuthorKey) -> Result<Box<dyn WriteTx + 'a>, StoreError>;
    /// The node's did:key (Ed25519), the author of links written through [`LinkStore::write`].
    fn did(&self) -> &str;
    /// Checks every transaction's signature and every surviving link against it.
    fn verify(&self) -> Result<VerifyReport, StoreError>;
    /// Who labels the rows of the change log from now on (the engine: class names).
    fn set_change_labeller(&self, labeller: std::sync::Arc<dyn ChangeLabeller>);
    /// Perspectives whose change log grew, each sent after the commit that grew it: every
    /// commit of this process, and on PostgreSQL those of every node sharing the database
    /// (see [`LinkStore::hears_every_writer`]).
    fn watch_changes(&self) -> Result<std::sync::mpsc::Receiver<String>, StoreError>;
    /// Whether [`LinkStore::watch_changes`] hears the commits of other processes too. SQLite
    /// does not (another process may write to the same file): read the heads again now and then.
    fn hears_every_writer(&self) -> bool;
}

/// A failure of the store itself (the tool answer is -32603, nothing half-written).
#[derive(Debug)]
pub enum StoreError {
    /// The database said no (disk full, locked, corrupt, ...).
    Database(String),
    /// The perspective does not exist.
    NoPerspective(String),
    /// The database was written by a newer release.
    SchemaTooNew { found: i64, supported: i64 },
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Database(e) => write!(f, "database error: {e}"),
            StoreError::NoPerspective(p) => write!(f, "no perspective {p}"),
            StoreError::SchemaTooNew { found, supported } => write!(
                f,
                "the database has schema version {found}; this release reads up to {supported}: use a newer shacl-mcp"
            ),
        }
    }
}

impl std::error::Error for StoreError {}
