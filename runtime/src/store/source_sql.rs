//! The SQL of `ReadTx::sources`, driven from its most selective condition.
//!
//! Each condition of a [`SourceQuery`] is a set of sources ([`Set`]). One set, the driver, is
//! read through its index; every other is checked on the driver's rows with an `EXISTS` probe
//! (a source's links are indexed by source, perspective and predicate). A store counts each set up
//! to a cap ([`count_sql`]) and drives from the smallest ([`pick_driver`]), so a filter matching
//! 100 of a million sources reads about 100 rows, whatever the class marker matches.
//!
//! A set is counted as a superset: by its links rather than its distinct sources, and a
//! condition asking for the last link of a scalar ([`KeyCondition::last`]) without that probe,
//! which costs more than the count it refines (the count only picks the driver and the way of
//! paging). A page driven from a set
//! under the cap reads every match once, in order, and takes the page and the total from them.
//!
//! Every value from a caller is a bound parameter; only fixed SQL text (and the cap, a number)
//! is spliced. The builders return the SQL and the text parameters that follow the perspective's
//! row id (always parameter 1).

use crate::store::sql::{Dialect, HAS_CHILD};
use crate::store::{KeyCondition, Order, SourceQuery};

/// Most rows a count reads: beyond it a set is simply large (and planning stays cheap).
pub(crate) const COUNT_CAP: u64 = 10_000;

