//! Reopening, signatures and concurrency.

use std::sync::atomic::{AtomicBool, Ordering};

use super::*;
use crate::clock::SystemClock;
use crate::store::StoredModel;
use crate::store::signing::{LinkFields, link_hash};

pub(crate) fn a_lasting_store_survives_reopening_and_verifies(fixture: &dyn Fixture) {
    let (did, written) = {
        let store = fixture.open_named("reopened", Arc::new(SystemClock));
        let store = &*store;
        seed(store, &[("a", "p", "x"), ("b", "p", "y")]);
        add(store, &[("a", "q", "z")]);
        let mut tx = store.write().unwrap();
        tx.put_model(
            P,
            &StoredModel {
                class_name: "C".into(),
                shacl_json: "{}".into(),
            },
        )
        .unwrap();
        tx.remove_links(
            P,
            LinkPattern {
                target: Some("y"),
                ..Default::default()
            },
        )
        .unwrap();
        tx.commit().unwrap();
        (store.did().to_string(), all_links(store))
    };
    assert!(did.starts_with("did:key:z6Mk"), "{did}");
    let store = fixture.open_named("reopened", Arc::new(SystemClock));
    assert_eq!(store.did(), did);
    let read = store.read().unwrap();
    assert_eq!(read.links(P, LinkPattern::default(), None, 0).unwrap(), written);
    assert_eq!(triples(&written), [("a", "p", "x"), ("a", "q", "z")]);
    assert_eq!(read.models(P).unwrap().len(), 1);
    drop(read);
    let report = store.verify().unwrap();
    assert_eq!((report.transactions, report.links), (2, 2));
    assert!(report.failures.is_empty(), "{:?}", report.failures);
}

pub(crate) fn tampering_is_reported(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    let store = &*store;
    seed(store, &[("a", "p", "x"), ("b", "p", "y")]);
    add(store, &[("c", "p", "z")]);
    assert!(store.verify().unwrap().failures.is_empty());
    store.execute_sql("UPDATE links SET target = 'evil' WHERE target = 'x'");
    let report = store.verify().unwrap();
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    assert!(report.failures[0].starts_with("link 1:"), "{:?}", report.failures);

    // Re-hashing the tampered link does not help: its transaction did not sign that hash.
    let fake = link_hash(&LinkFields {
        perspective: P,
        source: "a",
        predicate: "p",
        target: "evil",
        author: store.did(),
        timestamp: T0,
        seq: 1,
        local: false,
    });
    store.execute_sql(&format!(
        "UPDATE links SET hash = {} WHERE id = 1",
        fixture.blob_literal(&fake)
    ));
    assert!(store.verify().unwrap().failures[0].contains("did not sign"));

    store.execute_sql("UPDATE transactions SET timestamp = timestamp + 1 WHERE id = 2");
    store.execute_sql(&format!(
        "UPDATE transactions SET signature = {} WHERE id = 1",
        fixture.blob_literal(&[0])
    ));
    let failures = store.verify().unwrap().failures;
    assert!(
        failures
            .iter()
            .any(|f| f.starts_with("transaction 1: its signature is not 64 bytes")),
        "{failures:?}"
    );
    assert!(
        failures
            .iter()
            .any(|f| f.starts_with("transaction 2: its signature does not verify")),
        "{failures:?}"
    );
}

pub(crate) fn two_hundred_concurrent_writers_all_land(fixture: &dyn Fixture) {
    let store: Arc<dyn TestStore> = Arc::from(fixture.open_named("concurrent", Arc::new(SystemClock)));
    seed(&*store, &[]);
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..4)
        .map(|_| {
            let (store, done) = (store.clone(), done.clone());
            std::thread::spawn(move || {
                let mut reads = 0u64;
                let mut last = 0;
                while !done.load(Ordering::SeqCst) {
                    let read = store.read().unwrap();
                    let count = read.count_links(P, LinkPattern::default()).unwrap();
                    // One snapshot: the count and the links agree, and never go back.
                    assert_eq!(
                        read.links(P, LinkPattern::default(), None, 0).unwrap().len() as u64,
                        count
                    );
                    assert!(count >= last);
                    last = count;
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    let writers: Vec<_> = (0..200)
        .map(|i| {
            let store = store.clone();
            std::thread::spawn(move || {
                let mut tx = store.write().unwrap();
                tx.add_link(P, new_link(&format!("ad4m://obj/{i}"), "rdf://type", "app://Task"))
                    .unwrap();
                tx.commit().unwrap();
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    done.store(true, Ordering::SeqCst);
    for reader in readers {
        assert!(reader.join().unwrap() > 0);
    }
    let read = store.read().unwrap();
    assert_eq!(read.count_links(P, LinkPattern::default()).unwrap(), 200);
    assert_eq!(
        read.sources(P, &SourceQuery::default(), Order::OldestFirst)
            .unwrap()
            .len(),
        200
    );
    drop(read);
    let report = store.verify().unwrap();
    assert_eq!(
        (report.transactions, report.links, report.failures.len()),
        (200, 200, 0)
    );
}
