//! The single writer.

use super::*;

#[test]
fn nested_use_of_the_writer_is_an_error_not_a_deadlock() {
    let store = store();
    let tx = store.write().unwrap();
    assert!(matches!(store.write(), Err(StoreError::Database(_))));
    assert!(matches!(store.read(), Err(StoreError::Database(_))));
    drop(tx);
    let read = store.read().unwrap();
    assert!(store.write().is_err());
    drop(read);
    assert!(store.write().is_ok());
}

#[test]
fn text_may_hold_nul() {
    let store = store();
    seed(&store, &[("a\0b", "p", "\0")]);
    let links = store.read().unwrap().links(P, LinkPattern::default(), None, 0).unwrap();
    assert_eq!(triples(&links), [("a\0b", "p", "\0")]);
    add(&store, &[("c", "p", "x")]);
    assert_eq!(all_sources(&store, Order::OldestFirst), ["a\0b", "c"]);
}