/// One condition of a [`SourceQuery`], as a set of sources.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Set<'q> {
    /// Sources with a `(predicate, target)` link.
    Link(&'q str, &'q str),
    /// Sources with a link of the group.
    AnyLink(&'q [(String, String)]),
    /// Sources with a link whose value key matches.
    Keyed(&'q KeyCondition),
    /// Sources under a parent.
    Child(&'q str),
    /// These sources.
    Among(&'q [String]),
}

/// The sets of `query`, those likely smallest first; `None` when one is empty for sure (an empty
/// `any_of` group, no key to match, no source among), and so is the answer.
pub(crate) fn sets(query: &SourceQuery) -> Option<Vec<Set<'_>>> {
    let mut sets = Vec::new();
    if let Some(among) = &query.among {
        if among.is_empty() {
            return None;
        }
        sets.push(Set::Among(among));
    }
    for condition in &query.keyed {
        if condition.keys.is_empty() && condition.ranges.is_empty() {
            return None;
        }
        sets.push(Set::Keyed(condition));
    }
    if let Some(parent) = &query.child_of {
        sets.push(Set::Child(parent));
    }
    for group in &query.any_of {
        if group.is_empty() {
            return None;
        }
        sets.push(Set::AnyLink(group));
    }
    for (predicate, target) in &query.all_of {
        sets.push(Set::Link(predicate, target));
    }
    Some(sets)
}

/// The index of the smallest set, given `count(set, cap)`: how many rows the set has, read up to
/// `cap`. Sets are counted in order, each up to the smallest count so far; `Ok(None)` when a set
/// is empty (and so is the answer).
pub(crate) fn pick_driver<E>(
    sets: &[Set<'_>],
    count: impl FnMut(&Set<'_>, u64) -> Result<u64, E>,
) -> Result<Option<usize>, E> {
    if sets.len() < 2 {
        return Ok(Some(0));
    }
    Ok(smallest(sets, count)?.map(|(i, _)| i))
}

/// How the matches are read: from one set, or by a walk over every source in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Drive {
    /// From the rows of one set, then sorted: the set is small.
    Set(usize),
    /// Through every source in order, each set checked on each: even the smallest set is large
    /// (at least [`COUNT_CAP`]), so matches are dense and the page ends after few rows.
    InOrder,
}

/// A page of the sources of `query` and how many there are in all, for both stores: `count`
/// runs a statement answering one number, `rows` one answering sources (each given the SQL and
/// the parameters after the perspective's, and the [`Window`] of rows to read the sources of).
/// While the smallest set is small, every match is
/// read from it in one statement, sorted, and the page and the total are taken from them (the
/// sort reads them all anyway). Else the walk is over every source in order, the
/// page ends it, and the total is counted (from the smallest set) only when the page does not
/// tell it (a short page ends the matches).
pub(crate) fn page<E>(
    query: &SourceQuery,
    order: Order,
    (offset, limit): (u64, u64),
    d: Dialect,
    mut count: impl FnMut(&str, &[&str]) -> Result<u64, E>,
    mut rows: impl FnMut(&str, &[&str], Window) -> Result<(Vec<String>, u64), E>,
) -> Result<(Vec<String>, u64), E> {
    let Some(sets) = sets(query) else {
        return Ok((Vec::new(), 0));
    };
    let smallest = if sets.is_empty() {
        None
    } else {
        let count_set = |set: &Set<'_>, cap: u64| {
            let (sql, params) = count_sql(set, cap, d);
            count(&sql, &params)
        };
        match smallest(&sets, count_set)? {
            Some(found) => Some(found),
            None => return Ok((Vec::new(), 0)),
        }
    };
    match smallest {
        Some((i, n)) if n < COUNT_CAP => {
            let (sql, params) = sources_sql(&sets, i, order, d);
            rows(&sql, &params, Window::new(offset, limit))
        }
        _ => {
            let (sql, params) = page_sql(&sets, order, (offset, limit), d);
            let (page, _) = rows(&sql, &params, Window::ALL)?;
            let read = page.len() as u64;
            let total = if read < limit && (read > 0 || offset == 0) {
                offset + read
            } else {
                let (sql, params) = total_sql(&sets, smallest.map(|(i, _)| i), d);
                count(&sql, &params)?
            };
            Ok((page, total))
        }
    }
}

/// Which rows of a statement's answer are read whole ([`page`]'s `rows`): the others are only
/// counted, which spares a string per match outside the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    skip: usize,
    take: usize,
}

impl Window {
    const ALL: Window = Window {
        skip: 0,
        take: usize::MAX,
    };

    fn new(offset: u64, limit: u64) -> Self {
        Window {
            skip: usize::try_from(offset).unwrap_or(usize::MAX),
            take: usize::try_from(limit).unwrap_or(usize::MAX),
        }
    }

    /// Whether the row at `position` (from 0) is in the window.
    pub(crate) fn holds(self, position: usize) -> bool {
        position >= self.skip && position - self.skip < self.take
    }
}

/// The smallest set and its count (capped); `None` when one is empty.
fn smallest<E>(
    sets: &[Set<'_>],
    mut count: impl FnMut(&Set<'_>, u64) -> Result<u64, E>,
) -> Result<Option<(usize, u64)>, E> {
    let (mut best, mut best_count) = (0, COUNT_CAP + 1);
    for (i, set) in sets.iter().enumerate() {
        let n = match set {
            Set::Among(among) => among.len() as u64,
            _ => count(set, best_count.min(COUNT_CAP))?,
        };
        if n == 0 {
            return Ok(None);
        }
        if n < best_count {
            (best, best_count) = (i, n);
        }
    }
    Ok(Some((best, best_count)))
}

/// The SQL of `ReadTx::sources` driven from `sets[driver]`, and its parameters after the
/// perspective's.
pub(crate) fn sources_sql<'q>(
    sets: &[Set<'q>],
    driver: usize,
    order: Order,
    dialect: Dialect,
) -> (String, Vec<&'q str>) {
    let (matches, params) = matches_sql(sets, Drive::Set(driver), dialect);
    (
        format!("SELECT {} {} {}", matches.source, matches.from, order_by(order)),
        params,
    )
}

/// The SQL of a page of `ReadTx::source_page` walked in order over every source: at most `limit`
/// sources from `offset`.
pub(crate) fn page_sql<'q>(
    sets: &[Set<'q>],
    order: Order,
    (offset, limit): (u64, u64),
    dialect: Dialect,
) -> (String, Vec<&'q str>) {
    let (matches, params) = matches_sql(sets, Drive::InOrder, dialect);
    let sql = format!(
        "SELECT {} {} {} LIMIT {limit} OFFSET {offset}",
        matches.source,
        matches.from,
        order_by(order)
    );
    (sql, params)
}

/// The SQL counting every source of `sets`, driven from `sets[driver]` (or over every source):
/// the smallest set's rows, each checked against the others, are fewer than every source. A
/// set of sources of links is counted without `sources`: each of its rows has one, so the join
/// would only read it (a third of an unfiltered count of 100,000 instances).
pub(crate) fn total_sql<'q>(sets: &[Set<'q>], driver: Option<usize>, dialect: Dialect) -> (String, Vec<&'q str>) {
    if let Some(i) = driver
        && let Some(set) = sets.get(i)
        && set.rows_are_sources()
    {
        let mut params = Vec::new();
        let rows = set.rows(dialect, &mut params, Rows::Exact);
        let filter = others_hold(sets, i, "m.node", dialect, &mut params);
        return (format!("SELECT COUNT(*) FROM ({rows}) AS m{filter}"), params);
    }
    let drive = driver.map_or(Drive::InOrder, Drive::Set);
    let (matches, params) = matches_sql(sets, drive, dialect);
    (format!("SELECT COUNT(*) {}", matches.from), params)
}

/// The matches of every set, as [`matches_sql`] reads them.
struct Matches {
    /// `FROM … WHERE …`: a row (as `s`, with `s.first_ts` and `s.first_seq`) per match.
    from: String,
    /// The column of `s` holding the match.
    source: &'static str,
}

/// The rows (as `s`) of every set, driven as `drive` says, and their parameters. A driving set
/// of links' sources read where links hold their source's order key ([`Dialect::links_hold_order`])
/// gives it with each row; any other reaches it in `sources`.
fn matches_sql<'q>(sets: &[Set<'q>], drive: Drive, dialect: Dialect) -> (Matches, Vec<&'q str>) {
    let p1 = dialect.param(1);
    let mut params = Vec::new();
    let driver = match drive {
        Drive::Set(i) => sets.get(i).map(|set| (i, set)),
        Drive::InOrder => None,
    };
    let Some((driver, first)) = driver else {
        let checks: Vec<String> = sets
            .iter()
            .map(|set| set.holds(dialect, &mut params, "s.source"))
            .collect();
        let filter: String = checks.iter().map(|check| format!(" AND {check}")).collect();
        let from = format!(
            "FROM sources AS s{} WHERE s.perspective = {p1}{filter}",
            dialect.order_index
        );
        return (from_sources(from), params);
    };
    if dialect.links_hold_order && first.rows_are_sources() {
        let rows = first.rows(dialect, &mut params, Rows::Ordered);
        let filter = others_hold(sets, driver, "s.node", dialect, &mut params);
        let from = format!("FROM ({rows}) AS s{filter}");
        return (Matches { from, source: "s.node" }, params);
    }
    let rows = first.rows(dialect, &mut params, Rows::Exact);
    let filter = others_hold(sets, driver, "s.source", dialect, &mut params);
    let from = format!("FROM ({rows}) AS m {}{filter}", dialect.join_sources());
    (from_sources(from), params)
}

