//! Resource subscriptions (docs/design.md, "Protocol"): `resources/subscribe` and
//! `resources/unsubscribe` on the legacy lifecycle (stdio, HTTP sessions), the
//! `resourceSubscriptions` of a 2026-07-28 `subscriptions/listen` stream, and the
//! `notifications/resources/updated` both receive.
//!
//! Notifications come from the store's change log, never from the tool calls of this process:
//! one follower task reads the log's head of every perspective when the store announces a
//! commit (this process's; on PostgreSQL every node's, by `NOTIFY`) and every [`POLL_SQLITE`]
//! otherwise (another process may write to the same SQLite file unheard), then reads each
//! perspective's rows after the last position it delivered. A missed announcement only delays
//! a notification, never loses it. Each row names the perspective's resource and the resource
//! of the instance under each class it had before or after the change.
//!
//! Access rules are checked when a URI is subscribed, with the caller's engine: a perspective
//! the caller cannot read answers like a missing one (and is never subscribed), so a subscriber
//! hears only of perspectives it may read. A session's subscriptions end with the session (the
//! first notification that cannot be sent drops them); a listen stream's when it is cancelled.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use rmcp::model::{ErrorData, ResourceUpdatedNotificationParam};
use rmcp::service::SubscriptionSink;
use rmcp::{Peer, RoleServer};
use serde_json::json;
use tokio::sync::Notify;

use super::resources;
use crate::engine::Engine;

/// How often the log's heads are read without an announcement: SQLite, whose other writers
/// (processes on the same file) announce nothing here.
const POLL_SQLITE: Duration = Duration::from_millis(200);
/// The same on PostgreSQL, where every node's commits are announced: a safety net only.
const POLL_ANNOUNCED: Duration = Duration::from_secs(5);
/// Rows read per query by the follower.
const ROWS: u64 = 1_000;

/// Who hears of which resources.
#[derive(Default)]
pub(super) struct Subscriptions {
    state: Mutex<State>,
    wake: Arc<Notify>,
    /// Whether the follower runs (started by the first subscription).
    following: tokio::sync::Mutex<bool>,
}

#[derive(Default)]
struct State {
    /// Legacy lifecycle: per session (its server's session slot), the peer and its URIs.
    sessions: HashMap<usize, (Peer<RoleServer>, BTreeSet<String>)>,
    /// `subscriptions/listen` streams, by a number of their own: the sink and its URIs.
    listens: HashMap<u64, (SubscriptionSink, BTreeSet<String>)>,
}

/// Where to send one notification.
enum Target {
    Session(usize, Peer<RoleServer>),
    Listen(u64, SubscriptionSink),
}

impl Subscriptions {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `resources/subscribe` of `uri` by a session, once the caller may read it.
    pub async fn subscribe(
        self: &Arc<Self>,
        engine: Arc<Engine>,
        session: usize,
        peer: Peer<RoleServer>,
        uri: String,
    ) -> Result<(), ErrorData> {
        readable(&engine, &uri).await?;
        self.follow(&engine).await?;
        let mut state = self.state();
        let (_, uris) = state.sessions.entry(session).or_insert_with(|| (peer, BTreeSet::new()));
        uris.insert(uri);
        Ok(())
    }

    /// `resources/unsubscribe`: the session no longer hears of `uri` (subscribed or not).
    pub fn unsubscribe(&self, session: usize, uri: &str) {
        let mut state = self.state();
        if let Some((_, uris)) = state.sessions.get_mut(&session) {
            uris.remove(uri);
            if uris.is_empty() {
                state.sessions.remove(&session);
            }
        }
    }

