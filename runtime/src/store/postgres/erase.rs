//! Erasure for `forget`: links, their index rows and their hashes go for good.
//!
//! An erased link's hash leaves the signed list of its transaction too: see
//! [`redaction`](crate::store::redaction) for how a transaction is then redacted or deleted.
//! Two nodes may erase at once in different perspectives whose links share a transaction: the
//! transactions touched are locked (`FOR UPDATE`, in id order) before their surviving links are
//! read, so each erasure sees the other's deletions once it has the rows, and no erased hash is
//! written back by a list read before it went.
//!
//! PostgreSQL has no secure delete: erased rows stay in the tables' free space until vacuum
//! reuses it, and in the server's write-ahead log, archives, replicas and backups as the
//! operator keeps them (`WalState::ServerManaged`).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::client::{PgClient, get};
use super::queries::with_perspective;
use super::superseded;
use crate::store::redaction::{self, ByTransaction, Redacted, StoredTransaction};
use crate::store::sql::{self, POSTGRES};
use crate::store::{AuthorKey, Erased, LinkPattern, StoreError};

pub(super) fn erase_links(
    conn: &PgClient,
    key: &AuthorKey,
    id: i64,
    patterns: &[LinkPattern<'_>],
) -> Result<Erased, StoreError> {
    let mut erased = Erased::default();
    let mut by_tx = ByTransaction::new();
    let mut pairs = BTreeSet::new();
    // A link matching several patterns is deleted (and counted) by the first.
    for pattern in patterns {
        let (clause, values) = sql::pattern_clause(pattern, POSTGRES);
        let rows = conn.query(
            &format!("DELETE FROM links WHERE {clause} RETURNING tx, source, hash, predicate"),
            &with_perspective(&id, &values),
        )?;
        for row in &rows {
            by_tx.entry(get(row, 0)?).or_default().insert(get(row, 2)?);
            pairs.insert((get::<String>(row, 1)?, get::<String>(row, 3)?));
        }
        erased.links += rows.len() as u64;
    }
    erased.index_entries = superseded::after_removal(conn, id, &pairs)?.1;
    redact(conn, key, &by_tx, &mut erased)?;
    Ok(erased)
}

/// Erases the perspective of row id `id`, its row included.
pub(super) fn erase_perspective(conn: &PgClient, key: &AuthorKey, id: i64) -> Result<Erased, StoreError> {
    let mut by_tx = ByTransaction::new();
    let links = conn.query("DELETE FROM links WHERE perspective = $1 RETURNING tx, hash", &[&id])?;
    for row in &links {
        by_tx.entry(get(row, 0)?).or_default().insert(get(row, 1)?);
    }
    let count = |sql: &str| conn.execute(sql, &[&id]);
    let mut erased = Erased {
        links: links.len() as u64,
        index_entries: count("DELETE FROM sources WHERE perspective = $1")?,
        models: count("DELETE FROM models WHERE perspective = $1")?,
        perspectives: count("DELETE FROM perspectives WHERE id = $1")?,
        ..Erased::default()
    };
    redact(conn, key, &by_tx, &mut erased)?;
    Ok(erased)
}

/// Takes the erased hashes out of their transactions' lists, after the links are gone (module
/// docs): deletes the transactions left unreferenced, redacts the others.
fn redact(conn: &PgClient, key: &AuthorKey, by_tx: &ByTransaction, erased: &mut Erased) -> Result<(), StoreError> {
    if by_tx.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = by_tx.keys().copied().collect();
    // Rows another erasure deleted meanwhile are skipped; the others come back as last committed.
    let rows = conn.query(
        "SELECT id, author, timestamp, link_hashes, signature FROM transactions \
         WHERE id = ANY($1) ORDER BY id FOR UPDATE",
        &[&ids],
    )?;
    // Read after the locks: a fresh snapshot. `links` has no index on `tx`: one scan.
    let mut survivors: BTreeMap<i64, HashSet<Vec<u8>>> = BTreeMap::new();
    for row in conn.query("SELECT tx, hash FROM links WHERE tx = ANY($1)", &[&ids])? {
        survivors.entry(get(&row, 0)?).or_default().insert(get(&row, 1)?);
    }
    for row in &rows {
        let tx: i64 = get(row, 0)?;
        let Some(gone) = by_tx.get(&tx) else { continue };
        let stored = StoredTransaction {
            author: get(row, 1)?,
            timestamp: get(row, 2)?,
            hashes: get(row, 3)?,
            signature: get(row, 4)?,
        };
        match redaction::redact(key, stored, gone, survivors.get(&tx), erased) {
            Redacted::Delete => {
                conn.execute("DELETE FROM transactions WHERE id = $1", &[&tx])?;
            }
            Redacted::Unchanged => {}
            Redacted::Rewrite { hashes, signature } => {
                conn.execute(
                    "UPDATE transactions SET link_hashes = $2, signature = $3 WHERE id = $1",
                    &[&tx, &hashes, &signature],
                )?;
            }
        }
    }
    Ok(())
}
