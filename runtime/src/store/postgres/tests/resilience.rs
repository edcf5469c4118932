//! Calls from async contexts, dropped connections, refused values, schema versions, and errors
//! that never quote the password.

use std::time::{Duration, Instant};

use super::*;
use crate::clock::SystemClock;
use crate::store::StoredModel;
use crate::store::tests::{P, add, all_links, clock, new_link, seed, triples};

/// The fixture's URL with `application_name` set, so that a test can find its own connections.
fn url_named(fixture: &PgFixture, name: &str) -> String {
    let separator = if fixture.url().contains('?') { '&' } else { '?' };
    format!("{}{separator}application_name={name}", fixture.url())
}

/// Ends every connection (pooled and listening) whose `application_name` is `name`, waiting
/// until each has exited.
fn terminate(fixture: &PgFixture, name: &str) {
    fixture.execute_sql(&format!(
        "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity \
         WHERE application_name = '{name}' AND pid <> pg_backend_pid()"
    ));
}

fn exercise(store: &PostgresStore) {
    seed(store, &[("a", "p", "x")]);
    let changes = store.watch_models().unwrap();
    let mut tx = store.write().unwrap();
    tx.put_model(
        P,
        &StoredModel {
            class_name: "C".into(),
            shacl_json: "{}".into(),
        },
    )
    .unwrap();
    tx.commit().unwrap();
    assert_eq!(changes.recv_timeout(Duration::from_secs(5)).unwrap(), P);
    assert_eq!(triples(&all_links(store)), [("a", "p", "x")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn works_inside_a_multi_thread_runtime() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let store = fixture.node("multi_thread", clock());
    exercise(&store);
    // On a worker thread too, and dropped inside the async context.
    tokio::spawn(async move {
        add(&store, &[("b", "p", "y")]);
        drop(store);
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn works_inside_a_current_thread_runtime() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let store = fixture.node("current_thread", clock());
    exercise(&store);
    drop(store);
}

#[test]
fn a_dropped_connection_is_replaced() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let name = format!("{}_dropped", fixture.prefix);
    let store =
        PostgresStore::connect_in_schema(&url_named(&fixture, &name), &fixture.schema("dropped"), clock()).unwrap();
    seed(&store, &[("a", "p", "x")]);
    let changes = store.watch_models().unwrap();
    terminate(&fixture, &name);
    // The pooled connection is dead: the next call opens another.
    add(&store, &[("b", "p", "x")]);
    assert_eq!(all_links(&store).len(), 2);

    // Mid-transaction: an error, never a panic, and the next transaction works.
    let mut tx = store.write().unwrap();
    tx.add_link(P, new_link("c", "p", "x")).unwrap();
    terminate(&fixture, &name);
    let failed = tx.add_link(P, new_link("d", "p", "x")).and_then(|_| tx.commit());
    assert!(matches!(failed, Err(StoreError::Database(_))), "{failed:?}");
    assert_eq!(all_links(&store).len(), 2);

    // The listening connection comes back and announces every perspective once.
    let deadline = Instant::now() + Duration::from_secs(15);
    let heard = loop {
        match changes.recv_timeout(Duration::from_millis(200)) {
            Ok(uuid) => break Some(uuid),
            Err(_) if Instant::now() < deadline => {}
            Err(_) => break None,
        }
    };
    assert_eq!(heard.as_deref(), Some(P));
    let mut tx = store.write().unwrap();
    tx.put_model(
        P,
        &StoredModel {
            class_name: "C".into(),
            shacl_json: "{}".into(),
        },
    )
    .unwrap();
    tx.commit().unwrap();
    assert_eq!(changes.recv_timeout(Duration::from_secs(5)).unwrap(), P);
    assert!(store.verify().unwrap().failures.is_empty());
}

/// A read ends without waiting for its `ROLLBACK` (`Pooled::end_unawaited`): the next read on
/// the connection still takes a new snapshot, seeing what another node wrote meanwhile, and the
/// connection comes to rest, holding no transaction open (which would hold back vacuum).
#[test]
fn a_read_ends_its_transaction_without_waiting_for_it() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let name = format!("{}_unawaited", fixture.prefix);
    let schema = fixture.schema("unawaited");
    let reader = PostgresStore::connect_in_schema(&url_named(&fixture, &name), &schema, clock()).unwrap();
    let writer = PostgresStore::connect_in_schema(fixture.url(), &schema, clock()).unwrap();
    seed(&writer, &[("a", "p", "x")]);
    for (read, source) in ["b", "c", "d"].into_iter().enumerate() {
        assert_eq!(all_links(&reader).len(), read + 1);
        add(&writer, &[(source, "p", "x")]);
    }
    assert_eq!(all_links(&reader).len(), 4);
    let in_transaction =
        format!("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = '{name}' AND state LIKE 'idle in%'");
    let deadline = Instant::now() + Duration::from_secs(5);
    while writer.count_sql(&in_transaction) > 0 {
        assert!(
            Instant::now() < deadline,
            "a connection of the reader stayed in its transaction"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_refused_value_fails_the_transaction_not_the_store() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let store = fixture.node("refused", clock());
    seed(&store, &[("a", "p", "x")]);
    let mut tx = store.write().unwrap();
    tx.add_link(P, new_link("b", "p", "x")).unwrap();
    assert!(matches!(
        tx.add_link(P, new_link("nul\0", "p", "x")),
        Err(StoreError::Database(_))
    ));
    // PostgreSQL rolled the transaction back: committing it is an error, not a silent loss.
    assert!(matches!(tx.commit(), Err(StoreError::Database(_))));
    assert_eq!(triples(&all_links(&store)), [("a", "p", "x")]);
    add(&store, &[("c", "p", "x")]);
    assert_eq!(all_links(&store).len(), 2);
    // A source too long for a btree entry (even compressed) is refused.
    let long_source: String = (0..3_000).map(|i| format!("{:x}", (i * 7919) % 65_521)).collect();
    // The statement goes out with the next read or the commit, which then fails.
    let mut tx = store.write().unwrap();
    let refused = match tx.add_link(P, new_link(&long_source, "p", "x")) {
        Err(_) => true,
        Ok(_) => tx.commit().is_err(),
    };
    assert!(refused);
    assert_eq!(all_links(&store).len(), 2);
}

#[test]
fn the_schema_version_is_stored_and_a_newer_one_refused() {
    let Some(fixture) = PgFixture::from_env() else { return };
    let schema = fixture.schema("versions");
    let did = {
        let store = fixture.node("versions", clock());
        let conn = store.pool.take().unwrap();
        let row = conn
            .query_one(
                "SELECT convert_from(value, 'UTF8') FROM meta WHERE key = 'schema_version'",
                &[],
            )
            .unwrap();
        assert_eq!(get::<String>(&row, 0).unwrap(), SCHEMA_VERSION.to_string());
        store.did().to_string()
    };
    let set_version = |version: i64| {
        fixture.execute_sql(&format!(
            "UPDATE \"{schema}\".meta SET value = convert_to('{version}', 'UTF8') WHERE key = 'schema_version'"
        ))
    };
    set_version(SCHEMA_VERSION + 1);
    match PostgresStore::connect_in_schema(fixture.url(), &schema, clock()) {
        Err(StoreError::SchemaTooNew { found, supported })
            if found == SCHEMA_VERSION + 1 && supported == SCHEMA_VERSION => {}
        other => panic!("expected SchemaTooNew, got {other:?}"),
    }
    set_version(SCHEMA_VERSION);
    assert_eq!(fixture.node("versions", clock()).did(), did);
}

#[test]
fn errors_never_quote_the_password() {
    let secret = "s3cr3t-pa55";
    for url in [
        format!("postgres://someone:{secret}@127.0.0.1:1/db"),
        format!("postgres://someone:{secret}@127.0.0.1:notaport/db"),
        format!("postgres://someone:{secret}@127.0.0.1:5432/db?sslmode=nonsense"),
        format!("not a url {secret}"),
    ] {
        let error = PostgresStore::connect(&url, Arc::new(SystemClock)).unwrap_err();
        let message = error.to_string();
        assert!(!message.contains(secret), "{message}");
        assert!(!message.contains("pa55"), "{message}");
    }
    assert!(PostgresStore::connect_in_schema("postgres://u@127.0.0.1:1/db", "bad-name", clock()).is_err());
}
