//! The schema, its version in `meta` and the migrations that reach it; the node key; the names
//! and lock keys derived from the schema a store lives in.

use sha2::{Digest, Sha256};

use super::client::{PgClient, get};
use crate::store::{AuthorKey, StoreError};
use crate::value_key;

/// The schema version this release writes and reads (the PostgreSQL store's own numbering:
/// versions 1 and 2 hold the tables of SQLite's 1 and 2, version 3 adds `rate_events`, version 4
/// SQLite's 3: `links.value_key`, version 5 SQLite's 4: the change log, version 6 SQLite's 5: the
/// keys of language-tagged strings, version 7 SQLite's 7: `links.superseded`).
pub const SCHEMA_VERSION: i64 = 7;

/// `MIGRATIONS[n]` takes a database from version `n` to `n + 1`. Append only: never edit one
/// that has shipped.
const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, super::changes::SCHEMA, V6, V7];

/// The tables of SQLite's version 1. `timestamp` and `seq` are microseconds and sequence numbers
/// (BIGINT). A btree entry holds at most 2704 bytes: `target` may be a long literal, so the
/// indexes hold `hashtextextended(target, 0)` (lookups match that, then the text; see
/// `sql::POSTGRES`), while sources and predicates, IRIs, are indexed as they are.
const V1: &str = "
CREATE TABLE perspectives (
    id BIGSERIAL PRIMARY KEY,
    uuid TEXT UNIQUE NOT NULL,
    name TEXT NOT NULL,
    owner TEXT NOT NULL,
    neighbourhood TEXT
);
CREATE TABLE transactions (
    id BIGSERIAL PRIMARY KEY,
    author TEXT NOT NULL,
    timestamp BIGINT NOT NULL,
    link_hashes BYTEA NOT NULL,
    signature BYTEA NOT NULL
);
-- id is the link's seq, drawn from links_id_seq before the insert (the hash covers it): never
-- reused, unique across every node sharing the database.
CREATE TABLE links (
    id BIGSERIAL PRIMARY KEY,
    perspective BIGINT NOT NULL REFERENCES perspectives(id),
    source TEXT NOT NULL,
    predicate TEXT NOT NULL,
    target TEXT NOT NULL,
    author TEXT NOT NULL,
    timestamp BIGINT NOT NULL,
    local BOOLEAN NOT NULL,
    tx BIGINT NOT NULL REFERENCES transactions(id),
    hash BYTEA NOT NULL
);
CREATE INDEX links_source_predicate ON links(perspective, source, predicate, hashtextextended(target, 0));
CREATE INDEX links_source_time ON links(perspective, source, timestamp);
-- With source: covering for the (predicate, target) lookups of sources().
CREATE INDEX links_predicate_target ON links(perspective, predicate, hashtextextended(target, 0), source);
CREATE INDEX links_target ON links(perspective, hashtextextended(target, 0));
-- Every source with an outgoing link and its first link (timestamp, seq).
CREATE TABLE sources (
    perspective BIGINT NOT NULL REFERENCES perspectives(id),
    source TEXT NOT NULL,
    first_ts BIGINT NOT NULL,
    first_seq BIGINT NOT NULL,
    PRIMARY KEY (perspective, source)
);
CREATE INDEX sources_first ON sources(perspective, first_ts, first_seq);
CREATE TABLE models (
    perspective BIGINT NOT NULL REFERENCES perspectives(id),
    class_name TEXT NOT NULL,
    shacl_json TEXT NOT NULL,
    registered BIGINT NOT NULL,
    PRIMARY KEY (perspective, class_name)
);
";

/// Multi-user mode, as SQLite's version 2: accounts and the pending codes of email
/// verification. A user's secret key is kept unencrypted at rest, as the node key is in `meta`.
/// Emails are stored normalised; `code_mac` is an HMAC of a code, never the code.
const V2: &str = "
CREATE TABLE users (
    id BIGSERIAL PRIMARY KEY,
    did TEXT UNIQUE NOT NULL,
    email TEXT UNIQUE NOT NULL,
    password_hash TEXT NOT NULL,
    secret_key BYTEA NOT NULL,
    verified BOOLEAN NOT NULL,
    created BIGINT NOT NULL
);
CREATE TABLE email_codes (
    email TEXT NOT NULL,
    purpose TEXT NOT NULL,
    code_mac BYTEA NOT NULL,
    expires BIGINT NOT NULL,
    attempts_left BIGINT NOT NULL,
    PRIMARY KEY (email, purpose)
);
";

