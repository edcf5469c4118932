use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::*;
use crate::clock::{FixedClock, SystemClock};
use crate::store::{Link, LinkPattern, NewLink, Order, Perspective, SourceQuery, StoredModel};

mod durability;
mod links;
mod sources;
mod users;

const P: &str = "perspective-1";
const T0: i64 = 1_798_106_400_000_000;

fn clock() -> Arc<FixedClock> {
    Arc::new(FixedClock::new(T0))
}

fn store() -> SqliteStore {
    SqliteStore::open_in_memory(clock()).unwrap()
}

fn perspective(uuid: &str) -> Perspective {
    Perspective {
        uuid: uuid.into(),
        name: format!("{uuid} name"),
        owner: "did:key:owner".into(),
        neighbourhood: None,
    }
}

fn new_link(source: &str, predicate: &str, target: &str) -> NewLink {
    NewLink {
        source: source.into(),
        predicate: predicate.into(),
        target: target.into(),
        local: false,
    }
}

/// Adds the perspective `P` and the links, in one transaction.
fn seed(store: &SqliteStore, links: &[(&str, &str, &str)]) {
    let mut tx = store.write().unwrap();
    if tx.perspective(P).unwrap().is_none() {
        tx.add_perspective(&perspective(P)).unwrap();
    }
    for (s, p, t) in links {
        tx.add_link(P, new_link(s, p, t)).unwrap();
    }
    tx.commit().unwrap();
}

fn add(store: &SqliteStore, links: &[(&str, &str, &str)]) {
    let mut tx = store.write().unwrap();
    for (s, p, t) in links {
        tx.add_link(P, new_link(s, p, t)).unwrap();
    }
    tx.commit().unwrap();
}

fn triples(links: &[Link]) -> Vec<(&str, &str, &str)> {
    links
        .iter()
        .map(|l| (l.source.as_str(), l.predicate.as_str(), l.target.as_str()))
        .collect()
}

fn all_sources(store: &SqliteStore, order: Order) -> Vec<String> {
    store
        .read()
        .unwrap()
        .sources(P, &SourceQuery::default(), order)
        .unwrap()
}

/// A folder under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static COUNT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "shacl-mcp-store-{}-{}-{}",
            std::process::id(),
            SystemClock.now_micros(),
            COUNT.fetch_add(1, Ordering::SeqCst)
        );
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn lock_writer(store: &SqliteStore) -> conn::WriterGuard<'_> {
    store.writer.lock().unwrap()
}
