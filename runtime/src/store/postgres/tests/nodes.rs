//! Several nodes on one database: two or three `PostgresStore`s on the same schema.

use std::sync::Barrier;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::*;
use crate::clock::SystemClock;
use crate::store::tests::users::new_user;
use crate::store::tests::{P, add, all_links, clock, new_link, perspective, seed};
use crate::store::{AuthorKey, LinkPattern, StoredModel, UserStore};

fn system() -> Arc<dyn Clock> {
    Arc::new(SystemClock)
}

fn model(name: &str) -> StoredModel {
    StoredModel {
        class_name: name.into(),
        shacl_json: "{}".into(),
    }
}

#[test]
fn two_nodes_never_share_a_seq_nor_interleave_transactions() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let nodes = [fixture.node("shared", system()), fixture.node("shared", system())];
    assert_eq!(nodes[0].did(), nodes[1].did(), "one node key per database");
    seed(&nodes[0], &[]);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // A reader never sees part of a transaction: counts go by threes.
        let reader = scope.spawn(|| {
            let mut reads = 0;
            while !done.load(Ordering::SeqCst) {
                let count = nodes[1].read().unwrap().count_links(P, LinkPattern::default()).unwrap();
                assert_eq!(count % 3, 0, "half a transaction is visible");
                reads += 1;
            }
            reads
        });
        let writers: Vec<_> = (0..6)
            .map(|w| {
                let node = &nodes[w % 2];
                scope.spawn(move || {
                    for i in 0..10 {
                        let source = format!("ad4m://node{}/w{w}/{i}", w % 2);
                        let mut tx = node.write().unwrap();
                        for target in ["1", "2", "3"] {
                            tx.add_link(P, new_link(&source, "p", target)).unwrap();
                        }
                        tx.commit().unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        done.store(true, Ordering::SeqCst);
        assert!(reader.join().unwrap() > 0);
    });
    let mut links = all_links(&nodes[1]);
    assert_eq!(links.len(), 180);
    links.sort_by_key(|link| link.seq);
    links.dedup_by_key(|link| link.seq);
    assert_eq!(links.len(), 180, "no two links share a seq");
    // Writers of one perspective take turns: each transaction's links are consecutive.
    for run in links.chunks(3) {
        assert!(run.iter().all(|link| link.source == run[0].source), "{run:?}");
        assert_eq!(
            run.iter().map(|l| l.target.as_str()).collect::<Vec<_>>(),
            ["1", "2", "3"]
        );
    }
    for node in &nodes {
        let report = node.verify().unwrap();
        assert_eq!((report.transactions, report.links), (60, 180));
        assert!(report.failures.is_empty(), "{:?}", report.failures);
    }
}

#[test]
fn a_writer_waits_for_the_perspective_and_then_sees_the_other_nodes_writes() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let (a, b) = (fixture.node("turns", system()), fixture.node("turns", system()));
    seed(&a, &[]);
    let mut tx = b.write().unwrap();
    tx.add_perspective(&perspective("other")).unwrap();
    tx.commit().unwrap();

    let mut holding = a.write().unwrap();
    holding.add_link(P, new_link("x", "p", "1")).unwrap();
    // Another perspective does not wait.
    let mut tx = b.write().unwrap();
    tx.add_link("other", new_link("y", "p", "1")).unwrap();
    tx.commit().unwrap();
    std::thread::scope(|scope| {
        let (sender, finished) = std::sync::mpsc::channel();
        let b = &b;
        let waiting = scope.spawn(move || {
            let mut tx = b.write().unwrap();
            // Waits for the lock, then counts what a committed meanwhile: read, check, write.
            let seen = tx.count_links(P, LinkPattern::default()).unwrap();
            tx.add_link(P, new_link("y", "p", &seen.to_string())).unwrap();
            tx.commit().unwrap();
            sender.send(seen).unwrap();
        });
        assert!(
            finished.recv_timeout(Duration::from_millis(500)).is_err(),
            "the second writer did not wait"
        );
        holding.commit().unwrap();
        assert_eq!(finished.recv_timeout(Duration::from_secs(10)).unwrap(), 1);
        waiting.join().unwrap();
    });
    let targets: Vec<String> = all_links(&a).into_iter().map(|l| l.target).collect();
    assert_eq!(targets, ["1", "1"]);
}

#[test]
fn watch_models_hears_commits_of_every_node_and_nothing_rolled_back() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let (a, b) = (fixture.node("watch", system()), fixture.node("watch", system()));
    let elsewhere = fixture.node("elsewhere", system());
    let on_b = b.watch_models().unwrap();
    let on_a = a.watch_models().unwrap();
    let on_elsewhere = elsewhere.watch_models().unwrap();
    seed(&a, &[]);
    seed(&elsewhere, &[]);
    let mut tx = a.write().unwrap();
    tx.add_perspective(&perspective("second")).unwrap();
    tx.commit().unwrap();

    let mut rolled_back = a.write().unwrap();
    rolled_back.put_model("second", &model("Dropped")).unwrap();
    drop(rolled_back);
    let mut tx = a.write().unwrap();
    tx.put_model(P, &model("Kept")).unwrap();
    tx.commit().unwrap();
    let wait = Duration::from_secs(5);
    assert_eq!(on_b.recv_timeout(wait).unwrap(), P);
    assert_eq!(on_a.recv_timeout(wait).unwrap(), P, "the node's own commits too");

    let mut tx = b.write().unwrap();
    tx.erase_perspective("second").unwrap();
    tx.commit_erasure().unwrap();
    assert_eq!(on_a.recv_timeout(wait).unwrap(), "second");
    assert_eq!(on_b.recv_timeout(wait).unwrap(), "second");
    assert!(on_b.recv_timeout(Duration::from_millis(300)).is_err(), "nothing else");
    assert!(on_elsewhere.try_recv().is_err(), "another schema hears nothing");
}

