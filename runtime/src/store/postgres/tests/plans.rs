//! Every query shape is served by an index (the target's through its hash).

use tokio_postgres::types::ToSql;

use super::*;
use crate::store::sql::{self, POSTGRES};
use crate::store::tests::{P, clock, seed};
use crate::store::{KeyCondition, KeyRange, LinkPattern, Order, SourceQuery, source_sql};

/// The plan of `sql` with `params`, sequential scans priced out: one that remains has no index
/// to use instead.
fn plan(store: &PostgresStore, sql: &str, params: &[&(dyn ToSql + Sync)]) -> String {
    let conn = store.pool.take().unwrap();
    conn.batch("SET enable_seqscan = off").unwrap();
    let rows = conn.query(&format!("EXPLAIN {sql}"), params).unwrap();
    conn.batch("RESET enable_seqscan").unwrap();
    rows.iter().map(|row| get::<String>(row, 0).unwrap() + "\n").collect()
}

#[test]
fn queries_use_indexes() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let store = fixture.node("plans", clock());
    seed(&store, &[("a", "p", "x")]);
    let id = 1i64;
    let mut statements: Vec<(String, Vec<&str>)> = Vec::new();
    let full = SourceQuery {
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
            last: Some(vec![KeyRange {
                low: "s:".into(),
                high: "s;".into(),
            }]),
        }],
        among: Some(vec!["a".into(), "b".into()]),
    };
    let sets = source_sql::sets(&full).unwrap();
    // Whichever set drives (and with none), every step goes through an index.
    for driver in 0..=sets.len() {
        statements.push(source_sql::sources_sql(&sets, driver, Order::NewestFirst, POSTGRES));
    }
    for set in &sets {
        statements.push(source_sql::count_sql(set, 10, POSTGRES));
    }
    // A page in order over every source, and the totals (from each set, or over every source).
    statements.push(source_sql::page_sql(&sets, Order::OldestFirst, (20, 10), POSTGRES));
    for driver in (0..sets.len()).map(Some).chain([None]) {
        statements.push(source_sql::total_sql(&sets, driver, POSTGRES));
    }
    let (sources, predicates) = (["a".to_string(), "b".to_string()], ["p".to_string()]);
    statements.push(sql::links_from_sql(&sources, &predicates, POSTGRES));
    statements.push(sql::links_from_sql(&sources, &[], POSTGRES));
    let patterns = [
        LinkPattern {
            source: Some("s"),
            ..Default::default()
        },
        LinkPattern {
            source: Some("s"),
            predicate: Some("p"),
            target: Some("t"),
        },
        LinkPattern {
            predicate: Some("p"),
            target: Some("t"),
            ..Default::default()
        },
        LinkPattern {
            target: Some("t"),
            ..Default::default()
        },
    ];
    for pattern in &patterns {
        let (clause, values) = sql::pattern_clause(pattern, POSTGRES);
        statements.push((
            format!("SELECT id FROM links WHERE {clause} ORDER BY timestamp, id"),
            values,
        ));
    }
    for (sql, values) in &statements {
        let params = queries::with_perspective(&id, values);
        let plan = plan(&store, sql, &params);
        assert!(
            plan.contains("Index") && !plan.contains("Seq Scan on links") && !plan.contains("Seq Scan on sources"),
            "{sql}\n{plan}"
        );
        // A lookup by target without a source (whose index serves best otherwise) reaches the
        // index through the target's hash, not through the perspective only.
        if sql.contains("hashtextextended") && !sql.contains("source = $2") {
            assert!(
                plan.lines()
                    .any(|line| line.contains("Index Cond") && line.contains("hashtextextended")),
                "{sql}\n{plan}"
            );
        }
    }
    let sources: &[&str] = &["a"];
    let plan = plan(
        &store,
        "SELECT DISTINCT ON (source) source, timestamp, id FROM links \
         WHERE perspective = $1 AND source = ANY($2) ORDER BY source, timestamp, id",
        &[&id, &sources],
    );
    assert!(plan.contains("Index") && !plan.contains("Seq Scan"), "{plan}");
}

/// The source queries are planned for their values on every execution: none is left a prepared
/// statement of the connection, which PostgreSQL would plan generically after its fifth
/// execution (`PgClient::query_planned`). The connection that answered them is the one asked:
/// a single thread gets the pool's last idle connection back.
#[test]
fn source_queries_are_never_prepared() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let store = fixture.node("planned", clock());
    seed(&store, &[("a", "p", "x"), ("b", "p", "y"), ("a", "k", "v")]);
    let query = SourceQuery {
        all_of: vec![("p".into(), "x".into())],
        keyed: vec![KeyCondition {
            predicate: "k".into(),
            keys: vec!["i:v".into()],
            ranges: vec![],
            last: Some(vec![]),
        }],
        ..Default::default()
    };
    for _ in 0..7 {
        let tx = store.read().unwrap();
        assert_eq!(
            tx.source_page(P, &query, Order::OldestFirst, 0, 10).unwrap(),
            (vec!["a".to_string()], 1)
        );
        assert_eq!(tx.sources(P, &query, Order::OldestFirst).unwrap(), ["a"]);
    }
    let conn = store.pool.take().unwrap();
    let prepared: Vec<String> = conn
        .query("SELECT statement FROM pg_prepared_statements", &[])
        .unwrap()
        .iter()
        .map(|row| get(row, 0).unwrap())
        .collect();
    assert!(
        prepared.iter().any(|s| s.contains("FROM perspectives")),
        "the connection that read is not the one asked: {prepared:#?}"
    );
    assert!(
        !prepared
            .iter()
            .any(|s| s.contains("links AS k") || s.contains("sources AS s")),
        "{prepared:#?}"
    );
}

/// A bulk write is analyzed by the node that wrote it, in the background, rather than left to
/// autovacuum's next round (`statistics`): the planner then knows the table it plans for.
#[test]
fn a_bulk_write_is_analyzed_without_waiting_for_autovacuum() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let store = fixture.node("analyzed", clock());
    let last_analyze = |store: &PostgresStore| {
        let conn = store.pool.take().unwrap();
        let row = conn
            .query_one(
                "SELECT last_analyze IS NOT NULL, (SELECT reltuples FROM pg_class WHERE oid = 'links'::regclass) \
                 FROM pg_stat_user_tables WHERE relid = 'links'::regclass",
                &[],
            )
            .unwrap();
        (get::<bool>(&row, 0).unwrap(), get::<f32>(&row, 1).unwrap())
    };
    let sources: Vec<String> = (0..statistics::MIN_CHANGED).map(|i| format!("s{i}")).collect();
    let links: Vec<(&str, &str, &str)> = sources.iter().map(|s| (s.as_str(), "p", "t")).collect();
    seed(&store, &links[..10]);
    assert!(!last_analyze(&store).0, "ten links are left to autovacuum");
    seed(&store, &links[10..]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let (analyzed, rows) = loop {
        let (analyzed, rows) = last_analyze(&store);
        if analyzed || std::time::Instant::now() > deadline {
            break (analyzed, rows);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(analyzed, "no ANALYZE ran within 30 s of writing {} links", links.len());
    assert_eq!(rows, links.len() as f32);
}