    /// A listen stream's URIs, those the caller may read among `requested`: registered under
    /// `id` until [`Subscriptions::end_listen`]. Returns them.
    pub async fn listen(
        self: &Arc<Self>,
        engine: Arc<Engine>,
        id: u64,
        sink: SubscriptionSink,
        requested: &[String],
    ) -> Result<BTreeSet<String>, ErrorData> {
        let mut uris = BTreeSet::new();
        for uri in requested {
            if readable(&engine, uri).await.is_ok() {
                uris.insert(uri.clone());
            }
        }
        if !uris.is_empty() {
            self.follow(&engine).await?;
            self.state().listens.insert(id, (sink, uris.clone()));
        }
        Ok(uris)
    }

    pub fn end_listen(&self, id: u64) {
        self.state().listens.remove(&id);
    }

    /// Starts the follower once: the heads are read before the first subscription is kept, so
    /// that every commit after it is delivered.
    async fn follow(self: &Arc<Self>, engine: &Arc<Engine>) -> Result<(), ErrorData> {
        let mut following = self.following.lock().await;
        if *following {
            return Ok(());
        }
        let reader = engine.clone();
        let heads = tokio::task::spawn_blocking(move || reader.change_heads())
            .await
            .map_err(|e| internal(e.to_string()))?
            .map_err(|e| internal(format!("{e:?}")))?;
        let store = engine.store();
        let poll = if store.hears_every_writer() {
            POLL_ANNOUNCED
        } else {
            POLL_SQLITE
        };
        let announced = store.watch_changes().map_err(|e| internal(e.to_string()))?;
        let wake = Arc::downgrade(&self.wake);
        std::thread::Builder::new()
            .name("change-announcements".into())
            .spawn(move || {
                for _perspective in announced {
                    match wake.upgrade() {
                        Some(wake) => wake.notify_one(),
                        None => return,
                    }
                }
            })
            .map_err(|e| internal(e.to_string()))?;
        let positions = heads.into_iter().collect();
        tokio::spawn(follower(Arc::downgrade(self), engine.clone(), positions, poll));
        *following = true;
        Ok(())
    }

    /// Whether anyone listens to a resource of `perspective`.
    fn concerns(&self, perspective: &str) -> bool {
        let state = self.state();
        let of = |uris: &BTreeSet<String>| uris.iter().any(|u| resources::perspective_of(u) == Some(perspective));
        state.sessions.values().any(|(_, uris)| of(uris)) || state.listens.values().any(|(_, uris)| of(uris))
    }

    /// Tells the subscribers of a perspective's resource that it changed without a row in the
    /// log: its models (add_model here, or on another node).
    pub async fn perspective_changed(&self, perspective: &str) {
        self.notify(&BTreeSet::from([resources::perspective_uri(perspective)]))
            .await;
    }

    /// After `forget` of `record` here: the log keeps no trace of it, so its subscribers on
    /// this node are told directly (those of the perspective hear of the log's row).
    pub async fn forgotten(&self, perspective: &str, record: &str) {
        let uris = subscribed_under(self, perspective)
            .into_iter()
            .filter(|uri| resources::instance_of(uri).is_some_and(|(_, iri)| iri == record))
            .collect();
        self.notify(&uris).await;
    }

    /// Everyone subscribed to `uri`.
    fn targets(&self, uri: &str) -> Vec<Target> {
        let state = self.state();
        let sessions = state.sessions.iter().filter(|(_, (_, uris))| uris.contains(uri));
        let listens = state.listens.iter().filter(|(_, (_, uris))| uris.contains(uri));
        sessions
            .map(|(id, (peer, _))| Target::Session(*id, peer.clone()))
            .chain(listens.map(|(id, (sink, _))| Target::Listen(*id, sink.clone())))
            .collect()
    }

    /// `notifications/resources/updated` of each URI to its subscribers; a session that cannot
    /// be reached any more is dropped.
    async fn notify(&self, uris: &BTreeSet<String>) {
        for uri in uris {
            for target in self.targets(uri) {
                match target {
                    Target::Session(id, peer) => {
                        let sent = peer
                            .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                            .await;
                        if sent.is_err() {
                            self.state().sessions.remove(&id);
                        }
                    }
                    Target::Listen(id, sink) => {
                        if sink.notify_resource_updated(uri.clone()).await.is_err() {
                            self.end_listen(id);
                        }
                    }
                }
            }
        }
    }
}

