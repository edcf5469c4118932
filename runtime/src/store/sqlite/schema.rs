//! The schema, its version in `meta` and the migrations that reach it; the node key.

use rusqlite::functions::FunctionFlags;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use crate::store::{AuthorKey, StoreError};
use crate::value_key;

/// The schema version this release writes and reads.
pub const SCHEMA_VERSION: i64 = 9;

/// `MIGRATIONS[n]` takes a database from version `n` to `n + 1`. Append only: never edit one
/// that has shipped.
const MIGRATIONS: &[&str] = &[V1, V2, V3, super::changes::SCHEMA, V5, V6, V7, V8, V9];

const V1: &str = "
CREATE TABLE perspectives (
    id INTEGER PRIMARY KEY,
    uuid TEXT UNIQUE NOT NULL,
    name TEXT NOT NULL,
    owner TEXT NOT NULL,
    neighbourhood TEXT
);
CREATE TABLE transactions (
    id INTEGER PRIMARY KEY,
    author TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    link_hashes BLOB NOT NULL,
    signature BLOB NOT NULL
);
-- id is the link's seq: AUTOINCREMENT so a seq is never reused after a removal.
CREATE TABLE links (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    perspective INTEGER NOT NULL REFERENCES perspectives(id),
    source TEXT NOT NULL,
    predicate TEXT NOT NULL,
    target TEXT NOT NULL,
    author TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    local INTEGER NOT NULL,
    tx INTEGER NOT NULL REFERENCES transactions(id),
    hash BLOB NOT NULL
);
CREATE INDEX links_source_predicate ON links(perspective, source, predicate, target);
CREATE INDEX links_source_time ON links(perspective, source, timestamp);
-- With source: covering for the (predicate, target) lookups of sources().
CREATE INDEX links_predicate_target ON links(perspective, predicate, target, source);
CREATE INDEX links_target ON links(perspective, target);
-- Every source with an outgoing link and its first link (timestamp, seq).
CREATE TABLE sources (
    perspective INTEGER NOT NULL REFERENCES perspectives(id),
    source TEXT NOT NULL,
    first_ts INTEGER NOT NULL,
    first_seq INTEGER NOT NULL,
    PRIMARY KEY (perspective, source)
) WITHOUT ROWID;
CREATE INDEX sources_first ON sources(perspective, first_ts, first_seq);
CREATE TABLE models (
    perspective INTEGER NOT NULL REFERENCES perspectives(id),
    class_name TEXT NOT NULL,
    shacl_json TEXT NOT NULL,
    registered INTEGER NOT NULL,
    PRIMARY KEY (perspective, class_name)
);
";

/// Multi-user mode: accounts and the pending codes of email verification. A user's secret key
/// is kept unencrypted at rest, as the node key is in `meta`: the database file is the secret.
/// Emails are stored normalised (trimmed, lower case); `code_mac` is an HMAC of a code, never
/// the code.
const V2: &str = "
CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    did TEXT UNIQUE NOT NULL,
    email TEXT UNIQUE NOT NULL,
    password_hash TEXT NOT NULL,
    secret_key BLOB NOT NULL,
    verified INTEGER NOT NULL,
    created INTEGER NOT NULL
);
CREATE TABLE email_codes (
    email TEXT NOT NULL,
    purpose TEXT NOT NULL,
    code_mac BLOB NOT NULL,
    expires INTEGER NOT NULL,
    attempts_left INTEGER NOT NULL,
    PRIMARY KEY (email, purpose)
) WITHOUT ROWID;
";

/// The value key of every link ([`crate::value_key`]), indexed by predicate so that filters on
/// values narrow their candidates in the store. The keys of links written before are filled in
/// by [`backfill_value_keys`] in the same transaction.
const V3: &str = "
ALTER TABLE links ADD COLUMN value_key TEXT;
CREATE INDEX links_predicate_key ON links(perspective, predicate, value_key, source);
";

