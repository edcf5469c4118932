//! Erasure for `forget`: links, their index rows and their hashes go for good; then the write-ahead
//! log is checkpointed and truncated.
//!
//! # Hashes and signatures
//!
//! A transaction signs the list of the hashes of the links it wrote (`link_hashes`). An erased
//! link must not survive even as its hash (a hash confirms a guess of the link's content), so the
//! hash leaves that list, and the author's signature over the old list can no longer be checked.
//! For every transaction an erasure touches:
//! - a transaction no link refers to any more is deleted, signature and all;
//! - otherwise its list keeps exactly the hashes of its surviving links (hashes of links removed
//!   earlier, which may be earlier values of the erased record, go too), and its `signature`
//!   becomes a *redaction*: the node key signs `tag ‖ author ‖ timestamp ‖ redactor ‖ kept hashes`
//!   ([`redaction_message`]), stored as `REDACTION_MAGIC ‖ redactor did (length-prefixed) ‖
//!   signature`. The node signs only when the old signature (the author's, or an earlier redaction)
//!   verified, so a tampered list is never laundered: a transaction that failed before still fails.
//!
//! [`verify_signature`] accepts either form; a redaction only from this node's own key. The
//! surviving links of a redacted transaction are then attested by the node, no longer by their
//! author's own signature: that is the price of not keeping the erased hash. No tombstone is left
//! beyond the fact that a transaction was redacted.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Duration;

use ed25519_dalek::{Signature, VerifyingKey};
use rusqlite::{Connection, OptionalExtension};

use super::conn::BUSY_TIMEOUT;
use super::queries::{self, pattern_clause};
use super::signing::{HASH_LEN, NodeKey, public_key_from_did, verify_transaction};
use crate::store::{Erased, LinkPattern, Perspective, StoreError, WalState};

/// How the `signature` column of a redacted transaction begins (an author's signature is exactly
/// 64 bytes, a redaction always longer).
const REDACTION_MAGIC: &[u8] = b"shacl-mcp/redacted/v1:";
const REDACTION_TAG: &[u8] = b"shacl-mcp/redaction/v1";
/// While readers hold the log: this many checkpoint attempts, each waiting this long for them.
const CHECKPOINT_TRIES: u32 = 5;
const CHECKPOINT_WAIT: Duration = Duration::from_millis(200);

/// Hashes of the erased links, by the transaction that wrote them.
type ByTransaction = BTreeMap<i64, HashSet<Vec<u8>>>;

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
        let (clause, params) = pattern_clause(&id, &pattern);
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
    key: &NodeKey,
    perspective: &str,
    patterns: &[LinkPattern<'_>],
) -> Result<Erased, StoreError> {
    let id = queries::perspective_id(conn, perspective)?;
    // link id → (transaction, source, hash); a link matching several patterns once.
    let mut doomed: BTreeMap<i64, (i64, String, Vec<u8>)> = BTreeMap::new();
    for pattern in patterns {
        let (clause, params) = pattern_clause(&id, pattern);
        let mut stmt = conn.prepare(&format!("SELECT id, tx, source, hash FROM links WHERE {clause}"))?;
        let mut rows = stmt.query(&*params)?;
        while let Some(row) = rows.next()? {
            doomed.insert(row.get(0)?, (row.get(1)?, row.get(2)?, row.get(3)?));
        }
    }
    let mut erased = Erased::default();
    let mut delete = conn.prepare("DELETE FROM links WHERE id = ?1")?;
    for link in doomed.keys() {
        erased.links += delete.execute([link])? as u64;
    }
    let sources: BTreeSet<&str> = doomed.values().map(|(_, source, _)| source.as_str()).collect();
    for source in sources {
        if refresh_source(conn, id, source)? {
            erased.index_entries += 1;
        }
    }
    let mut by_tx = ByTransaction::new();
    for (tx, _, hash) in doomed.into_values() {
        by_tx.entry(tx).or_default().insert(hash);
    }
    redact(conn, key, &by_tx, &mut erased)?;
    Ok(erased)
}

