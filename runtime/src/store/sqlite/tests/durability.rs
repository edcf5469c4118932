//! Files, reopening, signatures, concurrency and schema versions.

use super::*;

#[test]
fn a_file_database_survives_reopening_and_verifies() {
    let dir = TempDir::new();
    let path = dir.0.join("nested").join("store.db");
    let (did, written) = {
        let store = SqliteStore::open(&path, Arc::new(SystemClock)).unwrap();
        seed(&store, &[("a", "p", "x"), ("b", "p", "y")]);
        add(&store, &[("a", "q", "z")]);
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
        (
            store.did().to_string(),
            store.read().unwrap().links(P, LinkPattern::default(), None, 0).unwrap(),
        )
    };
    assert!(did.starts_with("did:key:z6Mk"), "{did}");
    let store = SqliteStore::open(&path, Arc::new(SystemClock)).unwrap();
    assert_eq!(store.did(), did);
    let read = store.read().unwrap();
    assert_eq!(read.links(P, LinkPattern::default(), None, 0).unwrap(), written);
    assert_eq!(triples(&written), [("a", "p", "x"), ("a", "q", "z")]);
    assert_eq!(read.models(P).unwrap().len(), 1);
    drop(read);
    let report = store.verify().unwrap();
    assert_eq!((report.transactions, report.links), (2, 2));
    assert!(report.failures.is_empty(), "{:?}", report.failures);

    let version: i64 = lock_writer(&store)
        .query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn tampering_is_reported() {
    let store = store();
    seed(&store, &[("a", "p", "x"), ("b", "p", "y")]);
    add(&store, &[("c", "p", "z")]);
    assert!(store.verify().unwrap().failures.is_empty());
    lock_writer(&store)
        .execute("UPDATE links SET target = 'evil' WHERE target = 'x'", [])
        .unwrap();
    let report = store.verify().unwrap();
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    assert!(report.failures[0].starts_with("link 1:"), "{:?}", report.failures);

    // Re-hashing the tampered link does not help: its transaction did not sign that hash.
    let fake = signing::link_hash(&signing::LinkFields {
        perspective: P,
        source: "a",
        predicate: "p",
        target: "evil",
        author: store.did(),
        timestamp: T0,
        seq: 1,
        local: false,
    });
    lock_writer(&store)
        .execute("UPDATE links SET hash = ?1 WHERE id = 1", [&fake[..]])
        .unwrap();
    assert!(store.verify().unwrap().failures[0].contains("did not sign"));

    lock_writer(&store)
        .execute("UPDATE transactions SET timestamp = timestamp + 1 WHERE id = 2", [])
        .unwrap();
    lock_writer(&store)
        .execute("UPDATE transactions SET signature = x'00' WHERE id = 1", [])
        .unwrap();
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

#[test]
fn two_hundred_concurrent_writers_all_land() {
    let dir = TempDir::new();
    let store = Arc::new(SqliteStore::open(&dir.0.join("store.db"), Arc::new(SystemClock)).unwrap());
    seed(&store, &[]);
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

#[test]
fn schema_version_is_stored_and_a_newer_one_refused() {
    let dir = TempDir::new();
    let path = dir.0.join("store.db");
    let did = {
        let store = SqliteStore::open(&path, clock()).unwrap();
        let version: i64 = lock_writer(&store)
            .query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        lock_writer(&store)
            .execute(
                "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
                [SCHEMA_VERSION + 1],
            )
            .unwrap();
        store.did().to_string()
    };
    match SqliteStore::open(&path, clock()) {
        Err(StoreError::SchemaTooNew { found, supported })
            if found == SCHEMA_VERSION + 1 && supported == SCHEMA_VERSION => {}
        other => panic!("expected SchemaTooNew, got {other:?}"),
    }
    let conn = Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
        [SCHEMA_VERSION],
    )
    .unwrap();
    drop(conn);
    assert_eq!(SqliteStore::open(&path, clock()).unwrap().did(), did);
    assert!(SqliteStore::open(Path::new(":memory:"), clock()).is_ok());
    assert!(SqliteStore::open(Path::new(""), clock()).is_err());
    std::fs::write(dir.0.join("junk.db"), b"this is not a database, not at all, no").unwrap();
    assert!(matches!(
        SqliteStore::open(&dir.0.join("junk.db"), clock()),
        Err(StoreError::Database(_))
    ));
}