fn from_sources(from: String) -> Matches {
    Matches {
        from,
        source: "s.source",
    }
}

/// ` WHERE …`: that every set but `sets[driver]` holds `node`; nothing when there is no other.
fn others_hold<'q>(sets: &[Set<'q>], driver: usize, node: &str, dialect: Dialect, params: &mut Vec<&'q str>) -> String {
    let checks: Vec<String> = sets
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != driver)
        .map(|(_, set)| set.holds(dialect, params, node))
        .collect();
    if checks.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", checks.join(" AND "))
    }
}

fn order_by(order: Order) -> String {
    let direction = match order {
        Order::OldestFirst => "ASC",
        Order::NewestFirst => "DESC",
    };
    format!("ORDER BY s.first_ts {direction}, s.first_seq {direction}")
}

/// How many rows `set` has as a superset ([`Rows::Superset`]), read up to `cap`, and the
/// parameters after the perspective's.
pub(crate) fn count_sql<'q>(set: &Set<'q>, cap: u64, dialect: Dialect) -> (String, Vec<&'q str>) {
    let mut params = Vec::new();
    let rows = set.rows(dialect, &mut params, Rows::Superset);
    (format!("SELECT COUNT(*) FROM ({rows} LIMIT {cap}) AS c"), params)
}

