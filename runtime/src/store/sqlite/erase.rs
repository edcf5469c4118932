//! Erasure for `forget`: links, their index rows and their hashes go for good; then the write-ahead
//! log is checkpointed and truncated.
//!
//! An erased link's hash leaves the signed list of its transaction too: see
//! [`redaction`](crate::store::redaction) for how a transaction is then redacted or deleted.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension};

use super::conn::BUSY_TIMEOUT;
use super::queries::{self, pattern_clause, with_perspective};
use super::{order_key, superseded};
use crate::store::redaction::{self, ByTransaction, Redacted, StoredTransaction};
use crate::store::{AuthorKey, Erased, LinkPattern, Perspective, StoreError, WalState};

/// While readers hold the log: this many checkpoint attempts, each waiting this long for them.
const CHECKPOINT_TRIES: u32 = 5;
const CHECKPOINT_WAIT: Duration = Duration::from_millis(200);

pub(super) fn count_links_elsewhere(
    conn: &Connection,
    except: &str,
    pattern: LinkPattern<'_>,
) -> Result<Vec<(Perspective, u64)>, StoreError> {
    let others: Vec<(i64, Perspective)> = {
        let mut stmt =
            conn.prepare("SELECT id, uuid, name, owner, neighbourhood FROM perspectives WHERE uuid != ?1 ORDER BY id")?;
        let rows = stmt.query_map([except], |row| {
            Ok((
                row.get(0)?,
                Perspective {
                    uuid: row.get(1)?,
                    name: row.get(2)?,
                    owner: row.get(3)?,
                    neighbourhood: row.get(4)?,
                },
            ))
        })?;
        rows.collect::<Result<_, _>>()?
    };
    let mut found = Vec::new();
    for (id, perspective) in others {
        let (clause, values) = pattern_clause(&pattern);
        let params = with_perspective(&id, &values);
        let n: i64 = conn.query_row(&format!("SELECT COUNT(*) FROM links WHERE {clause}"), &*params, |row| {
            row.get(0)
        })?;
        if n > 0 {
            found.push((perspective, n as u64));
        }
    }
    Ok(found)
}

