//! The change log: one row per source a commit touched, in commit order per perspective, with
//! the labeller's labels after and before; erasure keeps only that a forgotten source is gone;
//! a database from before the log migrates.

use std::sync::Arc;
use std::time::Duration;

use super::*;
use crate::store::{Change, ChangeLabeller, ReadTx, StoreError};

const TYPE: &str = "rdf://type";

/// Labels a source with the targets of its `rdf://type` links (what the engine does with markers).
struct TypeLabels;

impl ChangeLabeller for TypeLabels {
    fn labels(&self, tx: &dyn ReadTx, perspective: &str, source: &str) -> Result<Vec<String>, StoreError> {
        let pattern = LinkPattern {
            source: Some(source),
            predicate: Some(TYPE),
            target: None,
        };
        Ok(tx
            .links(perspective, pattern, None, 0)?
            .into_iter()
            .map(|l| l.target)
            .collect())
    }
}

fn labelled(store: Box<dyn TestStore>) -> Box<dyn TestStore> {
    store.set_change_labeller(Arc::new(TypeLabels));
    store
}

fn rows(store: &dyn TestStore, after: i64) -> Vec<Change> {
    store.read().unwrap().changes(P, after, 1_000).unwrap()
}

/// (source, labels, labels before) of each row.
fn summary(rows: &[Change]) -> Vec<(String, Vec<String>, Option<Vec<String>>)> {
    rows.iter()
        .map(|r| (r.source.clone(), r.labels.clone(), r.labels_before.clone()))
        .collect()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

pub(crate) fn every_commit_logs_its_sources_in_order(fixture: &dyn Fixture) {
    let store = labelled(fixture.open(clock()));
    seed(
        &*store,
        &[
            ("a", TYPE, "Book"),
            ("a", "app://title", "literal:string:x"),
            ("b", "app://x", "y"),
        ],
    );
    add(&*store, &[("a", "app://title", "literal:string:y")]);
    let mut tx = store.write().unwrap();
    tx.add_link(P, new_link("c", TYPE, "Book")).unwrap();
    drop(tx); // rolled back: no row
    let mut tx = store.write().unwrap();
    tx.remove_links(
        P,
        LinkPattern {
            source: Some("a"),
            ..Default::default()
        },
    )
    .unwrap();
    tx.commit().unwrap();
    let log = rows(&*store, 0);
    assert_eq!(
        summary(&log),
        vec![
            ("a".into(), strings(&["Book"]), Some(vec![])),
            ("b".into(), vec![], Some(vec![])),
            ("a".into(), strings(&["Book"]), Some(strings(&["Book"]))),
            ("a".into(), vec![], Some(strings(&["Book"]))),
        ]
    );
    assert!(log.windows(2).all(|w| w[0].position < w[1].position));
    assert!(log.iter().all(|r| r.author == store.did() && r.at == T0));
    let head = log.last().unwrap().position;
    let read = store.read().unwrap();
    assert_eq!(read.change_head(P).unwrap(), head);
    assert_eq!(read.change_heads().unwrap(), vec![(P.to_string(), head)]);
    assert_eq!(
        summary(&read.changes(P, log[1].position, 1).unwrap()),
        summary(&log[2..3])
    );
    assert!(read.changes(P, head, 10).unwrap().is_empty());
}

/// A cursor taken while a writer of the perspective has not committed yet misses nothing: the
/// writer's row is positioned at its commit, after the cursor, and the writer waiting behind it
/// (on another connection, or another node) after that.
pub(crate) fn a_cursor_taken_during_a_write_misses_nothing(fixture: &dyn Fixture) {
    let first: Arc<dyn TestStore> = Arc::from(fixture.open_named("in_flight", Arc::new(crate::clock::SystemClock)));
    let second: Arc<dyn TestStore> = Arc::from(fixture.open_named("in_flight", Arc::new(crate::clock::SystemClock)));
    seed(&*first, &[("earlier", "app://x", "y")]);
    let mut tx = first.write().unwrap();
    tx.add_link(P, new_link("first", "app://x", "y")).unwrap();
    let waiting = {
        let second = second.clone();
        std::thread::spawn(move || {
            let mut tx = second.write().unwrap();
            tx.add_link(P, new_link("second", "app://x", "y")).unwrap();
            tx.commit().unwrap();
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    let cursor = second.read().unwrap().change_head(P).unwrap();
    tx.commit().unwrap();
    waiting.join().unwrap();
    let after: Vec<String> = rows(&*second, cursor).into_iter().map(|r| r.source).collect();
    assert_eq!(after, ["first", "second"]);
}

pub(crate) fn an_erasure_keeps_only_that_a_source_is_gone(fixture: &dyn Fixture) {
    let store = labelled(fixture.open(clock()));
    seed(
        &*store,
        &[("a", TYPE, "Book"), ("b", "app://cites", "a"), ("b", "app://x", "y")],
    );
    add(&*store, &[("a", "app://title", "literal:string:secret")]);
    let mut tx = store.write().unwrap();
    let out = LinkPattern {
        source: Some("a"),
        ..Default::default()
    };
    let into = LinkPattern {
        target: Some("a"),
        ..Default::default()
    };
    tx.erase_links(P, &[out, into]).unwrap();
    tx.commit_erasure().unwrap();
    // a is left with no link: every row of it goes, and a row of no source says that
    // something was forgotten. b keeps a link: its row stays, and it gets one more.
    let log = rows(&*store, 0);
    assert_eq!(
        summary(&log),
        vec![
            ("b".into(), vec![], Some(vec![])),
            ("b".into(), vec![], Some(vec![])),
            (crate::store::FORGOTTEN.into(), vec![], None),
        ]
    );
    let mut tx = store.write().unwrap();
    tx.erase_perspective(P).unwrap();
    tx.commit_erasure().unwrap();
    assert!(store.read().unwrap().change_heads().unwrap().is_empty());
}

pub(crate) fn a_database_from_before_the_change_log_migrates(fixture: &dyn Fixture) {
    let store = fixture.open_named("before_changes", clock());
    seed(&*store, &[("old", TYPE, "Book")]);
    store.execute_sql(&fixture.downgrade_before_changes_sql());
    drop(store);
    let store = labelled(fixture.open_named("before_changes", clock()));
    assert_eq!(store.read().unwrap().change_head(P).unwrap(), 0);
    add(
        &*store,
        &[("old", "app://title", "literal:string:t"), ("new", TYPE, "Book")],
    );
    assert_eq!(
        summary(&rows(&*store, 0)),
        vec![
            ("new".into(), strings(&["Book"]), Some(vec![])),
            ("old".into(), strings(&["Book"]), None),
        ]
    );
    assert!(store.verify().unwrap().failures.is_empty());
}