// Version 4: the change log, `super::changes::SCHEMA`. Sources written before it have no row;
// their first row says `labels_before: None` (unknown).

/// The version whose migration adds `links.value_key`.
const VALUE_KEY_VERSION: usize = 3;

/// Version 5: `literal:lang:<tag>:` targets decode as language-tagged strings, whose key is
/// their text; the keys of those written before are made again by the backfill (which fills in
/// every key that is NULL).
const V5: &str = "
UPDATE links SET value_key = NULL WHERE target LIKE 'literal:lang:%' OR target LIKE 'literal://lang:%';
";

/// The version whose migration makes the keys of language-tagged strings again.
const LANG_KEY_VERSION: usize = 5;

/// Version 6: one index by (predicate, value) where there were two. `links_predicate_target`
/// served lookups by exact target and `links_predicate_key` those by value key; a target's key
/// is a function of the target ([`VALUE_KEY_FN`]), so an index by (predicate, key, target)
/// serves both, and every link written updates one B-tree fewer: one page fewer to write, as a
/// link's place in an index by predicate and target is rarely on a page the commit writes anyway.
const V6: &str = "
CREATE INDEX links_predicate_value ON links(perspective, predicate, value_key, target, source);
DROP INDEX links_predicate_target;
DROP INDEX links_predicate_key;
";

/// Version 7: `links.superseded`, 1 when a later link (by timestamp, then seq) of the same
/// source and predicate exists ([`super::superseded`] keeps it), and in `links_predicate_value`
/// so that a filter on a scalar's value tells the last link from the index alone: the probe for
/// a later link was a third of reading 1,000 matches. Links written before are flagged here.
const V7: &str = "
ALTER TABLE links ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0;
UPDATE links SET superseded = 1 WHERE EXISTS (SELECT 1 FROM links AS later \
    WHERE later.perspective = links.perspective AND later.source = links.source \
    AND later.predicate = links.predicate AND (later.timestamp, later.id) > (links.timestamp, links.id));
DROP INDEX links_predicate_value;
CREATE INDEX links_predicate_value ON links(perspective, predicate, value_key, target, source, superseded);
";

/// Version 8: the keys looked up by source lead with the source, not the perspective. A filter
/// seeks each match's `sources` row and its class marker in `links_source_predicate`, and reads
/// a page's instances through `links_source_time`; in a key led by the perspective, which is
/// the same in nearly every key, each of a seek's comparisons ties on it and goes on to SQLite's
/// general comparison of the rest, where a key led by the source is decided by its first field.
/// Every lookup of these gives both columns, so the order serves them all: the 1%-filter
/// statement at 100,000 Tasks ran 19% fewer instructions (callgrind). `sources` is a `WITHOUT
/// ROWID` table keyed by (perspective, source), so it is copied into one keyed the other way.
const V8: &str = "
DROP INDEX links_source_predicate;
CREATE INDEX links_source_predicate ON links(source, perspective, predicate, target);
DROP INDEX links_source_time;
CREATE INDEX links_source_time ON links(source, perspective, timestamp);
CREATE TABLE sources_by_source (
    perspective INTEGER NOT NULL REFERENCES perspectives(id),
    source TEXT NOT NULL,
    first_ts INTEGER NOT NULL,
    first_seq INTEGER NOT NULL,
    PRIMARY KEY (source, perspective)
) WITHOUT ROWID;
INSERT INTO sources_by_source (perspective, source, first_ts, first_seq)
    SELECT perspective, source, first_ts, first_seq FROM sources;
DROP TABLE sources;
ALTER TABLE sources_by_source RENAME TO sources;
CREATE INDEX sources_first ON sources(perspective, first_ts, first_seq);
";