pub(super) fn erase_perspective(conn: &Connection, key: &NodeKey, perspective: &str) -> Result<Erased, StoreError> {
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

/// Sets or deletes the sources row of `source` from its remaining links; `true` when deleted.
fn refresh_source(conn: &Connection, perspective: i64, source: &str) -> Result<bool, StoreError> {
    let first: Option<(i64, i64)> = conn
        .query_row(
            "SELECT timestamp, id FROM links WHERE perspective = ?1 AND source = ?2 ORDER BY timestamp, id LIMIT 1",
            (perspective, source),
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    Ok(match first {
        Some((ts, seq)) => {
            conn.execute(
                "UPDATE sources SET first_ts = ?3, first_seq = ?4 WHERE perspective = ?1 AND source = ?2",
                (perspective, source, ts, seq),
            )?;
            false
        }
        None => {
            conn.execute(
                "DELETE FROM sources WHERE perspective = ?1 AND source = ?2",
                (perspective, source),
            )? > 0
        }
    })
}

/// Takes the erased hashes out of their transactions' lists, after the links are gone (module
/// docs): deletes the transactions left unreferenced, redacts the others.
fn redact(conn: &Connection, key: &NodeKey, by_tx: &ByTransaction, erased: &mut Erased) -> Result<(), StoreError> {
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
        let row: Option<(String, i64, Vec<u8>, Vec<u8>)> = conn
            .query_row(
                "SELECT author, timestamp, link_hashes, signature FROM transactions WHERE id = ?1",
                [tx],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
            )
            .optional()?;
        let Some((author, timestamp, hashes, signature)) = row else {
            continue;
        };
        let Some(kept_links) = survivors.get(&tx) else {
            for hash in hashes.chunks(HASH_LEN) {
                if gone.contains(hash) {
                    erased.hashes += 1;
                } else {
                    erased.stale_hashes += 1;
                }
            }
            conn.execute("DELETE FROM transactions WHERE id = ?1", [tx])?;
            erased.transactions += 1;
            continue;
        };
        let mut kept = Vec::with_capacity(hashes.len());
        let mut removed = 0;
        for hash in hashes.chunks(HASH_LEN) {
            if kept_links.contains(hash) {
                kept.extend_from_slice(hash);
                continue;
            }
            removed += 1;
            if gone.contains(hash) {
                erased.hashes += 1;
            } else {
                erased.stale_hashes += 1;
            }
        }
        if removed == 0 {
            continue;
        }
        let signature = if verify_signature(key.did(), &author, timestamp, &hashes, &signature).is_ok() {
            redaction(key, &author, timestamp, &kept)
        } else {
            // It failed before and keeps failing: the node vouches for no list it could not check.
            signature
        };
        conn.execute(
            "UPDATE transactions SET link_hashes = ?2, signature = ?3 WHERE id = ?1",
            (tx, &kept, &signature),
        )?;
        erased.transactions_redacted += 1;
    }
    Ok(())
}

/// What a redaction signs: the tag, the author, the timestamp, the redactor, the kept hashes
/// (strings length-prefixed with a big-endian u64, the timestamp a big-endian i64).
fn redaction_message(author: &str, timestamp: i64, redactor: &str, hashes: &[u8]) -> Vec<u8> {
    let mut message = Vec::with_capacity(REDACTION_TAG.len() + author.len() + redactor.len() + 32 + hashes.len());
    let put = |message: &mut Vec<u8>, part: &[u8]| {
        message.extend_from_slice(&(part.len() as u64).to_be_bytes());
        message.extend_from_slice(part);
    };
    put(&mut message, REDACTION_TAG);
    put(&mut message, author.as_bytes());
    message.extend_from_slice(&timestamp.to_be_bytes());
    put(&mut message, redactor.as_bytes());
    message.extend_from_slice(hashes);
    message
}

/// The `signature` column of a transaction redacted by `key`.
fn redaction(key: &NodeKey, author: &str, timestamp: i64, hashes: &[u8]) -> Vec<u8> {
    let redactor = key.did();
    let signature = key.sign(&redaction_message(author, timestamp, redactor, hashes));
    let mut column = Vec::with_capacity(REDACTION_MAGIC.len() + 8 + redactor.len() + signature.len());
    column.extend_from_slice(REDACTION_MAGIC);
    column.extend_from_slice(&(redactor.len() as u64).to_be_bytes());
    column.extend_from_slice(redactor.as_bytes());
    column.extend_from_slice(&signature);
    column
}

/// The redactor and the signature of a redaction; `None` when `column` is not one.
fn parse_redaction(column: &[u8]) -> Option<(&str, &[u8])> {
    let rest = column.strip_prefix(REDACTION_MAGIC)?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let len = usize::try_from(u64::from_be_bytes(*len)).ok()?;
    if rest.len() < len {
        return None;
    }
    let (redactor, signature) = rest.split_at(len);
    Some((std::str::from_utf8(redactor).ok()?, signature))
}

/// Checks a transaction's `signature` column: the author's signature, or a redaction by the node
/// whose DID is `node`.
pub(super) fn verify_signature(
    node: &str,
    author: &str,
    timestamp: i64,
    hashes: &[u8],
    column: &[u8],
) -> Result<(), &'static str> {
    if column.len() == 64 || !column.starts_with(REDACTION_MAGIC) {
        return verify_transaction(author, timestamp, hashes, column);
    }
    let (redactor, signature) = parse_redaction(column).ok_or("its redaction is malformed")?;
    if redactor != node {
        return Err("it was redacted by a key other than this node's");
    }
    let public = public_key_from_did(redactor).ok_or("its redactor is not an Ed25519 did:key")?;
    let key = VerifyingKey::from_bytes(&public).map_err(|_| "its redactor's key is not a valid Ed25519 key")?;
    let signature: [u8; 64] = signature
        .try_into()
        .map_err(|_| "its redaction's signature is not 64 bytes")?;
    key.verify_strict(
        &redaction_message(author, timestamp, redactor, hashes),
        &Signature::from_bytes(&signature),
    )
    .map_err(|_| "its redaction's signature does not verify")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redactions_verify_only_for_their_node_and_their_list() {
        let node = NodeKey::generate().unwrap();
        let other = NodeKey::generate().unwrap();
        let hashes = [9u8; 64];
        let column = redaction(&node, "did:key:author", 7, &hashes);
        assert_eq!(
            verify_signature(node.did(), "did:key:author", 7, &hashes, &column),
            Ok(())
        );
        assert!(verify_signature(node.did(), "did:key:author", 7, &hashes[..32], &column).is_err());
        assert!(verify_signature(node.did(), "did:key:author", 8, &hashes, &column).is_err());
        assert!(verify_signature(node.did(), "did:key:someone", 7, &hashes, &column).is_err());
        assert_eq!(
            verify_signature(other.did(), "did:key:author", 7, &hashes, &column),
            Err("it was redacted by a key other than this node's")
        );
        let forged = redaction(&other, "did:key:author", 7, &hashes);
        assert!(verify_signature(node.did(), "did:key:author", 7, &hashes, &forged).is_err());
        assert!(verify_signature(node.did(), "did:key:author", 7, &hashes, &column[..column.len() - 1]).is_err());
        assert!(verify_signature(node.did(), "did:key:author", 7, &hashes, REDACTION_MAGIC).is_err());
    }
}