/// Rate limiting that every node sharing the database sees: one row per event.
const V3: &str = "
CREATE TABLE rate_events (
    key TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX rate_events_key_at ON rate_events(key, at);
";

/// The value key of every link ([`crate::value_key`]), as SQLite's version 3. `COLLATE "C"`:
/// keys compare byte by byte, as Rust and SQLite compare them, so ranges over keys are the
/// same on both stores. Links written before get their keys from [`backfill_value_keys`].
const V4: &str = "
ALTER TABLE links ADD COLUMN value_key TEXT COLLATE \"C\";
CREATE INDEX links_predicate_key ON links(perspective, predicate, value_key, source);
";

/// The version whose migration adds `links.value_key`.
const VALUE_KEY_VERSION: usize = 4;

/// Version 6: `literal:lang:<tag>:` targets decode as language-tagged strings, whose key is
/// their text; the keys of those written before are made again by the backfill (which fills in
/// every key that is NULL).
const V6: &str = "
UPDATE links SET value_key = NULL WHERE target LIKE 'literal:lang:%' OR target LIKE 'literal://lang:%';
";

/// Version 7: `links.superseded`, 1 when a later link (by timestamp, then seq) of the same source
/// and predicate exists ([`super::superseded`] keeps it), and in the index a filter on a value
/// reads, which then probes only a superseded link for a later one. Adding a column with a
/// constant default rewrites nothing; only superseded links are updated.
const V7: &str = "
ALTER TABLE links ADD COLUMN superseded SMALLINT NOT NULL DEFAULT 0;
UPDATE links SET superseded = 1 WHERE EXISTS (SELECT 1 FROM links AS later \
    WHERE later.perspective = links.perspective AND later.source = links.source \
    AND later.predicate = links.predicate AND (later.timestamp, later.id) > (links.timestamp, links.id));
DROP INDEX links_predicate_key;
CREATE INDEX links_predicate_key ON links(perspective, predicate, value_key, source, superseded);
";

/// The version whose migration makes the keys of language-tagged strings again.
const LANG_KEY_VERSION: usize = 6;

/// Links whose keys one statement of the backfill fills in.
const BACKFILL_BATCH: i64 = 10_000;

const VERSION_KEY: &str = "schema_version";
const NODE_KEY: &str = "node_key";

/// The schema a store lives in, and what is named after it: the channel of model changes and
/// the keys of advisory locks (which PostgreSQL keeps per database, not per schema).
#[derive(Clone, Debug)]
pub(super) struct Scope {
    pub schema: String,
    /// `LISTEN`/`pg_notify` channel: `shacl_mcp_models_` and a hash of the schema (safe to
    /// splice, and never longer than an identifier may be).
    pub channel: String,
    /// The channel of change-log growth (perspective uuids): `shacl_mcp_changes_` and the same hash.
    pub changes_channel: String,
}

impl Scope {
    pub fn new(schema: &str) -> Self {
        let digest = Sha256::digest(schema.as_bytes());
        let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        Scope {
            schema: schema.to_string(),
            channel: format!("shacl_mcp_models_{hex}"),
            changes_channel: format!("shacl_mcp_changes_{hex}"),
        }
    }

    /// The advisory lock that serialises the writers of one perspective.
    pub fn perspective_lock(&self, uuid: &str) -> i64 {
        self.lock_key(b"perspective", uuid)
    }

    /// The advisory lock held while the schema is created or migrated.
    fn migration_lock(&self) -> i64 {
        self.lock_key(b"migration", "")
    }

    /// The first 8 bytes of SHA-256 over the tag, the schema and `name` (length-prefixed).
    fn lock_key(&self, tag: &[u8], name: &str) -> i64 {
        let mut hasher = Sha256::new();
        for part in [
            b"shacl-mcp/lock/v1".as_slice(),
            tag,
            self.schema.as_bytes(),
            name.as_bytes(),
        ] {
            hasher.update((part.len() as u64).to_be_bytes());
            hasher.update(part);
        }
        let digest = hasher.finalize();
        let mut key = [0u8; 8];
        key.copy_from_slice(&digest[..8]);
        i64::from_be_bytes(key)
    }
}

/// A schema name given to `connect_in_schema`: ASCII letters, digits and `_`, not starting with a
/// digit, at most 63 bytes. It is spliced into `CREATE SCHEMA` (quoted), so nothing else passes.
pub(super) fn check_schema_name(schema: &str) -> Result<(), StoreError> {
    let good = !schema.is_empty()
        && schema.len() <= 63
        && !schema.starts_with(|c: char| c.is_ascii_digit())
        && schema.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if good {
        Ok(())
    } else {
        Err(StoreError::Database(format!(
            "{schema:?} is not a schema name this store accepts (ASCII letters, digits and _, \
             not starting with a digit, at most 63 bytes)"
        )))
    }
}

/// Brings the schema to [`SCHEMA_VERSION`] in one transaction, under an advisory lock so that
/// nodes starting together migrate once, and returns the node key: generated by the first node,
/// read by the others. With `create`, creates the schema first.
pub(super) fn migrate(conn: &PgClient, scope: &Scope, create: bool) -> Result<AuthorKey, StoreError> {
    conn.begin("BEGIN")?;
    conn.execute("SELECT pg_advisory_xact_lock($1)", &[&scope.migration_lock()])?;
    if create {
        // check_schema_name let only [A-Za-z0-9_] through.
        conn.batch(&format!("CREATE SCHEMA IF NOT EXISTS \"{}\"", scope.schema))?;
    }
    conn.batch("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BYTEA NOT NULL)")?;
    let found = match read_meta(conn, VERSION_KEY)? {
        None => 0,
        Some(value) => std::str::from_utf8(&value)
            .ok()
            .and_then(|text| text.parse::<i64>().ok())
            .ok_or_else(|| StoreError::Database("the schema version in meta is not a number".into()))?,
    };
    if found > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew {
            found,
            supported: SCHEMA_VERSION,
        });
    }
    let from = usize::try_from(found).map_err(|_| StoreError::Database(format!("bad schema version {found}")))?;
    for (version, migration) in MIGRATIONS.iter().enumerate().skip(from) {
        conn.batch(migration)?;
        if version + 1 == VALUE_KEY_VERSION || version + 1 == LANG_KEY_VERSION {
            backfill_value_keys(conn)?;
        }
    }
    if from < MIGRATIONS.len() {
        write_meta(conn, VERSION_KEY, SCHEMA_VERSION.to_string().as_bytes())?;
    }
    let key = match read_meta(conn, NODE_KEY)? {
        Some(secret) => AuthorKey::from_stored(&secret, "the node key")?,
        None => {
            let key = AuthorKey::generate()
                .map_err(|e| StoreError::Database(format!("no randomness for the node key: {e}")))?;
            write_meta(conn, NODE_KEY, &key.secret())?;
            key
        }
    };
    conn.batch("COMMIT")?;
    Ok(key)
}

