//! The change log's SQL ([`crate::store::changes`]): reading a perspective's rows, and the
//! rows a commit writes.

use rusqlite::{Connection, OptionalExtension, Row};

use crate::store::changes::{Pending, decode_labels};
use crate::store::{Change, StoreError};

/// The change log (schema version 4). `id` is the position: AUTOINCREMENT, so a position is
/// never drawn twice even after the last rows were erased.
pub(super) const SCHEMA: &str = "
CREATE TABLE changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    perspective INTEGER NOT NULL REFERENCES perspectives(id),
    source TEXT NOT NULL,
    author TEXT NOT NULL,
    at INTEGER NOT NULL,
    labels TEXT NOT NULL,
    labels_before TEXT
);
CREATE INDEX changes_perspective ON changes(perspective, id);
CREATE INDEX changes_source ON changes(perspective, source, id);
";

fn change_row(row: &Row<'_>) -> rusqlite::Result<Change> {
    Ok(Change {
        position: row.get(0)?,
        source: row.get(1)?,
        author: row.get(2)?,
        at: row.get(3)?,
        labels: decode_labels(&row.get::<_, String>(4)?),
        labels_before: row.get::<_, Option<String>>(5)?.as_deref().map(decode_labels),
    })
}

pub(super) fn changes(conn: &Connection, perspective: &str, after: i64, limit: u64) -> Result<Vec<Change>, StoreError> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare_cached(
        "SELECT c.id, c.source, c.author, c.at, c.labels, c.labels_before FROM changes c \
         WHERE c.perspective = (SELECT id FROM perspectives WHERE uuid = ?1) AND c.id > ?2 ORDER BY c.id LIMIT ?3",
    )?;
    let rows = stmt.query_map((perspective, after, limit), change_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn change_head(conn: &Connection, perspective: &str) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT MAX(id) FROM changes WHERE perspective = (SELECT id FROM perspectives WHERE uuid = ?1)",
        )?
        .query_row([perspective], |row| row.get::<_, Option<i64>>(0))
        .optional()?
        .flatten()
        .unwrap_or(0))
}

pub(super) fn change_heads(conn: &Connection) -> Result<Vec<(String, i64)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT p.uuid, COALESCE((SELECT MAX(c.id) FROM changes c WHERE c.perspective = p.id), 0) \
         FROM perspectives p ORDER BY p.id",
    )?;
    let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Deletes every row of the forgotten sources, then inserts the commit's rows; `tx` is its
/// `transactions` row (when it wrote links), whose first link of a source makes that source new.
/// `perspective_id` gives a perspective's row id (every perspective of a row exists: an erased
/// one leaves no touched source behind).
///
/// Each row is a one-row `INSERT … VALUES`, its perspective's id looked up beforehand: as an
/// `INSERT … SELECT` SQLite opened a statement journal for it (a multi-row write that may abort
/// midway), whose allocation and release were an eighth of a create's server time.
pub(super) fn record(
    conn: &Connection,
    pending: &Pending,
    (author, at): (&str, i64),
    tx: Option<i64>,
    mut perspective_id: impl FnMut(&str) -> Result<i64, StoreError>,
) -> Result<(), StoreError> {
    for (perspective, source) in &pending.forgotten {
        conn.prepare_cached(
            "DELETE FROM changes WHERE perspective = (SELECT id FROM perspectives WHERE uuid = ?1) AND source = ?2",
        )?
        .execute((perspective, source))?;
    }
    for row in &pending.rows {
        let id = perspective_id(&row.perspective)?;
        conn.prepare_cached(
            "INSERT INTO changes (perspective, source, author, at, labels, labels_before) \
             VALUES (?1, ?2, ?3, ?4, ?5, COALESCE(\
                 (SELECT c.labels FROM changes c WHERE c.perspective = ?1 AND c.source = ?2 ORDER BY c.id DESC LIMIT 1), \
                 CASE WHEN EXISTS (SELECT 1 FROM sources s JOIN links l ON l.id = s.first_seq \
                     WHERE s.perspective = ?1 AND s.source = ?2 AND l.tx = ?6) THEN '[]' END))",
        )?
        .execute((id, &row.source, author, at, &row.labels, tx))?;
    }
    Ok(())
}

/// Before a perspective is erased: its whole log.
pub(super) fn erase_perspective(conn: &Connection, perspective: &str) -> Result<(), StoreError> {
    conn.execute(
        "DELETE FROM changes WHERE perspective = (SELECT id FROM perspectives WHERE uuid = ?1)",
        [perspective],
    )?;
    Ok(())
}