#[test]
fn three_nodes_starting_together_agree_on_one_did() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let start = Barrier::new(3);
    let dids: Vec<String> = std::thread::scope(|scope| {
        let nodes: Vec<_> = (0..3)
            .map(|_| {
                scope.spawn(|| {
                    start.wait();
                    fixture.node("together", clock()).did().to_string()
                })
            })
            .collect();
        nodes.into_iter().map(|node| node.join().unwrap()).collect()
    });
    assert!(dids[0].starts_with("did:key:z6Mk"));
    assert!(dids.iter().all(|did| *did == dids[0]), "{dids:?}");
}

#[test]
fn an_email_is_taken_once_across_nodes() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let (a, b) = (fixture.node("users", system()), fixture.node("users", system()));
    for round in 0..10 {
        let email = format!("ada{round}@example.org");
        let start = Barrier::new(2);
        let added: Vec<bool> = std::thread::scope(|scope| {
            let racers: Vec<_> = [&a, &b]
                .into_iter()
                .map(|node| {
                    let (email, start) = (&email, &start);
                    scope.spawn(move || {
                        let key = AuthorKey::generate().unwrap();
                        start.wait();
                        node.add_user(&new_user(email, &key)).unwrap()
                    })
                })
                .collect();
            racers.into_iter().map(|racer| racer.join().unwrap()).collect()
        });
        assert_eq!(added.iter().filter(|added| **added).count(), 1, "{email}: {added:?}");
        assert!(b.user_by_email(&email).unwrap().is_some());
    }
}

#[test]
fn rate_events_are_shared() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let (a, b) = (fixture.node("events", system()), fixture.node("events", system()));
    a.record_event("login/ada", 1).unwrap();
    b.record_event("login/ada", 2).unwrap();
    a.record_event("login/ada", 3).unwrap();
    b.record_event("login/bob", 1).unwrap();
    assert_eq!(b.events_since("login/ada", 2).unwrap(), [2, 3]);
    assert_eq!(a.events_since("login/ada", 0).unwrap(), [2, 3], "older rows went");
    a.clear_events("login/ada").unwrap();
    assert!(b.events_since("login/ada", 0).unwrap().is_empty());
    assert_eq!(a.events_since("login/bob", 0).unwrap(), [1]);
    let log: &dyn crate::store::EventLog = &a;
    log.record_event("k", 5).unwrap();
    assert_eq!(log.events_since("k", 5).unwrap(), [5]);
}

#[test]
fn erasures_on_two_nodes_sharing_a_transaction_leave_no_hash() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let (a, b) = (fixture.node("erase", system()), fixture.node("erase", system()));
    seed(&a, &[]);
    let mut tx = a.write().unwrap();
    tx.add_perspective(&perspective("second")).unwrap();
    tx.add_link(P, new_link("x", "p", "1")).unwrap();
    tx.add_link("second", new_link("y", "p", "1")).unwrap();
    tx.commit().unwrap();
    add(&a, &[("z", "p", "2")]);
    let start = Barrier::new(2);
    std::thread::scope(|scope| {
        for (node, perspective) in [(&a, P), (&b, "second")] {
            let start = &start;
            scope.spawn(move || {
                let mut tx = node.write().unwrap();
                start.wait();
                tx.erase_links(perspective, &[LinkPattern::default()]).unwrap();
                tx.commit_erasure().unwrap();
            });
        }
    });
    // Every link went, and with them both transactions: the shared one whoever went second.
    let report = b.verify().unwrap();
    assert_eq!((report.transactions, report.links), (0, 0), "{report:?}");
    assert!(report.failures.is_empty(), "{:?}", report.failures);
}
