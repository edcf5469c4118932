//! SQL text that both SQL stores build the same way, in the small ways their dialects differ.
//!
//! Every value from a caller is a bound parameter; only fixed SQL text is ever spliced. The
//! builders return the SQL and the text parameters that follow the perspective's row id
//! (always parameter 1); each store binds them with its driver.

use crate::store::LinkPattern;

/// The predicate of the parent edge that `SourceQuery::child_of` follows.
pub const HAS_CHILD: &str = "ad4m://has_child";

/// How one SQL dialect spells what the builders need.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dialect {
    /// Before a parameter's number: `?1` or `$1`.
    param: char,
    /// How the matches of `source_sql::sources_sql` reach their rows of `sources`.
    join_sources: JoinSources,
    /// How the indexes find a target, which a lookup by target names.
    target_lookup: TargetLookup,
    /// After `FROM links AS k` in a lookup by value key.
    pub(crate) key_index: &'static str,
    /// After `FROM sources AS s` in a walk over sources in order.
    pub(crate) order_index: &'static str,
    /// After `FROM links AS later` in the probe for a later link of one source and predicate.
    pub(crate) later_index: &'static str,
    /// After `FROM links` in a read of the links out of a list of sources ([`links_from_sql`]).
    pub(crate) links_from_index: &'static str,
    /// Whether a set read whole keeps its `DISTINCT` even where each source is one row anyway:
    /// PostgreSQL flattens a subquery without it into the join with `sources` and hashes every
    /// source (a filter matching 100 of 100,000 Tasks: 21-29 ms against 5 ms by `EXPLAIN
    /// ANALYZE`).
    pub(crate) distinct_fence: bool,
    /// Whether each row of `links` holds its source's order key (`first_ts`, `first_seq`, as in
    /// `sources`), so that the matches of a set of links' sources are ordered without a lookup
    /// in `sources` each.
    pub(crate) links_hold_order: bool,
}

/// How the indexes of `links` find a link by its target.
#[derive(Clone, Copy, Debug)]
enum TargetLookup {
    /// Through its value key, a function of the target (the SQL function named): SQLite's
    /// `links_predicate_value` is by (predicate, value key, order key, target), so a lookup by
    /// target must name the key to reach the entries among which the target is.
    Keyed(&'static str),
    /// Through `hashtextextended(target, 0)`: PostgreSQL's indexes hold the hash.
    Hashed,
}

/// SQLite: `CROSS JOIN` keeps the matches as the outer loop (a primary-key probe per match, then a
/// sort of the matches, rather than a walk over every source of the perspective). A lookup by value
/// key names its index: without statistics SQLite prefers to walk an index in source order (for
/// the `DISTINCT`) over the whole perspective, 100 times slower at 100,000 sources. So do the
/// walk over sources in order (else it sorts them all) and the probe for a later link (else it
/// reads every link of the predicate in a range of keys), and the read of the links out of a list
/// of sources: through `links_source_time` it seeks each source once and reads its links in
/// order, where it would pick `links_source_predicate`, seek each (source, predicate) pair and
/// sort them all (a page of 100 Tasks: 671 against 1,031 µs).
pub(crate) const SQLITE: Dialect = Dialect {
    param: '?',
    join_sources: JoinSources::CrossJoin,
    target_lookup: TargetLookup::Keyed(crate::store::sqlite::VALUE_KEY_FN),
    key_index: " INDEXED BY links_predicate_value",
    order_index: " INDEXED BY sources_first",
    later_index: " INDEXED BY links_source_predicate",
    links_from_index: " INDEXED BY links_source_time",
    distinct_fence: false,
    links_hold_order: true,
};

/// PostgreSQL: each match's row of `sources` is looked up by its key ([`JoinSources::Lateral`]). A btree entry
/// holds at most 2704 bytes and a target may be a long literal, so the indexes hold a 64-bit hash
/// of the target: a lookup matches the hash (through the index) and then the text.
pub(crate) const POSTGRES: Dialect = Dialect {
    param: '$',
    join_sources: JoinSources::Lateral,
    target_lookup: TargetLookup::Hashed,
    key_index: "",
    order_index: "",
    later_index: "",
    links_from_index: "",
    distinct_fence: true,
    links_hold_order: false,
};

/// How the matches of a set (`m`, their sources in `m.node`) reach their rows of `sources` (as
/// `s`): one lookup by primary key per match, the design of `source_sql` (the set was counted,
/// and is the smallest).
#[derive(Clone, Copy, Debug)]
enum JoinSources {
    /// SQLite keeps the left side of a `CROSS JOIN` as the outer loop.
    CrossJoin,
    /// PostgreSQL cannot pull a `LATERAL` subquery with `OFFSET 0` up into a join of its
    /// choosing. With a plain `JOIN` it hashed every source of the perspective whenever it
    /// estimated a few hundred matches: a filter matching 100 of 100,000 Tasks took 13.9 ms
    /// against 1.8 ms looked up (`psql`), the 1% filter 6.9 against 7.5 ms.
    Lateral,
}

impl Dialect {
    /// `CROSS JOIN …` the rows of `sources` (as `s`) of the matches `m`.
    pub(crate) fn join_sources(self) -> String {
        let p1 = self.param(1);
        match self.join_sources {
            JoinSources::CrossJoin => format!("CROSS JOIN sources AS s ON s.perspective = {p1} AND s.source = m.node"),
            JoinSources::Lateral => format!(
                "CROSS JOIN LATERAL (SELECT source, first_ts, first_seq FROM sources \
                 WHERE perspective = {p1} AND source = m.node OFFSET 0) AS s"
            ),
        }
    }

