//! `links.superseded` (schema version 7): 1 when a later link, by (timestamp, seq), of the same
//! source and predicate exists; 0 on the last one.
//!
//! The flag spares a filter on a scalar's value its probe for a later link
//! (`source_sql::last_of`): a link with 0 is the last for sure, from `links_predicate_value`
//! alone. A link with 1 is still probed, since a later link the property does not read (a value
//! of another type) does not take its place. So the flag may say 1 where 0 would do, never 0
//! where a later link exists: every write keeps that, and a wrong 1 would only cost a probe.
//!
//! The writer is the only one (SQLite has one at a time), so the statements here see every
//! link of the source and predicate there is.

use rusqlite::Connection;

use crate::store::StoreError;

/// After inserting the link `seq` (at `timestamp`) of `source` and `predicate`: the earlier
/// links are superseded, and so is this one when a later link is there already (a link synced
/// from a node whose clock is behind).
pub(super) fn after_insert(
    conn: &Connection,
    perspective: i64,
    (source, predicate): (&str, &str),
    timestamp: i64,
    seq: i64,
) -> Result<(), StoreError> {
    for sql in [SUPERSEDE_EARLIER, SUPERSEDE_ITSELF] {
        conn.prepare_cached(sql)?
            .execute((perspective, source, predicate, timestamp, seq))?;
    }
    Ok(())
}

/// After links of `source` and `predicate` were removed: the last one left (if any) is not
/// superseded.
pub(super) fn after_removal(
    conn: &Connection,
    perspective: i64,
    (source, predicate): (&str, &str),
) -> Result<(), StoreError> {
    conn.prepare_cached(RESTORE_LAST)?
        .execute((perspective, source, predicate))?;
    Ok(())
}

/// The earlier links of a source (`?2`) and predicate (`?3`) than (`?4`, `?5`) are superseded.
pub(super) const SUPERSEDE_EARLIER: &str = "UPDATE links SET superseded = 1 WHERE perspective = ?1 \
    AND source = ?2 AND predicate = ?3 AND superseded = 0 AND (timestamp, id) < (?4, ?5)";

/// The link `?5` is superseded when a later one of its source and predicate is there (SQLite
/// seeks the source's links after `?4` by time: none, unless a clock stepped back).
pub(super) const SUPERSEDE_ITSELF: &str = "UPDATE links SET superseded = 1 WHERE id = ?5 AND EXISTS \
    (SELECT 1 FROM links AS newer WHERE newer.perspective = ?1 AND newer.source = ?2 \
    AND newer.predicate = ?3 AND (newer.timestamp, newer.id) > (?4, ?5))";

/// The last link of a source and predicate is not superseded.
pub(super) const RESTORE_LAST: &str = "UPDATE links SET superseded = 0 WHERE superseded = 1 AND id = \
    (SELECT id FROM links WHERE perspective = ?1 AND source = ?2 AND predicate = ?3 \
    ORDER BY timestamp DESC, id DESC LIMIT 1)";
