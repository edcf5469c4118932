//! Erasure (`forget`): links, index rows and hashes go for good; the signed lists of the
//! transactions that wrote them are redacted or deleted, and what survives still verifies.

use super::*;
use crate::store::{Erased, StoreError, StoredModel, WalState};

pub(crate) fn erasing_links_redacts_their_transactions(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    let store = &*store;
    // Transaction 1 writes a, b and c; transaction 2 another link of a.
    seed(store, &[("a", "p", "x"), ("b", "p", "y"), ("c", "p", "w")]);
    add(store, &[("a", "q", "z")]);
    // c is removed (its hash stays in transaction 1's list, stale).
    let mut tx = store.write().unwrap();
    tx.remove_links(
        P,
        LinkPattern {
            source: Some("c"),
            ..Default::default()
        },
    )
    .unwrap();
    tx.commit().unwrap();

    let mut tx = store.write().unwrap();
    let a = LinkPattern {
        source: Some("a"),
        ..Default::default()
    };
    let a_p = LinkPattern {
        predicate: Some("p"),
        ..a
    };
    // A link matching two patterns is erased once.
    let erased = tx.erase_links(P, &[a, a_p]).unwrap();
    let wal = tx.commit_erasure().unwrap();
    assert!(!matches!(wal, WalState::NotTruncated { .. }), "{wal:?}");
    assert_eq!(
        erased,
        Erased {
            links: 2,
            index_entries: 1,
            hashes: 2,
            stale_hashes: 1,
            transactions: 1,
            transactions_redacted: 1,
            ..Erased::default()
        }
    );
    assert_eq!(triples(&all_links(store)), [("b", "p", "y")]);
    assert_eq!(all_sources(store, Order::OldestFirst), ["b"]);
    let report = store.verify().unwrap();
    assert_eq!((report.transactions, report.links), (1, 1));
    assert!(report.failures.is_empty(), "{:?}", report.failures);

    // Erasing again finds nothing and changes nothing.
    let mut tx = store.write().unwrap();
    assert_eq!(tx.erase_links(P, &[a]).unwrap(), Erased::default());
    tx.commit_erasure().unwrap();
    assert!(store.verify().unwrap().failures.is_empty());
}

pub(crate) fn erasing_a_perspective_leaves_the_others_verified(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    let store = &*store;
    // One transaction writes to both perspectives.
    let mut tx = store.write().unwrap();
    tx.add_perspective(&perspective(P)).unwrap();
    tx.add_perspective(&perspective("second")).unwrap();
    tx.add_link(P, new_link("a", "p", "x")).unwrap();
    tx.add_link("second", new_link("a", "p", "x")).unwrap();
    tx.add_link("second", new_link("b", "p", "x")).unwrap();
    tx.put_model(
        P,
        &StoredModel {
            class_name: "C".into(),
            shacl_json: "{}".into(),
        },
    )
    .unwrap();
    tx.commit().unwrap();
    add(store, &[("c", "p", "y")]);

    let read = store.read().unwrap();
    let same = LinkPattern {
        source: Some("a"),
        predicate: Some("p"),
        target: Some("x"),
    };
    assert_eq!(
        read.count_links_elsewhere(P, same).unwrap(),
        [(perspective("second"), 1)]
    );
    assert_eq!(
        read.count_links_elsewhere(P, LinkPattern::default()).unwrap(),
        [(perspective("second"), 2)]
    );
    assert_eq!(
        read.count_links_elsewhere("second", same).unwrap(),
        [(perspective(P), 1)]
    );
    let other = LinkPattern {
        target: Some("y"),
        ..LinkPattern::default()
    };
    assert!(read.count_links_elsewhere(P, other).unwrap().is_empty());
    drop(read);

    let mut tx = store.write().unwrap();
    let erased = tx.erase_perspective(P).unwrap();
    tx.commit_erasure().unwrap();
    assert_eq!(
        erased,
        Erased {
            links: 2,
            index_entries: 2,
            hashes: 2,
            transactions: 1,
            transactions_redacted: 1,
            models: 1,
            perspectives: 1,
            ..Erased::default()
        }
    );
    let read = store.read().unwrap();
    assert_eq!(read.perspectives().unwrap(), [perspective("second")]);
    assert!(matches!(
        read.links(P, LinkPattern::default(), None, 0),
        Err(StoreError::NoPerspective(_))
    ));
    assert_eq!(read.count_links("second", LinkPattern::default()).unwrap(), 2);
    drop(read);
    let report = store.verify().unwrap();
    assert_eq!((report.transactions, report.links), (1, 2));
    assert!(report.failures.is_empty(), "{:?}", report.failures);
}

pub(crate) fn an_erasure_that_writes_links_is_refused(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    let store = &*store;
    seed(store, &[("a", "p", "x")]);
    let mut tx = store.write().unwrap();
    tx.erase_links(P, &[LinkPattern::default()]).unwrap();
    tx.add_link(P, new_link("b", "p", "x")).unwrap();
    assert!(matches!(tx.commit_erasure(), Err(StoreError::Database(_))));
    assert_eq!(triples(&all_links(store)), [("a", "p", "x")]);
    assert!(store.verify().unwrap().failures.is_empty());
}
