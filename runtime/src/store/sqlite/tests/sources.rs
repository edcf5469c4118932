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
            // A scalar's: the link must be the last of the counted ones.
            last: Some(vec![KeyRange {
                low: "s:".into(),
                high: "s;".into(),
            }]),
        }],
        among: Some(vec!["a".into(), "b".into()]),
    };
    let sets = source_sql::sets(&query).unwrap();
    // Whichever set drives, every step goes through an index.
    let mut statements: Vec<String> = (0..=sets.len())
        .map(|driver| source_sql::sources_sql(&sets, driver, Order::NewestFirst, SQLITE).0)
        .collect();
    statements.extend(sets.iter().map(|set| source_sql::count_sql(set, 10, SQLITE).0));
    // A page in order over every source, and the totals (from each set, or over every source).
    statements.push(source_sql::page_sql(&sets, Order::OldestFirst, (20, 10), SQLITE).0);
    // In order, the page ends after its rows: the walk is in the index's order, never sorted.
    let in_order = source_sql::page_sql(&sets, Order::NewestFirst, (0, 10), SQLITE).0;
    let in_order_plan = plan(&conn, &in_order);
    assert!(
        in_order_plan[0] == "SEARCH s USING COVERING INDEX sources_first (perspective=?)"
            && !in_order_plan.iter().any(|step| step.contains("TEMP B-TREE")),
        "{in_order_plan:#?}"
    );
    statements.extend((0..sets.len()).map(|i| source_sql::total_sql(&sets, Some(i), SQLITE).0));
    statements.push(source_sql::total_sql(&sets, None, SQLITE).0);
    // Keys alone (no range): without the index named, SQLite would walk the perspective in
    // source order for the DISTINCT.
    let keys_only = SourceQuery {
        all_of: vec![("p".into(), "t".into())],
        keyed: vec![KeyCondition {
            predicate: "k".into(),
            keys: vec!["s:x".into(), "i:x".into()],
            ranges: vec![],
            last: None,
        }],
        ..Default::default()
    };
    let sets = source_sql::sets(&keys_only).unwrap();
    statements.push(source_sql::sources_sql(&sets, 0, Order::OldestFirst, SQLITE).0);
    statements.push(source_sql::count_sql(&sets[0], 10, SQLITE).0);
    let (sources, predicates) = (["a".to_string(), "b".to_string()], ["p".to_string()]);
    statements.push(sql::links_from_sql(&sources, &predicates, SQLITE).0);
    statements.push(sql::links_from_sql(&sources, &[], SQLITE).0);
    // What keeps each source's order key: its first link, and the copies in its links.
    statements.extend([super::order_key::FIRST_LINK, super::order_key::RELINK].map(str::to_string));
    // query_links by pattern (its columns, which no index covers).
    for (source, predicate, target) in [
        (None, Some("p"), Some("t")),
        (None, None, Some("t")),
        (Some("a"), Some("p"), Some("t")),
    ] {
        let pattern = LinkPattern {
            source,
            predicate,
            target,
        };
        let (clause, _) = sql::pattern_clause(&pattern, SQLITE);
        statements.push(format!(
            "SELECT source, predicate, target, author, timestamp, id, local FROM links WHERE {clause}"
        ));
        statements.push(crate::store::sqlite::queries::remove_links_sql(&clause));
    }
    // What keeps the `superseded` flag: each reads the links of one source and predicate.
    statements.extend(
        [
            super::superseded::SUPERSEDE_EARLIER,
            super::superseded::SUPERSEDE_ITSELF,
            super::superseded::RESTORE_LAST,
        ]
        .map(str::to_string),
    );
    let mut later_probes = 0;
    for sql in statements {
        let plan = plan(&conn, &sql);
        // The probe for a later link reads the links of one source and predicate.
        for step in plan.iter().filter(|step| step.contains(" later ")) {
            later_probes += 1;
            assert!(
                step.contains("INDEX links_source_predicate (source=? AND perspective=? AND predicate=?)"),
                "{sql}\n{plan:#?}"
            );
        }
        // A search of links by the perspective alone walks all of it, as a scan would.
        assert!(
            !plan.iter().any(|step| step.starts_with("SCAN links")
                || step.starts_with("SCAN sources")
                || step.starts_with("SCAN k ")
                || step.starts_with("SCAN s ")
                || (step.starts_with("SEARCH links") && step.ends_with("(perspective=?)"))),
            "{sql}\n{plan:#?}"
        );
    }
    assert!(later_probes > 0);
}