/// Computes the value key of every link that has none (the links of a database from before
/// [`VALUE_KEY_VERSION`]), a batch at a time in id order.
fn backfill_value_keys(conn: &PgClient) -> Result<(), StoreError> {
    let mut after = i64::MIN;
    loop {
        let rows = conn.query(
            "SELECT id, target FROM links WHERE value_key IS NULL AND id > $1 ORDER BY id LIMIT $2",
            &[&after, &BACKFILL_BATCH],
        )?;
        let Some(last) = rows.last() else {
            return Ok(());
        };
        after = get(last, 0)?;
        let mut ids: Vec<i64> = Vec::with_capacity(rows.len());
        let mut keys: Vec<String> = Vec::with_capacity(rows.len());
        for row in &rows {
            ids.push(get(row, 0)?);
            keys.push(value_key::key(&get::<String>(row, 1)?));
        }
        conn.execute(
            "UPDATE links SET value_key = k.key FROM (SELECT unnest($1::bigint[]) AS id, unnest($2::text[]) AS key) AS k \
             WHERE links.id = k.id",
            &[&ids, &keys],
        )?;
    }
}

fn read_meta(conn: &PgClient, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
    conn.query_opt("SELECT value FROM meta WHERE key = $1", &[&key])?
        .map(|row| get(&row, 0))
        .transpose()
}

fn write_meta(conn: &PgClient, key: &str, value: &[u8]) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&key, &value],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_are_plain_identifiers() {
        for good in ["public", "shacl_mcp_test_1", "A_b9", &"x".repeat(63)] {
            assert!(check_schema_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "1abc",
            "a-b",
            "a\"b",
            "a b",
            "ä",
            &"x".repeat(64),
            "x; DROP TABLE links",
        ] {
            assert!(check_schema_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn scopes_name_their_channel_and_locks_apart() {
        let (a, b) = (Scope::new("a"), Scope::new("b"));
        assert_ne!(a.channel, b.channel);
        assert!(a.channel.len() <= 63 && a.channel.starts_with("shacl_mcp_models_"));
        assert_ne!(a.perspective_lock("p"), b.perspective_lock("p"));
        assert_ne!(a.perspective_lock("p"), a.perspective_lock("q"));
        assert_ne!(a.perspective_lock(""), a.migration_lock());
        assert_eq!(a.perspective_lock("p"), Scope::new("a").perspective_lock("p"));
    }
}