/// Appends `value` to the parameters and names it.
fn bind<'q>(dialect: Dialect, params: &mut Vec<&'q str>, value: &'q str) -> String {
    params.push(value);
    dialect.param(params.len() + 1)
}

/// `a, b, c`: the parameters of an `IN` list.
fn bind_all<'q>(dialect: Dialect, params: &mut Vec<&'q str>, values: impl IntoIterator<Item = &'q str>) -> String {
    values
        .into_iter()
        .map(|v| bind(dialect, params, v))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Which rows [`Set::rows`] selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rows {
    /// The set's sources, each once.
    Exact,
    /// Its sources and perhaps more, to count cheaply: one row per link (a source with two links
    /// of the set is two rows), and a key condition without its probe for a later link. Only
    /// ever counted, to pick a driver and the way of paging, never answered: dropping the
    /// `DISTINCT` took a third off counting 1,000 rows.
    Superset,
    /// The set's sources, each once, with their order key (`first_ts`, `first_seq`): only of a
    /// set of sources ([`Set::rows_are_sources`]) where links hold the key.
    Ordered,
}

impl<'q> Set<'q> {
    /// `SELECT … AS node`: the sources of the set (or a superset of them), through an index.
    fn rows(&self, d: Dialect, params: &mut Vec<&'q str>, rows: Rows) -> String {
        let p1 = d.param(1);
        match *self {
            Set::Link(predicate, target) => {
                let predicate = bind(d, params, predicate);
                let target = bind(d, params, target);
                format!(
                    "SELECT {}{} FROM links WHERE perspective = {p1} AND predicate = {predicate} AND {}",
                    rows.distinct(),
                    rows.of_links(),
                    d.target_equals(&target, true)
                )
            }
            Set::AnyLink(group) => {
                let alternatives: Vec<String> = group
                    .iter()
                    .map(|(predicate, target)| Set::Link(predicate, target).rows(d, params, rows))
                    .collect();
                let union = match rows {
                    Rows::Exact | Rows::Ordered => " UNION ",
                    Rows::Superset => " UNION ALL ",
                };
                // PostgreSQL before 16 wants a name for every subquery in FROM.
                format!(
                    "SELECT {} FROM ({}) AS any_of",
                    rows.of_rows(),
                    alternatives.join(union)
                )
            }
            Set::Keyed(condition) => {
                let predicate = bind(d, params, &condition.predicate);
                let last = match rows {
                    Rows::Exact | Rows::Ordered => last_of(condition, d, params),
                    Rows::Superset => String::new(),
                };
                let head = format!(
                    "SELECT {} FROM links AS k{} WHERE perspective = {p1} AND predicate = {predicate}",
                    rows.of_links(),
                    d.key_index
                );
                let alternatives: Vec<String> = key_matches(condition, d, params)
                    .iter()
                    .map(|key_match| format!("{head} AND {key_match}{last}"))
                    .collect();
                let distinct = match rows {
                    Rows::Exact | Rows::Ordered
                        if !d.distinct_fence && alternatives.len() == 1 && one_link_per_source(condition) =>
                    {
                        ""
                    }
                    _ => rows.distinct(),
                };
                format!(
                    "SELECT {distinct}{} FROM ({}) AS keyed",
                    rows.of_rows(),
                    alternatives.join(" UNION ALL ")
                )
            }
            Set::Child(parent) => {
                debug_assert!(rows != Rows::Ordered, "a child's order key is in `sources`");
                let parent = bind(d, params, parent);
                let has_child = bind(d, params, HAS_CHILD);
                format!(
                    "SELECT {}target AS node FROM links WHERE perspective = {p1} AND source = {parent} \
                     AND predicate = {has_child}",
                    rows.distinct()
                )
            }
            Set::Among(among) => {
                let among = bind_all(d, params, among.iter().map(String::as_str));
                format!(
                    "SELECT {} FROM sources WHERE perspective = {p1} AND source IN ({among})",
                    rows.of_links()
                )
            }
        }
    }

