//! The change log's SQL ([`crate::store::changes`]): reading a perspective's rows, and the
//! rows a commit writes, announced to every node by `NOTIFY` on the scope's changes channel.

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::client::{PgClient, get};
use crate::store::changes::{Pending, decode_labels};
use crate::store::{Change, StoreError};

/// The change log (schema version 5). `id` is the position, drawn at commit under the
/// perspective's advisory lock (see `crate::store::changes` for why that orders it).
pub(super) const SCHEMA: &str = "
CREATE TABLE changes (
    id BIGSERIAL PRIMARY KEY,
    perspective BIGINT NOT NULL REFERENCES perspectives(id),
    source TEXT NOT NULL,
    author TEXT NOT NULL,
    at BIGINT NOT NULL,
    labels TEXT NOT NULL,
    labels_before TEXT
);
CREATE INDEX changes_perspective ON changes(perspective, id);
CREATE INDEX changes_source ON changes(perspective, source, id);
";

fn change_row(row: &Row) -> Result<Change, StoreError> {
    Ok(Change {
        position: get(row, 0)?,
        source: get(row, 1)?,
        author: get(row, 2)?,
        at: get(row, 3)?,
        labels: decode_labels(&get::<String>(row, 4)?),
        labels_before: get::<Option<String>>(row, 5)?.as_deref().map(decode_labels),
    })
}

pub(super) fn changes(conn: &PgClient, perspective: &str, after: i64, limit: u64) -> Result<Vec<Change>, StoreError> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    conn.query(
        "SELECT c.id, c.source, c.author, c.at, c.labels, c.labels_before FROM changes c \
         WHERE c.perspective = (SELECT id FROM perspectives WHERE uuid = $1) AND c.id > $2 ORDER BY c.id LIMIT $3",
        &[&perspective, &after, &limit],
    )?
    .iter()
    .map(change_row)
    .collect()
}

pub(super) fn change_head(conn: &PgClient, perspective: &str) -> Result<i64, StoreError> {
    let row = conn.query_one(
        "SELECT COALESCE(MAX(id), 0) FROM changes WHERE perspective = (SELECT id FROM perspectives WHERE uuid = $1)",
        &[&perspective],
    )?;
    get(&row, 0)
}

pub(super) fn change_heads(conn: &PgClient) -> Result<Vec<(String, i64)>, StoreError> {
    conn.query(
        "SELECT p.uuid, COALESCE((SELECT MAX(c.id) FROM changes c WHERE c.perspective = p.id), 0) \
         FROM perspectives p ORDER BY p.id",
        &[],
    )?
    .iter()
    .map(|row| Ok((get(row, 0)?, get(row, 1)?)))
    .collect()
}

/// The commit of a transaction: deletes every row of the forgotten sources, inserts the commit's
/// rows in one statement (`tx` is its `transactions` row when it wrote links, whose first link of
/// a source makes that source new), announces `perspectives` on `channel` (delivered on commit
/// only), runs `signature` (the `UPDATE` of the `transactions` row, when it wrote links) and
/// `COMMIT`: all in one round trip. Should a statement fail, PostgreSQL rolls back instead of
/// committing and its error is returned.
pub(super) fn record_and_commit(
    conn: &PgClient,
    pending: &Pending,
    (author, at, tx): (&str, i64, Option<i64>),
    (channel, perspectives): (&str, &[String]),
    signature: Option<(&str, &[&(dyn ToSql + Sync)])>,
) -> Result<(), StoreError> {
    let column = |f: fn(&(String, String)) -> &str| pending.forgotten.iter().map(f).collect::<Vec<&str>>();
    let forgotten = (column(|(p, _)| p), column(|(_, s)| s));
    let rows = &pending.rows;
    let uuids: Vec<&str> = rows.iter().map(|r| r.perspective.as_str()).collect();
    let sources: Vec<&str> = rows.iter().map(|r| r.source.as_str()).collect();
    let labels: Vec<&str> = rows.iter().map(|r| r.labels.as_str()).collect();
    let delete_params: [&(dyn ToSql + Sync); 2] = [&forgotten.0, &forgotten.1];
    let insert_params: [&(dyn ToSql + Sync); 6] = [&uuids, &sources, &labels, &author, &at, &tx];
    let notify_params: [&(dyn ToSql + Sync); 2] = [&channel, &perspectives];
    let mut statements: Vec<(&str, &[&(dyn ToSql + Sync)])> = Vec::with_capacity(4);
    if !pending.forgotten.is_empty() {
        statements.push((DELETE_FORGOTTEN, &delete_params));
    }
    if !rows.is_empty() {
        statements.push((INSERT_ROWS, &insert_params));
    }
    if !perspectives.is_empty() {
        statements.push(("SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p", &notify_params));
    }
    statements.extend(signature);
    conn.execute_all(&statements, "COMMIT")
}

const DELETE_FORGOTTEN: &str = "DELETE FROM changes c USING perspectives p, \
     unnest($1::text[], $2::text[]) AS r(perspective, source) \
     WHERE p.uuid = r.perspective AND c.perspective = p.id AND c.source = r.source";

const INSERT_ROWS: &str = "INSERT INTO changes (perspective, source, author, at, labels, labels_before) \
     SELECT p.id, r.source, $4, $5, r.labels, COALESCE(\
         (SELECT c.labels FROM changes c WHERE c.perspective = p.id AND c.source = r.source \
          ORDER BY c.id DESC LIMIT 1), \
         CASE WHEN EXISTS (SELECT 1 FROM sources s JOIN links l ON l.id = s.first_seq \
             WHERE s.perspective = p.id AND s.source = r.source AND l.tx = $6) THEN '[]' END) \
     FROM unnest($1::text[], $2::text[], $3::text[]) AS r(perspective, source, labels) \
     JOIN perspectives p ON p.uuid = r.perspective";

/// Before a perspective is erased: its whole log.
pub(super) fn erase_perspective(conn: &PgClient, perspective: i64) -> Result<(), StoreError> {
    conn.execute("DELETE FROM changes WHERE perspective = $1", &[&perspective])?;
    Ok(())
}
