//! The PostgreSQL store through its public API, as the server uses it: `connect` finding its
//! schema through the `search_path`, the store behind `dyn LinkStore`, `dyn UserStore` and
//! `dyn EventLog`, `watch_models` followed on a thread of its own, and drops inside async
//! contexts. Needs `SHACL_MCP_TEST_POSTGRES` (skipped without it, unless
//! `SHACL_MCP_REQUIRE_POSTGRES=1`). The store-level suite itself (every case on both stores,
//! several nodes on one schema) is in the library: `cargo test -p shacl-mcp --lib store`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use shacl_mcp::clock::SystemClock;
use shacl_mcp::store::EventLog;
use shacl_mcp::store::postgres::PostgresStore;
use shacl_mcp::store::{AuthorKey, LinkPattern, LinkStore, NewLink, NewUser, Perspective, StoredModel, UserStore};

const URL_ENV: &str = "SHACL_MCP_TEST_POSTGRES";
const REQUIRE_ENV: &str = "SHACL_MCP_REQUIRE_POSTGRES";

fn url() -> Option<String> {
    let url = std::env::var(URL_ENV).ok().filter(|url| !url.trim().is_empty());
    if url.is_none() {
        assert!(
            std::env::var(REQUIRE_ENV).as_deref() != Ok("1"),
            "{REQUIRE_ENV}=1 but {URL_ENV} is not set"
        );
        eprintln!("skipped: set {URL_ENV} to a PostgreSQL URL to test the PostgreSQL store");
    }
    url
}

/// A schema of the test's own, dropped at the end.
struct Schema {
    url: String,
    name: String,
}

impl Schema {
    fn new(url: &str, tag: &str) -> Schema {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        Schema {
            url: url.to_string(),
            name: format!(
                "shacl_mcp_it_{tag}_{}_{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::SeqCst)
            ),
        }
    }

    fn connect(&self) -> PostgresStore {
        PostgresStore::connect_in_schema(&self.url, &self.name, Arc::new(SystemClock)).unwrap()
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        // A thread of its own: the test may be inside a runtime, where another cannot block.
        let (url, sql) = (
            self.url.clone(),
            format!("DROP SCHEMA IF EXISTS \"{}\" CASCADE", self.name),
        );
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
                tokio::spawn(connection);
                client.batch_execute(&sql).await.unwrap();
            });
        });
        dropped.join().unwrap();
    }
}

fn perspective(uuid: &str) -> Perspective {
    Perspective {
        uuid: uuid.into(),
        name: uuid.into(),
        owner: "did:key:owner".into(),
        neighbourhood: None,
    }
}

fn link(source: &str) -> NewLink {
    NewLink {
        source: source.into(),
        predicate: "rdf://type".into(),
        target: "app://Task".into(),
        local: false,
    }
}

#[test]
fn connect_finds_the_schema_of_its_search_path() {
    let Some(url) = url() else { return };
    let schema = Schema::new(&url, "search_path");
    let first = schema.connect();
    let mut tx = first.write().unwrap();
    tx.add_perspective(&perspective("p")).unwrap();
    tx.add_link("p", link("ad4m://a")).unwrap();
    tx.commit().unwrap();

    let separator = if url.contains('?') { '&' } else { '?' };
    let with_path = format!("{url}{separator}options=-c%20search_path%3D{}", schema.name);
    let second = PostgresStore::connect(&with_path, Arc::new(SystemClock)).unwrap();
    assert_eq!(second.schema(), schema.name);
    assert_eq!(second.did(), first.did(), "one node key per schema");
    let read = second.read().unwrap();
    assert_eq!(read.count_links("p", LinkPattern::default()).unwrap(), 1);
    drop(read);
    let shown = format!("{second:?}");
    assert!(
        shown.contains(second.did()) && !shown.contains("postgres://"),
        "{shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_as_the_server_uses_it() {
    let Some(url) = url() else { return };
    let schema = Schema::new(&url, "server");
    let store = Arc::new(schema.connect());
    let links: Arc<dyn LinkStore> = store.clone();
    let users: Arc<dyn UserStore> = store.clone();
    let events: Arc<dyn EventLog> = store.clone();

    // Model changes followed on a thread of its own, as the server does; it ends when the store
    // is dropped.
    let changes = store.watch_models().unwrap();
    let (heard, hearing) = std::sync::mpsc::channel();
    let follower = std::thread::spawn(move || {
        for perspective in changes {
            let _ = heard.send(perspective);
        }
    });

    let written = links.clone();
    tokio::task::spawn_blocking(move || {
        let mut tx = written.write().unwrap();
        tx.add_perspective(&perspective("p")).unwrap();
        tx.add_link("p", link("ad4m://a")).unwrap();
        tx.put_model(
            "p",
            &StoredModel {
                class_name: "Task".into(),
                shacl_json: "{}".into(),
            },
        )
        .unwrap();
        tx.commit().unwrap();
    })
    .await
    .unwrap();
    assert_eq!(hearing.recv_timeout(Duration::from_secs(5)).unwrap(), "p");
    // Straight from the async context too.
    assert!(links.verify().unwrap().failures.is_empty());

    let key = AuthorKey::generate().unwrap();
    let user = NewUser {
        email: "ada@example.org",
        password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
        key: &key,
        verified: true,
        created: 1,
    };
    assert!(users.add_user(&user).unwrap());
    assert!(!users.add_user(&user).unwrap());
    events.record_event("login/ada", 10).unwrap();
    assert_eq!(events.events_since("login/ada", 0).unwrap(), [10]);

    drop((links, users, events, store));
    let deadline = Instant::now() + Duration::from_secs(5);
    while !follower.is_finished() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        follower.is_finished(),
        "the follower still waits after the store dropped"
    );
    assert_eq!(
        hearing.recv_timeout(Duration::from_millis(10)),
        Err(RecvTimeoutError::Disconnected)
    );
}