pub(super) fn erase_links(
    conn: &Connection,
    key: &AuthorKey,
    perspective: &str,
    patterns: &[LinkPattern<'_>],
) -> Result<Erased, StoreError> {
    let id = queries::perspective_id(conn, perspective)?;
    // link id → (transaction, source, hash, predicate); a link matching several patterns once.
    let mut doomed: BTreeMap<i64, (i64, String, Vec<u8>, String)> = BTreeMap::new();
    for pattern in patterns {
        let (clause, values) = pattern_clause(pattern);
        let params = with_perspective(&id, &values);
        let mut stmt = conn.prepare(&format!(
            "SELECT id, tx, source, hash, predicate FROM links WHERE {clause}"
        ))?;
        let mut rows = stmt.query(&*params)?;
        while let Some(row) = rows.next()? {
            doomed.insert(row.get(0)?, (row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?));
        }
    }
    let mut erased = Erased::default();
    let mut delete = conn.prepare("DELETE FROM links WHERE id = ?1")?;
    for link in doomed.keys() {
        erased.links += delete.execute([link])? as u64;
    }
    let pairs: BTreeSet<(&str, &str)> = doomed
        .values()
        .map(|(_, source, _, predicate)| (source.as_str(), predicate.as_str()))
        .collect();
    for pair in pairs {
        superseded::after_removal(conn, id, pair)?;
    }
    let sources: BTreeSet<&str> = doomed.values().map(|(_, source, _, _)| source.as_str()).collect();
    for source in sources {
        if order_key::refresh(conn, id, source)? {
            erased.index_entries += 1;
        }
    }
    let mut by_tx = ByTransaction::new();
    for (tx, _, hash, _) in doomed.into_values() {
        by_tx.entry(tx).or_default().insert(hash);
    }
    redact(conn, key, &by_tx, &mut erased)?;
    Ok(erased)
}

pub(super) fn erase_perspective(conn: &Connection, key: &AuthorKey, perspective: &str) -> Result<Erased, StoreError> {
    let id = queries::perspective_id(conn, perspective)?;
    let mut by_tx = ByTransaction::new();
    {
        let mut stmt = conn.prepare("SELECT tx, hash FROM links WHERE perspective = ?1")?;
        let mut rows = stmt.query([id])?;
        while let Some(row) = rows.next()? {
            by_tx.entry(row.get(0)?).or_default().insert(row.get(1)?);
        }
    }
    let count = |sql: &str| -> Result<u64, StoreError> { Ok(conn.execute(sql, [id])? as u64) };
    let mut erased = Erased {
        links: count("DELETE FROM links WHERE perspective = ?1")?,
        index_entries: count("DELETE FROM sources WHERE perspective = ?1")?,
        models: count("DELETE FROM models WHERE perspective = ?1")?,
        perspectives: count("DELETE FROM perspectives WHERE id = ?1")?,
        ..Erased::default()
    };
    redact(conn, key, &by_tx, &mut erased)?;
    Ok(erased)
}

/// Takes the erased hashes out of their transactions' lists, after the links are gone (module
/// docs): deletes the transactions left unreferenced, redacts the others.
fn redact(conn: &Connection, key: &AuthorKey, by_tx: &ByTransaction, erased: &mut Erased) -> Result<(), StoreError> {
    if by_tx.is_empty() {
        return Ok(());
    }
    // The surviving links of the transactions touched. `links` has no index on `tx`: one scan.
    let mut survivors: BTreeMap<i64, HashSet<Vec<u8>>> = BTreeMap::new();
    {
        let mut stmt = conn.prepare("SELECT tx, hash FROM links")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let tx: i64 = row.get(0)?;
            if by_tx.contains_key(&tx) {
                survivors.entry(tx).or_default().insert(row.get(1)?);
            }
        }
    }
    for (&tx, gone) in by_tx {
        let row = conn
            .query_row(
                "SELECT author, timestamp, link_hashes, signature FROM transactions WHERE id = ?1",
                [tx],
                |row| {
                    Ok(StoredTransaction {
                        author: row.get(0)?,
                        timestamp: row.get(1)?,
                        hashes: row.get(2)?,
                        signature: row.get(3)?,
                    })
                },
            )
            .optional()?;
        let Some(row) = row else { continue };
        match redaction::redact(key, row, gone, survivors.get(&tx), erased) {
            Redacted::Delete => {
                conn.execute("DELETE FROM transactions WHERE id = ?1", [tx])?;
            }
            Redacted::Unchanged => {}
            Redacted::Rewrite { hashes, signature } => {
                conn.execute(
                    "UPDATE transactions SET link_hashes = ?2, signature = ?3 WHERE id = ?1",
                    (tx, &hashes, &signature),
                )?;
            }
        }
    }
    Ok(())
}

/// Checkpoints the write-ahead log into the database and truncates it to zero bytes, retrying
/// briefly while readers hold earlier pages of it. Runs on the writer, after the commit.
pub(super) fn truncate_wal(conn: &Connection) -> WalState {
    match conn.query_row("PRAGMA journal_mode", [], |row| row.get::<_, String>(0)) {
        Ok(mode) if mode.eq_ignore_ascii_case("wal") => {}
        Ok(_) => return WalState::NoWal,
        Err(e) => return WalState::NotTruncated { reason: e.to_string() },
    }
    let mut reason = String::new();
    let _ = conn.busy_timeout(CHECKPOINT_WAIT);
    for _ in 0..CHECKPOINT_TRIES {
        match conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get::<_, i64>(0)) {
            Ok(0) => {
                reason.clear();
                break;
            }
            Ok(_) => reason = "readers kept the checkpoint from finishing".to_string(),
            Err(e) => reason = e.to_string(),
        }
    }
    let _ = conn.busy_timeout(BUSY_TIMEOUT);
    if reason.is_empty() {
        WalState::Truncated
    } else {
        WalState::NotTruncated { reason }
    }
}
