//! `links.superseded` follows every kind of write on every store, and a database from before it
//! migrates with every superseded link flagged.

use super::{Fixture, P, TestStore, add, clock, new_link, seed};
use crate::store::LinkPattern;

/// How many links have a `superseded` flag other than its definition: whether a later link (by
/// timestamp, then seq) of the same source and predicate is there.
fn wrong_flags(store: &dyn TestStore) -> i64 {
    store.count_sql(
        "SELECT COUNT(*) FROM links WHERE superseded <> CASE WHEN EXISTS (SELECT 1 FROM links AS later \
         WHERE later.perspective = links.perspective AND later.source = links.source \
         AND later.predicate = links.predicate AND (later.timestamp, later.id) > (links.timestamp, links.id)) \
         THEN 1 ELSE 0 END",
    )
}

/// Asserts the flags against their definition, and that the one link of `a p` not superseded
/// has `target`.
fn check(store: &dyn TestStore, step: &str, target: &str) {
    assert_eq!(wrong_flags(store), 0, "{step}");
    let last = |and: &str| {
        store.count_sql(&format!(
            "SELECT COUNT(*) FROM links WHERE source = 'a' AND predicate = 'p' AND superseded = 0{and}"
        ))
    };
    assert_eq!((last(""), last(&format!(" AND target = '{target}'"))), (1, 1), "{step}");
}

fn remove(store: &dyn TestStore, pattern: LinkPattern<'_>) {
    let mut tx = store.write().unwrap();
    tx.remove_links(P, pattern).unwrap();
    tx.commit().unwrap();
}

fn a_p(target: &str) -> LinkPattern<'_> {
    LinkPattern {
        source: Some("a"),
        predicate: Some("p"),
        target: Some(target),
    }
}

/// Every write keeps `links.superseded` true to its definition: a new source's links (two of one
/// predicate in one transaction), an overwrite, a clock that stepped back (the new link is the
/// earlier), a removal of the last link and of an earlier one, an erasure, links removed and
/// written again in one transaction.
pub(crate) fn the_flag_follows_every_write(fixture: &dyn Fixture) {
    let clock = clock();
    let store = fixture.open(clock.clone());
    let store = &*store;
    seed(store, &[("a", "p", "1"), ("a", "q", "x"), ("a", "p", "2")]);
    check(store, "a new source", "2");
    clock.advance(10);
    add(store, &[("a", "p", "3"), ("b", "p", "1")]);
    check(store, "an overwrite", "3");
    clock.advance(-100);
    add(store, &[("a", "p", "0"), ("b", "q", "y")]);
    check(store, "a clock that stepped back", "3");
    remove(store, a_p("3"));
    check(store, "the last removed", "2");
    remove(store, a_p("1"));
    check(store, "an earlier one removed", "2");
    let mut tx = store.write().unwrap();
    tx.erase_links(P, &[a_p("2")]).unwrap();
    tx.commit_erasure().unwrap();
    check(store, "the last erased", "0");
    let mut tx = store.write().unwrap();
    let all_of_a = LinkPattern {
        source: Some("a"),
        ..LinkPattern::default()
    };
    tx.remove_links(P, all_of_a).unwrap();
    for target in ["4", "5"] {
        tx.add_link(P, new_link("a", "p", target)).unwrap();
    }
    tx.commit().unwrap();
    check(store, "removed and written again", "5");
}

/// A database from before the flag (no column) migrates with every superseded link flagged.
pub(crate) fn a_database_from_before_the_flag_flags_its_superseded_links(fixture: &dyn Fixture) {
    let clock = clock();
    let store = fixture.open_named("before_superseded", clock.clone());
    seed(&*store, &[("a", "p", "1"), ("a", "q", "x"), ("b", "p", "1")]);
    clock.advance(10);
    add(&*store, &[("a", "p", "2"), ("a", "p", "3")]);
    store.execute_sql(&fixture.downgrade_before_superseded_sql());
    drop(store);
    let store = fixture.open_named("before_superseded", clock);
    check(&*store, "migrated", "3");
    assert_eq!(store.count_sql("SELECT COUNT(*) FROM links WHERE superseded = 1"), 2);
    assert!(store.verify().unwrap().failures.is_empty());
}
