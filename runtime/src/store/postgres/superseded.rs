//! `links.superseded` (schema version 7), kept as SQLite keeps it (see that store's
//! `superseded` module): 1 when a later link, by (timestamp, seq), of the same source and
//! predicate exists. A link with 0 is the last for sure, so a filter on a scalar's value probes
//! only a superseded link for a later one (`source_sql::last_of`). It may say 1 where 0 would do,
//! never 0 where a later link exists.
//!
//! Writers to one perspective take turns (its advisory lock), so the statements here see every
//! link of the source and predicate there is. A link's `INSERT` flags it and the links it
//! supersedes in the same statement ([`super::writes`]): it goes out with the next request, at no
//! round trip of its own.

use std::collections::BTreeSet;

use super::client::PgClient;
use super::queries::refresh_sources;
use crate::store::StoreError;

/// The value of `superseded` for the link being inserted (`$1` its seq, `$2` perspective, `$3`
/// source, `$4` predicate, `$7` timestamp): 1 when a later link is there already (a link synced
/// from a node whose clock is behind).
pub(super) const ITSELF: &str = "CASE WHEN EXISTS (SELECT 1 FROM links AS newer WHERE newer.perspective = $2 \
    AND newer.source = $3 AND newer.predicate = $4 AND (newer.timestamp, newer.id) > ($7, $1)) THEN 1 ELSE 0 END";

/// The earlier links of the one being inserted (same parameters as [`ITSELF`]) are superseded.
pub(super) const EARLIER: &str = "UPDATE links SET superseded = 1 WHERE perspective = $2 AND source = $3 \
    AND predicate = $4 AND superseded = 0 AND (timestamp, id) < ($7, $1)";

/// The last link of a source (`$2`) and predicate (`$3`) in perspective `$1` is not superseded.
const RESTORE_LAST: &str = "UPDATE links SET superseded = 0 WHERE superseded = 1 AND id = \
    (SELECT id FROM links WHERE perspective = $1 AND source = $2 AND predicate = $3 \
    ORDER BY timestamp DESC, id DESC LIMIT 1)";

/// After links of these (source, predicate) pairs were removed from perspective `perspective`:
/// the last one left of each (if any) is not superseded (one round trip), and the `sources` rows
/// of their sources are set from the links left ([`refresh_sources`]). Returns those sources and
/// how many of their rows were deleted.
pub(super) fn after_removal<'p>(
    conn: &PgClient,
    perspective: i64,
    pairs: &'p BTreeSet<(String, String)>,
) -> Result<(Vec<&'p str>, u64), StoreError> {
    let each: Vec<_> = pairs
        .iter()
        .map(|(source, predicate)| vec![&perspective as _, source as _, predicate as _])
        .collect();
    if !each.is_empty() {
        conn.execute_each(RESTORE_LAST, &each)?;
    }
    let sources: BTreeSet<&str> = pairs.iter().map(|(source, _)| source.as_str()).collect();
    let sources: Vec<&str> = sources.into_iter().collect();
    let deleted = refresh_sources(conn, perspective, &sources)?;
    Ok((sources, deleted))
}
