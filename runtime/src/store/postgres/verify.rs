//! [`LinkStore::verify`](crate::store::LinkStore::verify) over PostgreSQL: reads the rows of one
//! snapshot through cursors, a page at a time, and [`crate::store::verify`] judges them.

use tokio_postgres::Row;

use super::client::{PgClient, get};
use crate::store::redaction::StoredTransaction;
use crate::store::verify::{LinkChecker, StoredLink, check_transaction};
use crate::store::{StoreError, VerifyReport};

/// Rows fetched from a cursor at a time.
const PAGE: usize = 1000;

/// Runs inside a read transaction (cursors live until its end). `node` is the store's own DID,
/// the only key whose redactions (`forget`) are accepted.
pub(super) fn verify(conn: &PgClient, node: &str) -> Result<VerifyReport, StoreError> {
    let mut report = VerifyReport::default();
    conn.batch(
        "DECLARE verify_transactions NO SCROLL CURSOR FOR \
         SELECT id, author, timestamp, link_hashes, signature FROM transactions ORDER BY id",
    )?;
    for_each_row(conn, "verify_transactions", |row| {
        let tx = StoredTransaction {
            author: get(row, 1)?,
            timestamp: get(row, 2)?,
            hashes: get(row, 3)?,
            signature: get(row, 4)?,
        };
        check_transaction(node, get(row, 0)?, &tx, &mut report);
        Ok(())
    })?;
    conn.batch(
        "DECLARE verify_links NO SCROLL CURSOR FOR \
         SELECT l.id, p.uuid, l.source, l.predicate, l.target, l.author, l.timestamp, l.local, l.tx, l.hash \
         FROM links l LEFT JOIN perspectives p ON p.id = l.perspective ORDER BY l.tx, l.id",
    )?;
    let mut checker = LinkChecker::default();
    for_each_row(conn, "verify_links", |row| {
        let link = StoredLink {
            seq: get(row, 0)?,
            perspective: get(row, 1)?,
            source: get(row, 2)?,
            predicate: get(row, 3)?,
            target: get(row, 4)?,
            author: get(row, 5)?,
            timestamp: get(row, 6)?,
            local: get(row, 7)?,
            tx: get(row, 8)?,
            hash: get(row, 9)?,
        };
        checker.check(&link, &mut report, |tx| {
            conn.query_opt("SELECT author, link_hashes FROM transactions WHERE id = $1", &[&tx])?
                .map(|row| Ok((get(&row, 0)?, get(&row, 1)?)))
                .transpose()
        })
    })?;
    Ok(report)
}

/// Fetches the rows of `cursor` page by page until it is exhausted.
fn for_each_row(
    conn: &PgClient,
    cursor: &str,
    mut each: impl FnMut(&Row) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let fetch = format!("FETCH {PAGE} FROM {cursor}");
    loop {
        let rows = conn.query(&fetch, &[])?;
        for row in &rows {
            each(row)?;
        }
        if rows.len() < PAGE {
            return Ok(());
        }
    }
}