    /// Whether every row of the set is a source with a row in `sources` (the source of a link,
    /// or read from `sources`): all but the children of a parent, which are targets.
    fn rows_are_sources(&self) -> bool {
        !matches!(self, Set::Child(_))
    }

    /// A condition on `node` (`s.source`, a row of `sources`, or `m.node`, a row of a set): that
    /// the set holds it, by an index probe.
    fn holds(&self, d: Dialect, params: &mut Vec<&'q str>, node: &str) -> String {
        let p1 = d.param(1);
        let links_of_s = format!("SELECT 1 FROM links WHERE perspective = {p1} AND source = {node}");
        match *self {
            Set::Link(predicate, target) => {
                let predicate = bind(d, params, predicate);
                let target = bind(d, params, target);
                format!(
                    "EXISTS ({links_of_s} AND predicate = {predicate} AND {})",
                    d.target_equals(&target, false)
                )
            }
            Set::AnyLink(group) => {
                let alternatives: Vec<String> = group
                    .iter()
                    .map(|(predicate, target)| Set::Link(predicate, target).holds(d, params, node))
                    .collect();
                format!("({})", alternatives.join(" OR "))
            }
            Set::Keyed(condition) => {
                let predicate = bind(d, params, &condition.predicate);
                let last = last_of(condition, d, params);
                let key_matches = key_matches(condition, d, params);
                format!(
                    "EXISTS (SELECT 1 FROM links AS k WHERE perspective = {p1} AND source = {node} \
                     AND predicate = {predicate} AND ({}){last})",
                    key_matches.join(" OR ")
                )
            }
            Set::Child(parent) => {
                let parent = bind(d, params, parent);
                let has_child = bind(d, params, HAS_CHILD);
                format!(
                    "EXISTS (SELECT 1 FROM links WHERE perspective = {p1} AND source = {parent} AND predicate = {has_child} \
                     AND {})",
                    d.target_equals(node, false)
                )
            }
            Set::Among(among) => {
                let among = bind_all(d, params, among.iter().map(String::as_str));
                format!("{node} IN ({among})")
            }
        }
    }
}

impl Rows {
    /// `DISTINCT ` where each source is one row.
    fn distinct(self) -> &'static str {
        match self {
            Rows::Exact | Rows::Ordered => "DISTINCT ",
            Rows::Superset => "",
        }
    }

    /// The columns read from a row of `links` (or `sources`): its source as `node`, and its
    /// order key where asked for.
    fn of_links(self) -> &'static str {
        match self {
            Rows::Ordered => "source AS node, first_ts, first_seq",
            Rows::Exact | Rows::Superset => "source AS node",
        }
    }

    /// The columns read from the rows of an inner select of [`Self::of_links`].
    fn of_rows(self) -> &'static str {
        match self {
            Rows::Ordered => "node, first_ts, first_seq",
            Rows::Exact | Rows::Superset => "node",
        }
    }
}

/// Whether at most one link of a source meets `condition` by one of its keys or ranges (so a
/// `DISTINCT` over them would only cost: half the time of reading 1,000 matches): it asks for
/// the last link, and every key it looks for is one of those counted in finding the last. Two
/// links of a source that both match are then both counted, and the earlier is not the last.
fn one_link_per_source(condition: &KeyCondition) -> bool {
    let Some(counted) = &condition.last else {
        return false;
    };
    let is_counted = |low: &str, high: &str| {
        counted.is_empty()
            || counted
                .iter()
                .any(|range| range.low.as_str() <= low && high <= range.high.as_str())
    };
    condition.keys.iter().all(|key| is_counted(key, key))
        && condition.ranges.iter().all(|range| is_counted(&range.low, &range.high))
}

/// `value_key IN (…)` and `value_key BETWEEN … AND …`: each way a link of `k` meets `condition`.
fn key_matches<'q>(condition: &'q KeyCondition, d: Dialect, params: &mut Vec<&'q str>) -> Vec<String> {
    let mut matches = Vec::new();
    if !condition.keys.is_empty() {
        let keys = bind_all(d, params, condition.keys.iter().map(String::as_str));
        matches.push(format!("value_key IN ({keys})"));
    }
    for range in &condition.ranges {
        let (low, high) = (bind(d, params, &range.low), bind(d, params, &range.high));
        matches.push(format!("value_key BETWEEN {low} AND {high}"));
    }
    matches
}

