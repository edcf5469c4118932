//! The SQL of `sources()` and its query plans.

use super::*;

#[test]
fn sources_sql_reads_like_this() {
    let query = SourceQuery {
        all_of: vec![("p".into(), "t".into())],
        any_of: vec![vec![("a".into(), "1".into()), ("a".into(), "2".into())]],
        child_of: Some("parent".into()),
    };
    let (sql, params) = queries::sources_sql(&query, Order::NewestFirst).unwrap();
    assert_eq!(params.len(), 8);
    assert_eq!(
        sql,
        "SELECT s.source FROM (\
         SELECT DISTINCT source AS node FROM links WHERE perspective = ?1 AND predicate = ?2 AND target = ?3 INTERSECT \
         SELECT node FROM (\
         SELECT DISTINCT source AS node FROM links WHERE perspective = ?1 AND predicate = ?4 AND target = ?5 UNION \
         SELECT DISTINCT source AS node FROM links WHERE perspective = ?1 AND predicate = ?6 AND target = ?7) AS any_of \
         INTERSECT \
         SELECT DISTINCT target AS node FROM links WHERE perspective = ?1 AND source = ?8 AND predicate = ?9) AS m \
         CROSS JOIN sources AS s ON s.perspective = ?1 AND s.source = m.node \
         ORDER BY s.first_ts DESC, s.first_seq DESC"
    );
}

#[test]
fn queries_use_indexes() {
    let store = store();
    seed(&store, &[("a", "p", "x")]);
    let conn = lock_writer(&store);
    let query = SourceQuery {
        all_of: vec![("p".into(), "t".into())],
        any_of: vec![vec![("a".into(), "1".into()), ("a".into(), "2".into())]],
        child_of: Some("parent".into()),
    };
    let only_all_of = SourceQuery {
        all_of: vec![("p".into(), "t".into())],
        ..Default::default()
    };
    let mut statements: Vec<String> = [&query, &only_all_of, &SourceQuery::default()]
        .into_iter()
        .map(|query| queries::sources_sql(query, Order::NewestFirst).unwrap().0)
        .collect();
    statements.push(
        "SELECT timestamp, id FROM links WHERE perspective = ?1 AND source = ?2 ORDER BY timestamp, id LIMIT 1".into(),
    );
    for sql in statements {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let count = stmt.parameter_count();
        let params: Vec<String> = (0..count).map(|i| i.to_string()).collect();
        let plan: Vec<String> = stmt
            .query_map(rusqlite::params_from_iter(&params), |row| row.get(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(
            !plan
                .iter()
                .any(|step| step.starts_with("SCAN links") || step.starts_with("SCAN sources")),
            "{sql}\n{plan:#?}"
        );
    }
}