/// Version 9: each link holds its source's order key (`first_ts`, `first_seq`, as in `sources`;
/// kept by [`super::order_key`]), and `links_predicate_value` has it right after the value key.
/// A filter reads its matches from that index and, with the key there, orders them without a
/// lookup in `sources` per match (half the seeks of the 1%-filter statement at 100,000 Tasks);
/// the matches of one value come out in order, unsorted. A lookup by exact target reads the
/// entries of its value key (the value's spellings) to find it. The index is dropped before the
/// copy so that the copy does not maintain it.
const V9: &str = "
DROP INDEX links_predicate_value;
ALTER TABLE links ADD COLUMN first_ts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE links ADD COLUMN first_seq INTEGER NOT NULL DEFAULT 0;
UPDATE links SET first_ts = s.first_ts, first_seq = s.first_seq FROM sources AS s
    WHERE s.source = links.source AND s.perspective = links.perspective;
CREATE INDEX links_predicate_value
    ON links(perspective, predicate, value_key, first_ts, first_seq, target, source, superseded);
";

/// The SQL function giving a target's value key ([`value_key::key`]), registered on every
/// connection by [`register_functions`]: a lookup by target names it so that it goes through
/// `links_predicate_value` (`store::sql::SQLITE`).
pub(crate) const VALUE_KEY_FN: &str = "shacl_value_key";

/// Registers [`VALUE_KEY_FN`] on `conn`. It is declared deterministic, so SQLite may factor a
/// call on a bound parameter out of a statement's loops; a value that is not text has no key
/// (NULL, matching nothing).
pub(super) fn register_functions(conn: &Connection) -> Result<(), StoreError> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_INNOCUOUS;
    conn.create_scalar_function(VALUE_KEY_FN, 1, flags, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Text(bytes) => std::str::from_utf8(bytes).ok().map(value_key::key),
            _ => None,
        })
    })?;
    Ok(())
}

const VERSION_KEY: &str = "schema_version";
const NODE_KEY: &str = "node_key";

/// Brings the database to [`SCHEMA_VERSION`] in one transaction and returns the node key,
/// generating it on first open.
pub(super) fn migrate(conn: &mut Connection) -> Result<AuthorKey, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB)")?;
    let found: i64 = tx
        .query_row("SELECT value FROM meta WHERE key = ?1", [VERSION_KEY], |row| row.get(0))
        .optional()?
        .unwrap_or(0);
    if found > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew {
            found,
            supported: SCHEMA_VERSION,
        });
    }
    let from = usize::try_from(found).map_err(|_| StoreError::Database(format!("bad schema version {found}")))?;
    for (version, migration) in MIGRATIONS.iter().enumerate().skip(from) {
        tx.execute_batch(migration)?;
        if version + 1 == VALUE_KEY_VERSION || version + 1 == LANG_KEY_VERSION {
            backfill_value_keys(&tx)?;
        }
    }
    if from < MIGRATIONS.len() {
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
            (VERSION_KEY, SCHEMA_VERSION),
        )?;
    }
    let stored: Option<Vec<u8>> = tx
        .query_row("SELECT value FROM meta WHERE key = ?1", [NODE_KEY], |row| row.get(0))
        .optional()?;
    let key = match stored {
        Some(secret) => AuthorKey::from_stored(&secret, "the node key")?,
        None => {
            let key = AuthorKey::generate()
                .map_err(|e| StoreError::Database(format!("no randomness for the node key: {e}")))?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                (NODE_KEY, &key.secret()[..]),
            )?;
            key
        }
    };
    tx.commit()?;
    Ok(key)
}

/// Computes the value key of every link that has none (the links of a database from before
/// [`VALUE_KEY_VERSION`]).
fn backfill_value_keys(tx: &rusqlite::Transaction<'_>) -> Result<(), StoreError> {
    let mut read = tx.prepare("SELECT id, target FROM links WHERE value_key IS NULL")?;
    let mut write = tx.prepare("UPDATE links SET value_key = ?2 WHERE id = ?1")?;
    let rows = read.query_map([], |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?)))?;
    for row in rows {
        let (id, target) = row?;
        write.execute((id, value_key::key(&target)))?;
    }
    Ok(())
}