/// ` AND NOT EXISTS (…)`: that no later link of the source and predicate of `k` (a counted one)
/// follows it, when `condition.last` asks for the last; else nothing. The probe goes through
/// `links_source_predicate`, over the few links one source has of one predicate; it rules out
/// `k` itself by its id first, which that index holds, so that a source with one link of the
/// predicate (the usual scalar) is answered without reading a row of the table. Only a `k` the
/// `superseded` flag marks (both stores keep it: schema version 7) is probed at all.
fn last_of<'q>(condition: &'q KeyCondition, d: Dialect, params: &mut Vec<&'q str>) -> String {
    let Some(counted) = &condition.last else {
        return String::new();
    };
    let ranges: Vec<String> = counted
        .iter()
        .map(|range| {
            let (low, high) = (bind(d, params, &range.low), bind(d, params, &range.high));
            format!("later.value_key BETWEEN {low} AND {high}")
        })
        .collect();
    let counted = if ranges.is_empty() {
        String::new()
    } else {
        format!(" AND ({})", ranges.join(" OR "))
    };
    let probe = format!(
        "NOT EXISTS (SELECT 1 FROM links AS later{} WHERE later.perspective = k.perspective \
         AND later.source = k.source AND later.predicate = k.predicate AND later.id <> k.id \
         AND (later.timestamp, later.id) > (k.timestamp, k.id){counted})",
        d.later_index
    );
    // A link no later one supersedes is the last, from the index it was found in.
    format!(" AND (k.superseded = 0 OR {probe})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::KeyRange;
    use crate::store::sql::{POSTGRES, SQLITE};

    fn query() -> SourceQuery {
        SourceQuery {
            all_of: vec![("p".into(), "t".into())],
            any_of: vec![vec![("a".into(), "1".into()), ("a".into(), "2".into())]],
            child_of: Some("parent".into()),
            keyed: vec![KeyCondition {
                predicate: "k".into(),
                keys: vec!["s:x".into()],
                ranges: vec![KeyRange {
                    low: "n:".into(),
                    high: "n;".into(),
                }],
                last: None,
            }],
            among: None,
        }
    }

    #[test]
    fn sqlite_sources_sql_reads_like_this() {
        let query = query();
        let sets = sets(&query).unwrap();
        let (sql, params) = sources_sql(&sets, 0, Order::NewestFirst, SQLITE);
        assert_eq!(
            params,
            [
                "k", "s:x", "n:", "n;", "parent", HAS_CHILD, "a", "1", "a", "2", "p", "t"
            ]
        );
        assert_eq!(
            sql,
            "SELECT s.node FROM (SELECT DISTINCT node, first_ts, first_seq FROM (\
             SELECT source AS node, first_ts, first_seq FROM links AS k INDEXED BY links_predicate_value \
             WHERE perspective = ?1 AND predicate = ?2 AND value_key IN (?3) UNION ALL \
             SELECT source AS node, first_ts, first_seq FROM links AS k INDEXED BY links_predicate_value \
             WHERE perspective = ?1 AND predicate = ?2 AND value_key BETWEEN ?4 AND ?5\
             ) AS keyed) AS s WHERE \
             EXISTS (SELECT 1 FROM links WHERE perspective = ?1 AND source = ?6 AND predicate = ?7 AND target = s.node) AND \
             (EXISTS (SELECT 1 FROM links WHERE perspective = ?1 AND source = s.node AND predicate = ?8 AND target = ?9) OR \
             EXISTS (SELECT 1 FROM links WHERE perspective = ?1 AND source = s.node AND predicate = ?10 AND target = ?11)) AND \
             EXISTS (SELECT 1 FROM links WHERE perspective = ?1 AND source = s.node AND predicate = ?12 AND target = ?13) \
             ORDER BY s.first_ts DESC, s.first_seq DESC"
        );
        // A parent's children are targets: their order keys are in `sources`.
        let (sql, _) = sources_sql(&sets, 1, Order::OldestFirst, SQLITE);
        assert!(
            sql.contains(") AS m CROSS JOIN sources AS s ON s.perspective = ?1 AND s.source = m.node WHERE "),
            "{sql}"
        );
    }

    #[test]
    fn postgres_checks_targets_through_their_hash() {
        let query = SourceQuery {
            child_of: Some("parent".into()),
            all_of: vec![("p".into(), "t".into())],
            ..Default::default()
        };
        let sets = sets(&query).unwrap();
        let (sql, params) = sources_sql(&sets, 1, Order::OldestFirst, POSTGRES);
        assert_eq!(params, ["p", "t", "parent", HAS_CHILD]);
        assert_eq!(
            sql,
            "SELECT s.source FROM (SELECT DISTINCT source AS node FROM links WHERE perspective = $1 AND predicate = $2 \
             AND hashtextextended(target, 0) = hashtextextended($3, 0) AND target = $3) AS m \
             CROSS JOIN LATERAL (SELECT source, first_ts, first_seq FROM sources \
             WHERE perspective = $1 AND source = m.node OFFSET 0) AS s WHERE \
             EXISTS (SELECT 1 FROM links WHERE perspective = $1 AND source = $4 AND predicate = $5 \
             AND hashtextextended(target, 0) = hashtextextended(s.source, 0) AND target = s.source) \
             ORDER BY s.first_ts ASC, s.first_seq ASC"
        );
    }

    #[test]
    fn the_smallest_set_drives_and_an_empty_one_ends_the_query() {
        let query = query();
        let sets = sets(&query).unwrap();
        let sizes = [50, 7, 9, 1_000];
        let driver = pick_driver(&sets, |set, cap| {
            let i = sets.iter().position(|s| std::ptr::eq(s, set)).unwrap();
            Ok::<_, ()>(sizes[i].min(cap))
        });
        assert_eq!(driver, Ok(Some(1)));
        let empty = pick_driver(&sets, |_, _| Ok::<_, ()>(0));
        assert_eq!(empty, Ok(None));
        let no_keys = SourceQuery {
            keyed: vec![KeyCondition::default()],
            ..Default::default()
        };
        assert!(super::sets(&no_keys).is_none());
    }

    #[test]
    fn the_last_link_is_one_per_source_when_every_key_it_looks_for_is_counted() {
        let range = |low: &str, high: &str| KeyRange {
            low: low.into(),
            high: high.into(),
        };
        let condition = |keys: &[&str], ranges: Vec<KeyRange>, last: Option<Vec<KeyRange>>| KeyCondition {
            predicate: "p".into(),
            keys: keys.iter().map(|k| k.to_string()).collect(),
            ranges,
            last,
        };
        // Every link counted: only the last matches.
        assert!(one_link_per_source(&condition(&["s:done"], vec![], Some(vec![]))));
        // Numbers counted: a number key, and a range within them.
        let numbers = || Some(vec![range("n:", "n;")]);
        assert!(one_link_per_source(&condition(&["n:3"], vec![], numbers())));
        assert!(one_link_per_source(&condition(
            &[],
            vec![range("n:1", "n:5")],
            numbers()
        )));
        // A key that is not counted: an earlier link with it may be last among the counted,
        // and a later one too.
        assert!(!one_link_per_source(&condition(&["n:3", "s:3"], vec![], numbers())));
        assert!(!one_link_per_source(&condition(&[], vec![range("a", "z")], numbers())));
        // A collection's every item.
        assert!(!one_link_per_source(&condition(&["s:done"], vec![], None)));
        // Keys and a range are two alternatives: a link may meet both, and the read stays distinct.
        let both = condition(&["n:3"], vec![range("n:1", "n:5")], numbers());
        let query = SourceQuery {
            keyed: vec![both],
            ..Default::default()
        };
        let sets = sets(&query).unwrap();
        assert!(sources_sql(&sets, 0, Order::OldestFirst, SQLITE).0.contains("DISTINCT"));
    }

    /// Tasks whose status (a string: every link counted) is "done".
    fn query_of_the_last_status() -> SourceQuery {
        SourceQuery {
            all_of: vec![("rdf://type".into(), "Task".into())],
            keyed: vec![KeyCondition {
                predicate: "status".into(),
                keys: vec!["s:done".into()],
                ranges: vec![],
                last: Some(vec![]),
            }],
            ..Default::default()
        }
    }

    /// What `page` asks of a store, given each set's size: the statements it runs, in order.
    fn statements_of_a_page(
        sizes: [u64; 2],
        matches: usize,
        (offset, limit): (u64, u64),
    ) -> (Vec<String>, (Vec<String>, u64)) {
        let query = query_of_the_last_status();
        let ran = std::cell::RefCell::new(Vec::new());
        let count = |sql: &str, params: &[&str]| {
            ran.borrow_mut().push(sql.to_string());
            // Sets are counted in order: the keyed one, then the marker.
            let size = if params.contains(&"status") { sizes[0] } else { sizes[1] };
            Ok::<_, ()>(if sql.contains("LIMIT") {
                size.min(COUNT_CAP)
            } else {
                matches as u64
            })
        };
        let rows = |sql: &str, _: &[&str], window: Window| {
            ran.borrow_mut().push(sql.to_string());
            let all: Vec<String> = (0..matches).map(|i| format!("s{i}")).collect();
            let answered: Vec<String> = match sql.contains(" LIMIT ") {
                true => all.into_iter().skip(offset as usize).take(limit as usize).collect(),
                false => all,
            };
            let read = answered.len() as u64;
            let kept = answered.into_iter().enumerate().filter(|(i, _)| window.holds(*i));
            Ok::<_, ()>((kept.map(|(_, source)| source).collect(), read))
        };
        let answer = page(&query, Order::OldestFirst, (offset, limit), SQLITE, count, rows).unwrap();
        (ran.into_inner(), answer)
    }

    #[test]
    fn a_small_driver_gives_the_page_and_the_total_in_one_read() {
        let (ran, (page, total)) = statements_of_a_page([1_000, 100_000], 1_000, (200, 100));
        // Two counts (the keyed set without its probe for a later link, and both by rows, not
        // distinct sources), then one read of every match; the last link of a scalar is one per
        // source, so the read needs no DISTINCT either.
        assert_eq!(ran.len(), 3, "{ran:#?}");
        assert!(!ran[0].contains("later"), "{}", ran[0]);
        assert!(ran.iter().all(|sql| !sql.contains("DISTINCT")), "{ran:#?}");
        // PostgreSQL's read keeps it, as the fence that keeps the planner from joining first.
        let last = query_of_the_last_status();
        let sets = sets(&last).unwrap();
        assert!(
            sources_sql(&sets, 0, Order::OldestFirst, POSTGRES)
                .0
                .contains("SELECT DISTINCT node")
        );
        assert!(ran[2].contains("later") && !ran[2].contains(" LIMIT "), "{}", ran[2]);
        assert_eq!(
            (page.first().map(String::as_str), page.len(), total),
            (Some("s200"), 100, 1_000)
        );
        // A page past the end is empty and still tells the total.
        let (_, (page, total)) = statements_of_a_page([1_000, 100_000], 1_000, (5_000, 100));
        assert_eq!((page.len(), total), (0, 1_000));
    }

    #[test]
    fn large_sets_are_walked_in_order_and_counted_only_when_the_page_is_full() {
        let (ran, (page, total)) = statements_of_a_page([50_000, 100_000], 40_000, (0, 100));
        assert!(ran[2].contains(" LIMIT 100 OFFSET 0"), "{}", ran[2]);
        // The total is driven from the smallest set (the keyed one), not walked over every source,
        // and its rows, sources of links, are counted without reading `sources`.
        assert!(
            ran[3].starts_with("SELECT COUNT(*) FROM (SELECT node") && !ran[3].contains("sources"),
            "{}",
            ran[3]
        );
        assert_eq!((page.len(), total), (100, 40_000));
        // A short page ends the matches: no count.
        let (ran, (page, total)) = statements_of_a_page([50_000, 100_000], 40_000, (39_950, 100));
        assert_eq!(ran.len(), 3, "{ran:#?}");
        assert_eq!((page.len(), total), (50, 40_000));
    }
}
