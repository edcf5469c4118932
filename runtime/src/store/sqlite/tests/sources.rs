//! The SQL of `sources()` and its query plans.

use super::*;
use crate::store::sql::{self, SQLITE};
use crate::store::{KeyCondition, KeyRange, source_sql};

#[test]
fn queries_use_indexes() {
    let store = store();
    seed(&store, &[("a", "p", "x")]);
    let conn = lock_writer(&store);
    let query = SourceQuery {
        all_of: vec![("p".into(), "t".into())],
        any_of: vec![vec![("a".into(), "1".into()), ("a".into(), "2".into())]],
        child_of: Some("parent".into()),
        keyed: vec![KeyCondition {
            predicate: "k".into(),
            keys: vec!["s:x".into(), "i:x".into()],
            ranges: vec![KeyRange {
                low: "n:".into(),
                high: "n;".into(),
            }],
        }],
        among: Some(vec!["a".into(), "b".into()]),
    };
    let sets = source_sql::sets(&query).unwrap();
    // Whichever set drives, every step goes through an index.
    let mut statements: Vec<String> = (0..=sets.len())
        .map(|driver| source_sql::sources_sql(&sets, driver, Order::NewestFirst, SQLITE).0)
        .collect();
    statements.extend(sets.iter().map(|set| source_sql::count_sql(set, 10, SQLITE).0));
    // Keys alone (no range): without the index named, SQLite would walk the perspective in
    // source order for the DISTINCT.
    let keys_only = SourceQuery {
        all_of: vec![("p".into(), "t".into())],
        keyed: vec![KeyCondition {
            predicate: "k".into(),
            keys: vec!["s:x".into(), "i:x".into()],
            ranges: vec![],
        }],
        ..Default::default()
    };
    let sets = source_sql::sets(&keys_only).unwrap();
    statements.push(source_sql::sources_sql(&sets, 0, Order::OldestFirst, SQLITE).0);
    statements.push(source_sql::count_sql(&sets[0], 10, SQLITE).0);
    let (sources, predicates) = (["a".to_string(), "b".to_string()], ["p".to_string()]);
    statements.push(sql::links_from_sql(&sources, &predicates, SQLITE).0);
    statements.push(sql::links_from_sql(&sources, &[], SQLITE).0);
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
        // A search of links by the perspective alone walks all of it, as a scan would.
        assert!(
            !plan.iter().any(|step| step.starts_with("SCAN links")
                || step.starts_with("SCAN sources")
                || (step.starts_with("SEARCH links") && step.ends_with("(perspective=?)"))),
            "{sql}\n{plan:#?}"
        );
    }
}
