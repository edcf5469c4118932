//! Value keys: every spelling of a value is found by its key, ranges follow the keys' order, and
//! a database from before the keys migrates and answers the same.

use super::*;
use crate::store::{KeyCondition, KeyRange};
use crate::value_key::{iri_key, kind_bounds, number_key, string_key};

const STATUS: &str = "app://status";
const SIZE: &str = "app://size";

fn links() -> Vec<(String, &'static str, String)> {
    let long = "x".repeat(5_000);
    vec![
        ("a".into(), STATUS, "literal:string:done".into()),
        ("b".into(), STATUS, "literal://string:done".into()),
        ("c".into(), STATUS, "literal:d%6Fne^^xsd:string".into()),
        ("d".into(), STATUS, "done".into()),
        ("e".into(), STATUS, "literal:string:open".into()),
        ("f".into(), STATUS, format!("literal:string:{long}a")),
        ("g".into(), STATUS, format!("literal:string:{long}b")),
        ("a".into(), SIZE, "literal:number:3".into()),
        ("b".into(), SIZE, "literal:3.0^^xsd:decimal".into()),
        ("c".into(), SIZE, "literal:number:-2.5".into()),
        ("d".into(), SIZE, "literal:number:1e300".into()),
        ("e".into(), SIZE, "literal:boolean:true".into()),
    ]
}

fn keyed(predicate: &str, keys: &[String], ranges: &[(String, String)]) -> SourceQuery {
    SourceQuery {
        keyed: vec![KeyCondition {
            predicate: predicate.into(),
            keys: keys.to_vec(),
            ranges: ranges
                .iter()
                .map(|(low, high)| KeyRange {
                    low: low.clone(),
                    high: high.clone(),
                })
                .collect(),
            last: None,
        }],
        ..Default::default()
    }
}

fn seed_spellings(store: &dyn TestStore) {
    let links = links();
    let triples: Vec<(&str, &str, &str)> = links.iter().map(|(s, p, t)| (s.as_str(), *p, t.as_str())).collect();
    seed(store, &triples);
}

/// What the queries of [`keys_find_every_spelling`] answer, in order.
fn answers(store: &dyn TestStore) -> Vec<Vec<String>> {
    let read = store.read().unwrap();
    let find = |query: &SourceQuery| read.sources(P, query, Order::OldestFirst).unwrap();
    let long = "x".repeat(5_000);
    let (n_low, n_high) = kind_bounds('n');
    vec![
        find(&keyed(STATUS, &[string_key("done")], &[])),
        find(&keyed(STATUS, &[string_key("done"), iri_key("done")], &[])),
        find(&keyed(STATUS, &[string_key(&format!("{long}a"))], &[])),
        find(&keyed(SIZE, &[number_key(3.0)], &[])),
        find(&keyed(SIZE, &[], &[(number_key(0.0), n_high.clone())])),
        find(&keyed(SIZE, &[], &[(n_low, number_key(0.0))])),
        find(&keyed(SIZE, &[], &[])),
        find(&SourceQuery {
            among: Some(vec!["e".into(), "b".into(), "nobody".into()]),
            ..keyed(STATUS, &[string_key("done"), string_key("open")], &[])
        }),
        find(&SourceQuery {
            all_of: vec![(SIZE.into(), "literal:number:3".into())],
            ..keyed(STATUS, &[string_key("done")], &[])
        }),
    ]
}

pub(crate) fn keys_find_every_spelling(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    seed_spellings(&*store);
    let expected: Vec<Vec<&str>> = vec![
        vec!["a", "b", "c"],
        vec!["a", "b", "c", "d"],
        // A long value's key is cut: the two long values share it.
        vec!["f", "g"],
        vec!["a", "b"],
        vec!["a", "b", "d"],
        vec!["c"],
        vec![],
        vec!["b", "e"],
        vec!["a"],
    ];
    assert_eq!(answers(&*store), expected);
    let read = store.read().unwrap();
    let from = read
        .links_from(P, &["c".into(), "a".into()], &[SIZE.into(), "app://none".into()])
        .unwrap();
    assert_eq!(
        triples(&from),
        [("a", SIZE, "literal:number:3"), ("c", SIZE, "literal:number:-2.5")]
    );
    assert_eq!(read.links_from(P, &["a".into()], &[]).unwrap().len(), 2);
    assert!(read.links_from(P, &[], &[]).unwrap().is_empty());
}

/// A store whose links were written before `value_key` existed: the migration fills the keys in.
pub(crate) fn a_database_from_before_value_keys_migrates(fixture: &dyn Fixture) {
    let store = fixture.open_named("before_keys", clock());
    seed_spellings(&*store);
    let before = answers(&*store);
    store.execute_sql(&fixture.downgrade_before_value_keys_sql());
    drop(store);
    let store = fixture.open_named("before_keys", clock());
    assert_eq!(answers(&*store), before);
    assert!(store.verify().unwrap().failures.is_empty());
}

/// A store whose `literal:lang:` links were keyed before they decoded as language-tagged
/// strings (their key was the whole text after `literal:`): the migration keys them again.
pub(crate) fn a_database_from_before_lang_keys_migrates(fixture: &dyn Fixture) {
    let store = fixture.open_named("before_lang_keys", clock());
    seed(
        &*store,
        &[
            ("a", STATUS, "literal:lang:de:Hallo"),
            ("b", STATUS, "literal:string:Hallo"),
        ],
    );
    let hallo = keyed(STATUS, &[string_key("Hallo")], &[]);
    let find = |store: &dyn TestStore| store.read().unwrap().sources(P, &hallo, Order::OldestFirst).unwrap();
    assert_eq!(find(&*store), ["a", "b"]);
    store.execute_sql(&fixture.downgrade_before_lang_keys_sql("literal:lang:de:Hallo", "s:lang:de:Hallo"));
    drop(store);
    let store = fixture.open_named("before_lang_keys", clock());
    assert_eq!(find(&*store), ["a", "b"]);
    assert!(store.verify().unwrap().failures.is_empty());
}
