//! [`LinkStore::verify`](crate::store::LinkStore::verify) over SQLite: reads the rows, which
//! [`crate::store::verify`] judges.

use rusqlite::{Connection, OptionalExtension};

use crate::store::redaction::StoredTransaction;
use crate::store::verify::{LinkChecker, StoredLink, check_transaction};
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
        let tx = StoredTransaction {
            author: row.get(1)?,
            timestamp: row.get(2)?,
            hashes: row.get(3)?,
            signature: row.get(4)?,
        };
        check_transaction(node, row.get(0)?, &tx, report);
    }
    Ok(())
}

fn verify_links(conn: &Connection, report: &mut VerifyReport) -> Result<(), StoreError> {
    let mut stmt = conn.prepare(
        "SELECT l.id, p.uuid, l.source, l.predicate, l.target, l.author, l.timestamp, l.local, l.tx, l.hash \
         FROM links l LEFT JOIN perspectives p ON p.id = l.perspective ORDER BY l.tx, l.id",
    )?;
    let mut load = conn.prepare("SELECT author, link_hashes FROM transactions WHERE id = ?1")?;
    let mut checker = LinkChecker::default();
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let link = StoredLink {
            seq: row.get(0)?,
            perspective: row.get(1)?,
            source: row.get(2)?,
            predicate: row.get(3)?,
            target: row.get(4)?,
            author: row.get(5)?,
            timestamp: row.get(6)?,
            local: row.get(7)?,
            tx: row.get(8)?,
            hash: row.get(9)?,
        };
        checker.check(&link, report, |tx| {
            Ok(load.query_row([tx], |row| Ok((row.get(0)?, row.get(1)?))).optional()?)
        })?;
    }
    Ok(())
}
