//! SQL text that both SQL stores build the same way, in the small ways their dialects differ.
//!
//! Every value from a caller is a bound parameter; only fixed SQL text is ever spliced. The
//! builders return the SQL and the text parameters that follow the perspective's row id
//! (always parameter 1); each store binds them with its driver.

use crate::store::{LinkPattern, Order, SourceQuery};

/// The predicate of the parent edge that `SourceQuery::child_of` follows.
pub const HAS_CHILD: &str = "ad4m://has_child";

/// How one SQL dialect spells what the builders need.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dialect {
    /// Before a parameter's number: `?1` or `$1`.
    param: char,
    /// How the matches of [`sources_sql`] join `sources`.
    join_matches: &'static str,
    /// Whether the indexes hold `hashtextextended(target, 0)` rather than `target` (see
    /// [`POSTGRES`]), so that a lookup by target names that expression.
    hashed_target: bool,
}

/// SQLite: `CROSS JOIN` keeps the matches as the outer loop (a primary-key probe per match, then a
/// sort of the matches, rather than a walk over every source of the perspective).
pub(crate) const SQLITE: Dialect = Dialect {
    param: '?',
    join_matches: "CROSS JOIN",
    hashed_target: false,
};

/// PostgreSQL: no `CROSS JOIN ... ON` (its planner picks the join order itself). A btree entry
/// holds at most 2704 bytes and a target may be a long literal, so the indexes hold a 64-bit hash
/// of the target: a lookup matches the hash (through the index) and then the text.
pub(crate) const POSTGRES: Dialect = Dialect {
    param: '$',
    join_matches: "JOIN",
    hashed_target: true,
};

impl Dialect {
    fn param(self, n: usize) -> String {
        format!("{}{n}", self.param)
    }

    /// `column = ?n`, for a column of `links`.
    fn equals(self, column: &str, n: usize) -> String {
        let param = self.param(n);
        if column == "target" && self.hashed_target {
            format!("hashtextextended(target, 0) = hashtextextended({param}, 0) AND target = {param}")
        } else {
            format!("{column} = {param}")
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
            conditions.push_str(" AND ");
            conditions.push_str(&dialect.equals(column, first + values.len()));
            values.push(value);
        }
    }
    (conditions, values)
}

/// The SQL of `ReadTx::sources` and its parameters after the perspective's; `None` when an empty
/// `any_of` group makes the answer empty.
pub(crate) fn sources_sql(query: &SourceQuery, order: Order, dialect: Dialect) -> Option<(String, Vec<&str>)> {
    let mut values: Vec<&str> = Vec::new();
    let mut sets = Vec::new();
    for (predicate, target) in &query.all_of {
        sets.push(sources_with_link(values.len(), dialect));
        values.push(predicate);
        values.push(target);
    }
    for group in &query.any_of {
        if group.is_empty() {
            return None;
        }
        let mut alternatives = Vec::with_capacity(group.len());
        for (predicate, target) in group {
            alternatives.push(sources_with_link(values.len(), dialect));
            values.push(predicate);
            values.push(target);
        }
        // PostgreSQL before 16 wants a name for every subquery in FROM.
        sets.push(format!("SELECT node FROM ({}) AS any_of", alternatives.join(" UNION ")));
    }
    let p1 = dialect.param(1);
    if let Some(parent) = &query.child_of {
        let n = values.len() + 2;
        sets.push(format!(
            "SELECT DISTINCT target AS node FROM links WHERE perspective = {p1} AND source = {} AND predicate = {}",
            dialect.param(n),
            dialect.param(n + 1)
        ));
        values.push(parent);
        values.push(HAS_CHILD);
    }
    let direction = match order {
        Order::OldestFirst => "ASC",
        Order::NewestFirst => "DESC",
    };
    let sql = if sets.is_empty() {
        format!(
            "SELECT source FROM sources WHERE perspective = {p1} ORDER BY first_ts {direction}, first_seq {direction}"
        )
    } else {
        format!(
            "SELECT s.source FROM ({}) AS m {} sources AS s ON s.perspective = {p1} AND s.source = m.node \
             ORDER BY s.first_ts {direction}, s.first_seq {direction}",
            sets.join(" INTERSECT "),
            dialect.join_matches
        )
    };
    Some((sql, values))
}

/// Sources of a `(predicate, target)` link whose parameters follow the `pushed` ones (and the
/// perspective's).
fn sources_with_link(pushed: usize, dialect: Dialect) -> String {
    let n = pushed + 2;
    format!(
        "SELECT DISTINCT source AS node FROM links WHERE perspective = {} AND predicate = {} AND {}",
        dialect.param(1),
        dialect.param(n),
        dialect.equals("target", n + 1)
    )
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
                "perspective = ?1 AND predicate = ?2 AND target = ?3".to_string(),
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

    #[test]
    fn postgres_sources_sql_reads_like_this() {
        let query = SourceQuery {
            all_of: vec![],
            any_of: vec![vec![("a".into(), "1".into()), ("a".into(), "2".into())]],
            child_of: Some("parent".into()),
        };
        let (sql, values) = sources_sql(&query, Order::OldestFirst, POSTGRES).unwrap();
        assert_eq!(values, ["a", "1", "a", "2", "parent", HAS_CHILD]);
        assert_eq!(
            sql,
            "SELECT s.source FROM (SELECT node FROM (\
             SELECT DISTINCT source AS node FROM links WHERE perspective = $1 AND predicate = $2 \
             AND hashtextextended(target, 0) = hashtextextended($3, 0) AND target = $3 UNION \
             SELECT DISTINCT source AS node FROM links WHERE perspective = $1 AND predicate = $4 \
             AND hashtextextended(target, 0) = hashtextextended($5, 0) AND target = $5\
             ) AS any_of INTERSECT \
             SELECT DISTINCT target AS node FROM links WHERE perspective = $1 AND source = $6 AND predicate = $7) AS m \
             JOIN sources AS s ON s.perspective = $1 AND s.source = m.node \
             ORDER BY s.first_ts ASC, s.first_seq ASC"
        );
    }
}
