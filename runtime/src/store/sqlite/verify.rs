//! [`LinkStore::verify`](crate::store::LinkStore::verify): every transaction's signature (or the
//! node's redaction of it after `forget`, see `erase`), and every surviving link against the hashes
//! its transaction signed.

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension};

use super::erase::verify_signature;
use super::signing::{HASH_LEN, LinkFields, link_hash};
use crate::store::{StoreError, VerifyReport};

/// `node` is the store's own DID, the only key whose redactions (`forget`) are accepted.
pub(super) fn verify(conn: &Connection, node: &str) -> Result<VerifyReport, StoreError> {
    let mut report = VerifyReport::default();
    verify_transactions(conn, node, &mut report)?;
    verify_links(conn, &mut report)?;
    Ok(report)
}

fn verify_transactions(conn: &Connection, node: &str, report: &mut VerifyReport) -> Result<(), StoreError> {
    let mut stmt =
        conn.prepare("SELECT id, author, timestamp, link_hashes, signature FROM transactions ORDER BY id")?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        report.transactions += 1;
        let id: i64 = row.get(0)?;
        let (author, timestamp): (String, i64) = (row.get(1)?, row.get(2)?);
        let (hashes, signature): (Vec<u8>, Vec<u8>) = (row.get(3)?, row.get(4)?);
        if let Err(problem) = verify_signature(node, &author, timestamp, &hashes, &signature) {
            report.failures.push(format!("transaction {id}: {problem}"));
        } else if hashes.len() % HASH_LEN != 0 {
            report.failures.push(format!(
                "transaction {id}: its link hashes are not a whole number of hashes"
            ));
        }
    }
    Ok(())
}

/// The transaction the links being checked belong to: its author and the hashes it signed.
struct Signed {
    id: i64,
    found: Option<(String, HashSet<Vec<u8>>)>,
}

fn verify_links(conn: &Connection, report: &mut VerifyReport) -> Result<(), StoreError> {
    let mut stmt = conn.prepare(
        "SELECT l.id, p.uuid, l.source, l.predicate, l.target, l.author, l.timestamp, l.local, l.tx, l.hash \
         FROM links l LEFT JOIN perspectives p ON p.id = l.perspective ORDER BY l.tx, l.id",
    )?;
    let mut load = conn.prepare("SELECT author, link_hashes FROM transactions WHERE id = ?1")?;
    let mut current: Option<Signed> = None;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        report.links += 1;
        let seq: i64 = row.get(0)?;
        let perspective: Option<String> = row.get(1)?;
        let (source, predicate, target, author): (String, String, String, String) =
            (row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?);
        let (timestamp, local, tx): (i64, bool, Option<i64>) = (row.get(6)?, row.get(7)?, row.get(8)?);
        let stored: Vec<u8> = row.get(9)?;
        let Some(perspective) = perspective else {
            report
                .failures
                .push(format!("link {seq}: its perspective does not exist"));
            continue;
        };
        let Some(tx) = tx else {
            report
                .failures
                .push(format!("link {seq}: it belongs to no transaction"));
            continue;
        };
        if current.as_ref().is_none_or(|signed| signed.id != tx) {
            let found = load
                .query_row([tx], |row| Ok((row.get::<_, String>(0)?, row.get::<_, Vec<u8>>(1)?)))
                .optional()?
                .map(|(author, hashes)| (author, hashes.chunks(HASH_LEN).map(<[u8]>::to_vec).collect()));
            current = Some(Signed { id: tx, found });
        }
        let Some((tx_author, signed)) = current.as_ref().and_then(|signed| signed.found.as_ref()) else {
            report
                .failures
                .push(format!("link {seq}: its transaction {tx} does not exist"));
            continue;
        };
        let fields = LinkFields {
            perspective: &perspective,
            source: &source,
            predicate: &predicate,
            target: &target,
            author: &author,
            timestamp,
            seq,
            local,
        };
        let hash = link_hash(&fields);
        if author != *tx_author {
            report
                .failures
                .push(format!("link {seq}: its author is not the author of transaction {tx}"));
        } else if hash[..] != stored[..] {
            report
                .failures
                .push(format!("link {seq}: its content does not match its stored hash"));
        } else if !signed.contains(&hash[..]) {
            report
                .failures
                .push(format!("link {seq}: transaction {tx} did not sign it"));
        }
    }
    Ok(())
}
