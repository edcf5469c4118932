//! A source's order key: its first link's (timestamp, seq). It is kept in `sources` (for the walk
//! over every source in order) and, since schema version 9, copied into each of the source's
//! links, so that a filter orders the matches it reads from `links_predicate_value` from that
//! index alone (`store::sql::Dialect::links_hold_order`) rather than with a lookup in `sources`
//! per match.
//!
//! The key of a source changes only when its first link goes (a removal or an erasure, see
//! [`refresh`]) or when a clock steps back and a new link comes before it ([`for_new_link`]);
//! each time every remaining link of the source is rewritten with it.

use rusqlite::{Connection, OptionalExtension};

use crate::store::StoreError;

/// A source's first link: (timestamp, seq).
pub(super) type OrderKey = (i64, i64);

/// The (timestamp, seq) of the first link of source `?2` in perspective `?1`.
pub(super) const FIRST_LINK: &str =
    "SELECT timestamp, id FROM links WHERE perspective = ?1 AND source = ?2 ORDER BY timestamp, id LIMIT 1";

/// Gives every link of source `?2` in perspective `?1` the order key (`?3`, `?4`).
pub(super) const RELINK: &str = "UPDATE links SET first_ts = ?3, first_seq = ?4 WHERE source = ?2 AND perspective = ?1";

/// The order key of `source` with its new link `link` (timestamp, seq) about to be written, and
/// whether the source is new (it had no link before): its `sources` row is then inserted. An
/// older source keeps its key unless the new link comes first (a clock stepped back); then its
/// row and its links take the new one.
pub(super) fn for_new_link(
    conn: &Connection,
    perspective: i64,
    source: &str,
    link: OrderKey,
) -> Result<(OrderKey, bool), StoreError> {
    let new = conn
        .prepare_cached(
            "INSERT INTO sources (perspective, source, first_ts, first_seq) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT (perspective, source) DO NOTHING",
        )?
        .execute((perspective, source, link.0, link.1))?
        == 1;
    if new {
        return Ok((link, true));
    }
    let first: OrderKey = conn
        .prepare_cached("SELECT first_ts, first_seq FROM sources WHERE perspective = ?1 AND source = ?2")?
        .query_row((perspective, source), |row| Ok((row.get(0)?, row.get(1)?)))?;
    if link < first {
        set(conn, perspective, source, link)?;
        return Ok((link, false));
    }
    Ok((first, false))
}

/// Sets or deletes the `sources` row of `source` from its remaining links, and their copies of
/// its key; `true` when deleted (no link is left).
pub(super) fn refresh(conn: &Connection, perspective: i64, source: &str) -> Result<bool, StoreError> {
    let first: Option<OrderKey> = conn
        .prepare_cached(FIRST_LINK)?
        .query_row((perspective, source), |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    match first {
        Some(first) => {
            set(conn, perspective, source, first)?;
            Ok(false)
        }
        None => Ok(conn
            .prepare_cached("DELETE FROM sources WHERE perspective = ?1 AND source = ?2")?
            .execute((perspective, source))?
            > 0),
    }
}

/// Gives `source` the key `first`, in `sources` and in its links; the links are only rewritten
/// when the key changed.
fn set(conn: &Connection, perspective: i64, source: &str, first: OrderKey) -> Result<(), StoreError> {
    let changed = conn
        .prepare_cached(
            "UPDATE sources SET first_ts = ?3, first_seq = ?4 WHERE perspective = ?1 AND source = ?2 \
             AND (first_ts, first_seq) <> (?3, ?4)",
        )?
        .execute((perspective, source, first.0, first.1))?;
    if changed > 0 {
        conn.prepare_cached(RELINK)?
            .execute((perspective, source, first.0, first.1))?;
    }
    Ok(())
}