/// The steps of the plan of `sql`, each parameter bound to a number.
fn plan(conn: &rusqlite::Connection, sql: &str) -> Vec<String> {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let params: Vec<String> = (0..stmt.parameter_count()).map(|i| i.to_string()).collect();
    stmt.query_map(rusqlite::params_from_iter(&params), |row| row.get(3))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// The one step of the plan of `sql` that touches `links`.
fn links_step(conn: &rusqlite::Connection, sql: &str) -> String {
    let steps: Vec<String> = plan(conn, sql)
        .into_iter()
        .filter(|step| step.contains(" links "))
        .collect();
    assert_eq!(steps.len(), 1, "{sql}\n{steps:#?}");
    steps.into_iter().next().unwrap()
}

/// A filter on one value of a scalar, driving a page, reads its matches from the value's entries
/// in order (the order key follows the value key in `links_predicate_value`): nothing is sorted.
#[test]
fn one_value_gives_its_matches_in_order() {
    let store = store();
    let conn = lock_writer(&store);
    let query = SourceQuery {
        all_of: vec![("ad4m://type".into(), "todo://Task".into())],
        keyed: vec![KeyCondition {
            predicate: "todo://status".into(),
            keys: vec!["s:done".into()],
            ranges: vec![],
            last: Some(vec![]),
        }],
        ..Default::default()
    };
    let sets = source_sql::sets(&query).unwrap();
    for order in [Order::OldestFirst, Order::NewestFirst] {
        let sql = source_sql::sources_sql(&sets, 0, order, SQLITE).0;
        let plan = plan(&conn, &sql);
        assert!(
            plan[0].ends_with("INDEX links_predicate_value (perspective=? AND predicate=? AND value_key=?)")
                && !plan.iter().any(|step| step.contains("TEMP B-TREE")),
            "{sql}\n{plan:#?}"
        );
    }
    drop(conn);
    // And in order it is: by first link, not by name, whichever way.
    seed(&store, &[]);
    for source in ["c", "a", "d", "b"] {
        add(
            &store,
            &[
                (source, "ad4m://type", "todo://Task"),
                (source, "todo://status", "literal:string:done"),
            ],
        );
    }
    let read = store.read().unwrap();
    assert_eq!(
        read.sources(P, &query, Order::OldestFirst).unwrap(),
        ["c", "a", "d", "b"]
    );
    assert_eq!(
        read.sources(P, &query, Order::NewestFirst).unwrap(),
        ["b", "d", "a", "c"]
    );
}

#[test]
fn a_lookup_by_predicate_and_target_seeks_its_key_in_the_one_predicate_index() {
    let store = store();
    let conn = lock_writer(&store);
    let pattern = LinkPattern {
        source: None,
        predicate: Some("p"),
        target: Some("t"),
    };
    let (clause, _) = sql::pattern_clause(&pattern, SQLITE);
    // The key's entries are the value's spellings (and long texts cut at the same length): the
    // target is checked on those, in the index.
    let step = links_step(&conn, &format!("SELECT source FROM links WHERE {clause}"));
    assert_eq!(
        step,
        "SEARCH links USING COVERING INDEX links_predicate_value (perspective=? AND predicate=? AND value_key=?)"
    );
    let indexes: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'links' ORDER BY name")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        indexes,
        [
            "links_predicate_value",
            "links_source_predicate",
            "links_source_time",
            "links_target"
        ]
    );
}

/// A version-5 database (two indexes by predicate) migrates to the one index and answers the same:
/// lookups by exact target and by value key, whatever the spelling.
#[test]
fn a_version_5_database_migrates_to_one_index_by_predicate_and_value() {
    let dir = TempDir::new();
    let path = dir.0.join("store.db");
    let links = [
        ("a", "ad4m://type", "todo://Task"),
        ("b", "ad4m://type", "todo://Task"),
        ("c", "ad4m://type", "todo://Note"),
        ("a", "todo://size", "literal:number:3"),
        ("b", "todo://size", "literal://number:3.0"),
        ("c", "todo://size", "literal:string:3"),
    ];
    let typed = |target: &str| SourceQuery {
        all_of: vec![("ad4m://type".into(), target.into())],
        ..Default::default()
    };
    let three = SourceQuery {
        keyed: vec![KeyCondition {
            predicate: "todo://size".into(),
            keys: vec![crate::value_key::number_key(3.0)],
            ranges: vec![],
            last: None,
        }],
        ..Default::default()
    };
    let answers = |store: &SqliteStore| {
        let read = store.read().unwrap();
        let tasks = read.sources(P, &typed("todo://Task"), Order::OldestFirst).unwrap();
        let threes = read.sources(P, &three, Order::OldestFirst).unwrap();
        let exact = LinkPattern {
            source: None,
            predicate: Some("todo://size"),
            target: Some("literal://number:3.0"),
        };
        let spelled = triples(&read.links(P, exact, None, 0).unwrap()).len();
        (tasks, threes, spelled)
    };
    // The Tasks, the sizes equal to 3 whatever the spelling (not the string "3"), one link spelled so.
    let ab = vec!["a".to_string(), "b".to_string()];
    let expected = (ab.clone(), ab, 1);
    {
        let store = SqliteStore::open(&path, clock()).unwrap();
        seed(&store, &links);
        assert_eq!(answers(&store), expected);
        store.execute_sql(&format!(
            "{UNDO_V6} UPDATE meta SET value = 5 WHERE key = 'schema_version';"
        ));
    }
    let store = SqliteStore::open(&path, clock()).unwrap();
    assert_eq!(answers(&store), expected);
    let conn = lock_writer(&store);
    let version: i64 = conn
        .query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    let old: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('links_predicate_target', 'links_predicate_key')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(old, 0);
    drop(conn);
    assert!(store.verify().unwrap().failures.is_empty());
}

