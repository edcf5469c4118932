//! The `sources` index and `sources()` queries.

use super::*;
use crate::store::sql::HAS_CHILD;

pub(crate) fn removal_maintains_the_sources_index(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    let store = &*store;
    seed(
        store,
        &[("a", "p", "x"), ("b", "p", "x"), ("a", "q", "y"), ("c", "p", "x")],
    );
    assert_eq!(all_sources(store, Order::OldestFirst), ["a", "b", "c"]);
    assert_eq!(all_sources(store, Order::NewestFirst), ["c", "b", "a"]);

    let mut tx = store.write().unwrap();
    let pattern = LinkPattern {
        source: Some("a"),
        predicate: Some("p"),
        target: Some("x"),
    };
    assert_eq!(tx.remove_links(P, pattern).unwrap(), 1);
    assert_eq!(tx.remove_links(P, pattern).unwrap(), 0);
    tx.commit().unwrap();
    // a's first link is now (a, q, y), written after b's.
    assert_eq!(all_sources(store, Order::OldestFirst), ["b", "a", "c"]);
    let third_seq = store
        .read()
        .unwrap()
        .links(
            P,
            LinkPattern {
                source: Some("a"),
                ..Default::default()
            },
            None,
            0,
        )
        .unwrap()[0]
        .seq;
    assert_eq!(store.read().unwrap().first_link(P, "a").unwrap(), Some((T0, third_seq)));

    let mut tx = store.write().unwrap();
    assert_eq!(
        tx.remove_links(
            P,
            LinkPattern {
                source: Some("a"),
                ..Default::default()
            }
        )
        .unwrap(),
        1
    );
    tx.commit().unwrap();
    assert_eq!(all_sources(store, Order::OldestFirst), ["b", "c"]);
    assert_eq!(store.read().unwrap().first_link(P, "a").unwrap(), None);

    // Removing by target alone touches several sources.
    let mut tx = store.write().unwrap();
    assert_eq!(
        tx.remove_links(
            P,
            LinkPattern {
                target: Some("x"),
                ..Default::default()
            }
        )
        .unwrap(),
        2
    );
    tx.commit().unwrap();
    assert!(all_sources(store, Order::OldestFirst).is_empty());
    assert_eq!(store.read().unwrap().count_links(P, LinkPattern::default()).unwrap(), 0);
    assert!(store.verify().unwrap().failures.is_empty());
}

pub(crate) fn sources_match_all_of_any_of_and_child_of(fixture: &dyn Fixture) {
    let (ty, status, note) = ("rdf://type", "todo://status", "app://Note");
    let store = fixture.open(clock());
    seed(
        &*store,
        &[
            ("t1", ty, "app://Task"),
            ("t1", status, "open"),
            ("P", HAS_CHILD, "t1"),
            ("t2", ty, "app://Task"),
            ("t2", status, "done"),
            ("n", ty, note),
            ("n", status, "open"),
            ("t3", ty, "app://Task"),
            ("t3", status, "archived"),
            ("P", HAS_CHILD, "t3"),
            ("Q", HAS_CHILD, "t2"),
        ],
    );
    let read = store.read().unwrap();
    let find = |query: &SourceQuery, order| read.sources(P, query, order).unwrap();
    let task = SourceQuery {
        all_of: vec![(ty.into(), "app://Task".into())],
        ..Default::default()
    };
    assert_eq!(find(&task, Order::OldestFirst), ["t1", "t2", "t3"]);
    assert_eq!(find(&task, Order::NewestFirst), ["t3", "t2", "t1"]);
    let live = vec![(status.to_string(), "open".to_string()), (status.into(), "done".into())];
    let live_tasks = SourceQuery {
        any_of: vec![live.clone()],
        ..task.clone()
    };
    assert_eq!(find(&live_tasks, Order::OldestFirst), ["t1", "t2"]);
    assert_eq!(
        find(
            &SourceQuery {
                any_of: vec![live.clone()],
                ..Default::default()
            },
            Order::NewestFirst
        ),
        ["n", "t2", "t1"]
    );
    let under_p = SourceQuery {
        child_of: Some("P".into()),
        ..live_tasks.clone()
    };
    assert_eq!(find(&under_p, Order::OldestFirst), ["t1"]);
    let under_p = SourceQuery {
        child_of: Some("P".into()),
        ..Default::default()
    };
    assert_eq!(find(&under_p, Order::NewestFirst), ["t3", "t1"]);
    let two_all_of = SourceQuery {
        all_of: vec![(ty.into(), note.into()), (status.into(), "open".into())],
        ..Default::default()
    };
    assert_eq!(find(&two_all_of, Order::OldestFirst), ["n"]);
    let two_groups = SourceQuery {
        any_of: vec![live, vec![(ty.into(), note.into()), (status.into(), "archived".into())]],
        ..Default::default()
    };
    assert_eq!(find(&two_groups, Order::OldestFirst), ["n"]);
    assert!(
        find(
            &SourceQuery {
                any_of: vec![vec![]],
                ..task.clone()
            },
            Order::OldestFirst
        )
        .is_empty()
    );
    assert!(
        find(
            &SourceQuery {
                child_of: Some("nobody".into()),
                ..task
            },
            Order::OldestFirst
        )
        .is_empty()
    );
    assert_eq!(
        find(&SourceQuery::default(), Order::OldestFirst),
        ["t1", "P", "t2", "n", "t3", "Q"]
    );
}