/// Ok when the caller whose engine this is may read the resource's perspective.
async fn readable(engine: &Arc<Engine>, uri: &str) -> Result<(), ErrorData> {
    let not_found = || ErrorData::resource_not_found(format!("no resource '{uri}'"), Some(json!({ "uri": uri })));
    let perspective = resources::perspective_of(uri).ok_or_else(not_found)?.to_string();
    let engine = engine.clone();
    let seen = tokio::task::spawn_blocking(move || engine.can_read(&perspective))
        .await
        .map_err(|e| internal(e.to_string()))?
        .map_err(|e| internal(format!("{e:?}")))?;
    if seen { Ok(()) } else { Err(not_found()) }
}

fn internal(e: String) -> ErrorData {
    tracing::error!(kind = "internal", error = %e, "subscriptions");
    ErrorData::internal_error("internal error", None)
}

/// Reads the change log after each announcement (or poll) and notifies, until the server's
/// subscriptions are gone.
async fn follower(
    subscriptions: Weak<Subscriptions>,
    engine: Arc<Engine>,
    mut positions: HashMap<String, i64>,
    poll: Duration,
) {
    loop {
        let Some(wake) = subscriptions.upgrade().map(|s| s.wake.clone()) else {
            return;
        };
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(poll) => {}
        }
        let Some(subscriptions) = subscriptions.upgrade() else {
            return;
        };
        if let Err(e) = deliver(&subscriptions, &engine, &mut positions).await {
            tracing::warn!(kind = "subscriptions", error = %e, "could not read the change log");
        }
    }
}

/// One round: every perspective whose head moved, its new rows as notifications; every
/// perspective gone (erased), its resources.
async fn deliver(
    subscriptions: &Subscriptions,
    engine: &Arc<Engine>,
    positions: &mut HashMap<String, i64>,
) -> Result<(), String> {
    let reader = engine.clone();
    let heads = tokio::task::spawn_blocking(move || reader.change_heads())
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("{e:?}"))?;
    let gone: Vec<String> = positions
        .keys()
        .filter(|p| !heads.iter().any(|(h, _)| h == *p))
        .cloned()
        .collect();
    for perspective in gone {
        positions.remove(&perspective);
        let uris = subscribed_under(subscriptions, &perspective);
        subscriptions.notify(&uris).await;
    }
    for (perspective, head) in heads {
        let at = positions.entry(perspective.clone()).or_insert(0);
        if head <= *at {
            continue;
        }
        if !subscriptions.concerns(&perspective) {
            *at = head;
            continue;
        }
        while *at < head {
            let (reader, p, after) = (engine.clone(), perspective.clone(), *at);
            let rows = tokio::task::spawn_blocking(move || reader.change_rows(&p, after, ROWS))
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| format!("{e:?}"))?;
            let Some(last) = rows.last() else { break };
            *at = last.position;
            let mut uris = BTreeSet::from([resources::perspective_uri(&perspective)]);
            for row in &rows {
                let classes = row.labels.iter().chain(row.labels_before.iter().flatten());
                uris.extend(classes.map(|class| resources::instance_uri(&perspective, class, &row.source)));
            }
            subscriptions.notify(&uris).await;
        }
    }
    Ok(())
}

/// Every URI anyone subscribed under `perspective` (it was erased: they all changed).
fn subscribed_under(subscriptions: &Subscriptions, perspective: &str) -> BTreeSet<String> {
    let state = subscriptions.state();
    let all = state
        .sessions
        .values()
        .map(|(_, u)| u)
        .chain(state.listens.values().map(|(_, u)| u));
    all.flat_map(|uris| uris.iter())
        .filter(|uri| resources::perspective_of(uri) == Some(perspective))
        .cloned()
        .collect()
}