/// How many links of `P` hold an order key other than their source's first link (timestamp,
/// seq), or other than their source's row in `sources`; and how many links there are.
fn stale_order_keys(store: &SqliteStore) -> (i64, i64) {
    let conn = lock_writer(store);
    let stale = conn
        .query_row(
            "SELECT COUNT(*) FROM links AS l JOIN sources AS s ON s.source = l.source AND s.perspective = l.perspective \
             WHERE (l.first_ts, l.first_seq) <> (s.first_ts, s.first_seq) \
             OR (l.first_ts, l.first_seq) <> (SELECT timestamp, id FROM links AS f \
                 WHERE f.source = l.source AND f.perspective = l.perspective ORDER BY timestamp, id LIMIT 1)",
            [],
            |row| row.get(0),
        )
        .unwrap();
    let links = conn
        .query_row("SELECT COUNT(*) FROM links", [], |row| row.get(0))
        .unwrap();
    (stale, links)
}

/// Each link holds its source's order key through every write that moves it (a clock that
/// stepped back, a removal and an erasure of a first link, a source emptied and written again in
/// one transaction), and a version-8 database, whose links hold none, gets them as it migrates.
#[test]
fn links_hold_their_sources_order_key_and_a_version_8_database_gets_it() {
    let dir = TempDir::new();
    let path = dir.0.join("store.db");
    let clock = clock();
    let of = |source, predicate| LinkPattern {
        source: Some(source),
        predicate: Some(predicate),
        target: None,
    };
    let with_z = SourceQuery {
        all_of: vec![("s".into(), "z".into())],
        ..Default::default()
    };
    // Ordered by their first links, not by name nor by their links of `s`.
    let answers = |store: &SqliteStore| {
        let read = store.read().unwrap();
        [Order::OldestFirst, Order::NewestFirst].map(|order| read.sources(P, &with_z, order).unwrap())
    };
    let expected = [["c", "a", "b"], ["b", "a", "c"]];
    {
        let store = SqliteStore::open(&path, clock.clone()).unwrap();
        seed(&store, &[("a", "p", "1"), ("a", "q", "x"), ("b", "p", "1")]);
        clock.advance(-100);
        // The second link of `a` here takes the moved key from the transaction's cache.
        add(&store, &[("a", "r", "y"), ("a", "r", "w"), ("c", "p", "2")]);
        assert_eq!(stale_order_keys(&store), (0, 6), "a clock that stepped back");
        clock.advance(100);
        let mut tx = store.write().unwrap();
        tx.remove_links(P, of("a", "r")).unwrap();
        tx.commit().unwrap();
        assert_eq!(stale_order_keys(&store), (0, 4), "a first link removed");
        let mut tx = store.write().unwrap();
        tx.erase_links(P, &[of("a", "p")]).unwrap();
        tx.commit_erasure().unwrap();
        assert_eq!(stale_order_keys(&store), (0, 3), "a first link erased");
        let mut tx = store.write().unwrap();
        tx.remove_links(P, of("b", "p")).unwrap();
        tx.add_link(P, crate::store::tests::new_link("b", "s", "z")).unwrap();
        tx.commit().unwrap();
        // Second links, whose own (timestamp, seq) is not their source's key.
        add(&store, &[("a", "s", "z"), ("c", "s", "z")]);
        assert_eq!(stale_order_keys(&store), (0, 5), "emptied and written again");
        assert_eq!(answers(&store), expected);
        store.execute_sql(concat!(
            super::undo_v9!(),
            "UPDATE meta SET value = 8 WHERE key = 'schema_version';"
        ));
    }
    let store = SqliteStore::open(&path, clock).unwrap();
    assert_eq!(stale_order_keys(&store), (0, 5), "migrated");
    assert_eq!(answers(&store), expected);
    assert!(store.verify().unwrap().failures.is_empty());
}