pub(crate) fn duplicate_links_give_one_source_and_seqs_are_never_reused(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    let store = &*store;
    seed(
        store,
        &[
            ("a", "p", "x"),
            ("a", "p", "x"),
            ("P", HAS_CHILD, "a"),
            ("P", HAS_CHILD, "a"),
        ],
    );
    let read = store.read().unwrap();
    let by_link = SourceQuery {
        all_of: vec![("p".into(), "x".into())],
        ..Default::default()
    };
    assert_eq!(read.sources(P, &by_link, Order::OldestFirst).unwrap(), ["a"]);
    let by_parent = SourceQuery {
        child_of: Some("P".into()),
        ..Default::default()
    };
    assert_eq!(read.sources(P, &by_parent, Order::OldestFirst).unwrap(), ["a"]);
    drop(read);
    let mut tx = store.write().unwrap();
    assert_eq!(
        tx.remove_links(
            P,
            LinkPattern {
                source: Some("P"),
                ..Default::default()
            }
        )
        .unwrap(),
        2
    );
    tx.commit().unwrap();
    add(store, &[("b", "p", "x")]);
    // The new link's seq is none of the removed links' 3 and 4 (a store may leave a gap: seqs
    // drawn and not used).
    let seqs: Vec<i64> = all_links(store).iter().map(|l| l.seq).collect();
    assert_eq!(seqs[..2], [1, 2]);
    assert!(seqs.len() == 3 && seqs[2] > 4, "{seqs:?}");
}

/// A literal of 100 kB is written, found by target, removed and erased like any other.
pub(crate) fn long_values_are_found(fixture: &dyn Fixture) {
    let long: String = (0..20_000).map(|i| format!("{:x}", (i * 7919) % 65_521)).collect();
    let target = format!("literal:string:{long}");
    let store = fixture.open(clock());
    let store = &*store;
    seed(store, &[("a", "p", &target), ("b", "p", "short")]);
    let read = store.read().unwrap();
    let pattern = LinkPattern {
        target: Some(&target),
        ..Default::default()
    };
    assert_eq!(read.count_links(P, pattern).unwrap(), 1);
    let query = SourceQuery {
        all_of: vec![("p".into(), target.clone())],
        ..Default::default()
    };
    assert_eq!(read.sources(P, &query, Order::OldestFirst).unwrap(), ["a"]);
    drop(read);
    let mut tx = store.write().unwrap();
    assert_eq!(tx.remove_links(P, pattern).unwrap(), 1);
    tx.commit().unwrap();
    assert_eq!(all_sources(store, Order::OldestFirst), ["b"]);
    assert!(store.verify().unwrap().failures.is_empty());
}