    pub(crate) fn param(self, n: usize) -> String {
        format!("{}{n}", self.param)
    }

    /// `target = expr`, through the target's hash where the indexes hold it, and through its key
    /// where the lookup goes through `links_predicate_value` (`by_key`: the predicate fixed and
    /// the source not). With a source, `links_source_predicate` seeks the target without the key;
    /// without a predicate SQLite must not see the key, or it walks that covering index over the
    /// whole perspective rather than seek `links_target`.
    pub(crate) fn target_equals(self, expr: &str, by_key: bool) -> String {
        match self.target_lookup {
            TargetLookup::Keyed(key) if by_key => format!("value_key = {key}({expr}) AND target = {expr}"),
            TargetLookup::Keyed(_) => format!("target = {expr}"),
            TargetLookup::Hashed => {
                format!("hashtextextended(target, 0) = hashtextextended({expr}, 0) AND target = {expr}")
            }
        }
    }
}

/// `perspective = ?1` and one `column = ?n` per given part of the pattern, with the values of
/// those parts (parameters 2, 3, ...).
pub(crate) fn pattern_clause<'p>(pattern: &LinkPattern<'p>, dialect: Dialect) -> (String, Vec<&'p str>) {
    let (conditions, values) = pattern_conditions(pattern, dialect, 2);
    (format!("perspective = {}{conditions}", dialect.param(1)), values)
}

/// ` AND column = ?n` per given part of the pattern, numbered from `first`, with their values.
pub(crate) fn pattern_conditions<'p>(
    pattern: &LinkPattern<'p>,
    dialect: Dialect,
    first: usize,
) -> (String, Vec<&'p str>) {
    let mut conditions = String::new();
    let mut values = Vec::new();
    for (column, value) in [
        ("source", pattern.source),
        ("predicate", pattern.predicate),
        ("target", pattern.target),
    ] {
        if let Some(value) = value {
            let param = dialect.param(first + values.len());
            conditions.push_str(" AND ");
            conditions.push_str(&match column {
                "target" => dialect.target_equals(&param, pattern.predicate.is_some() && pattern.source.is_none()),
                _ => format!("{column} = {param}"),
            });
            values.push(value);
        }
    }
    (conditions, values)
}

/// Most sources one statement of `ReadTx::links_from` names (each a bound parameter).
pub(crate) const SOURCES_PER_READ: usize = 500;

/// The links out of `sources` (of `predicates` only, unless empty), by source and then by
/// (timestamp, seq) within each (as `ReadTx::links_from` promises),
/// and the parameters after the perspective's.
pub(crate) fn links_from_sql<'a>(
    sources: &'a [String],
    predicates: &'a [String],
    dialect: Dialect,
) -> (String, Vec<&'a str>) {
    let mut values: Vec<&str> = Vec::with_capacity(sources.len() + predicates.len());
    let list = |items: &'a [String], values: &mut Vec<&'a str>| {
        let names: Vec<String> = items
            .iter()
            .map(|item| {
                values.push(item);
                dialect.param(values.len() + 1)
            })
            .collect();
        names.join(", ")
    };
    let sources = list(sources, &mut values);
    let mut sql = format!(
        "SELECT source, predicate, target, author, timestamp, id, local FROM links{} \
         WHERE perspective = {} AND source IN ({sources})",
        dialect.links_from_index,
        dialect.param(1)
    );
    if !predicates.is_empty() {
        let predicates = list(predicates, &mut values);
        sql.push_str(&format!(" AND predicate IN ({predicates})"));
    }
    sql.push_str(" ORDER BY source, timestamp, id");
    (sql, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_clauses_number_their_parameters() {
        let pattern = LinkPattern {
            source: None,
            predicate: Some("p"),
            target: Some("t"),
        };
        assert_eq!(
            pattern_clause(&pattern, SQLITE),
            (
                "perspective = ?1 AND predicate = ?2 AND value_key = shacl_value_key(?3) AND target = ?3".to_string(),
                vec!["p", "t"]
            )
        );
        assert_eq!(
            pattern_clause(&pattern, POSTGRES),
            (
                "perspective = $1 AND predicate = $2 AND hashtextextended(target, 0) = hashtextextended($3, 0) \
                 AND target = $3"
                    .to_string(),
                vec!["p", "t"]
            )
        );
        assert_eq!(
            pattern_clause(&LinkPattern::default(), SQLITE),
            ("perspective = ?1".to_string(), vec![])
        );
    }
}
