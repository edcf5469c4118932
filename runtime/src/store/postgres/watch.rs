//! Announcements from every node: a dedicated connection `LISTEN`s on one of the store's
//! channels (model changes, or change-log growth) and hands each notification's payload (a
//! perspective uuid) to every receiver.
//!
//! `put_model` and `erase_perspective` call `pg_notify` inside their transaction, and PostgreSQL
//! delivers on commit only, so a rolled back change is never announced. The connection runs on
//! the store's runtime, driven by `poll_message`; when it drops it is opened again (with a
//! growing pause), and since changes made meanwhile went unheard, every perspective is then
//! announced once.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use futures::channel::oneshot;
use futures::executor::block_on;
use tokio::runtime::Handle;
use tokio_postgres::{AsyncMessage, Client, Config, NoTls};

use super::client::{Session, database_error, set_up};
use super::pool::lock;
use crate::store::StoreError;

const FIRST_PAUSE: Duration = Duration::from_millis(100);
const LONGEST_PAUSE: Duration = Duration::from_secs(5);

type Receivers = Arc<Mutex<Vec<Sender<String>>>>;

/// The receivers of one store, and whether its listening connection runs.
#[derive(Default)]
pub(super) struct Watch {
    receivers: Receivers,
    started: Mutex<bool>,
}

/// What the listening connection needs.
pub(super) struct Listen {
    pub config: Config,
    pub session: Session,
    pub channel: String,
}

impl Watch {
    /// A new receiver; the first call starts the listening connection and returns once it
    /// listens (or with the error that kept it from listening).
    pub fn subscribe(&self, runtime: &Handle, listen: impl FnOnce() -> Listen) -> Result<Receiver<String>, StoreError> {
        let mut started = lock(&self.started);
        if !*started {
            let (ready, listening) = oneshot::channel();
            runtime.spawn(run(listen(), self.receivers.clone(), ready));
            match block_on(listening) {
                Ok(Ok(())) => *started = true,
                Ok(Err(e)) => return Err(e),
                Err(oneshot::Canceled) => {
                    return Err(StoreError::Database(
                        "the PostgreSQL listening connection stopped before it listened".into(),
                    ));
                }
            }
        }
        let (sender, receiver) = channel();
        lock(&self.receivers).push(sender);
        Ok(receiver)
    }
}

/// The pool's configuration with TCP keepalives that notice a vanished server within about a
/// minute: an idle listening connection would otherwise wait for the system's (hours).
pub(super) fn listening_config(pool: &Config) -> Config {
    let mut config = pool.clone();
    config
        .keepalives(true)
        .keepalives_idle(Duration::from_secs(30))
        .keepalives_interval(Duration::from_secs(10))
        .keepalives_retries(3);
    config
}

/// Listens until the store's runtime shuts down, connecting again whenever the connection ends.
async fn run(listen: Listen, receivers: Receivers, ready: oneshot::Sender<Result<(), StoreError>>) {
    let mut ready = Some(ready);
    let mut pause = FIRST_PAUSE;
    loop {
        match listen_once(&listen, &receivers, &mut ready).await {
            Ok(()) => pause = FIRST_PAUSE,
            Err(e) => {
                if let Some(ready) = ready.take() {
                    let _ = ready.send(Err(e));
                    return;
                }
                tracing::warn!("cannot listen on the PostgreSQL channel {}: {e}", listen.channel);
            }
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

/// One connection's life: `LISTEN`, then forward notifications until it ends. `ready` is taken
/// when the first connection listens; on a later one, every perspective is announced.
async fn listen_once(
    listen: &Listen,
    receivers: &Receivers,
    ready: &mut Option<oneshot::Sender<Result<(), StoreError>>>,
) -> Result<(), StoreError> {
    let (client, mut connection) = listen.config.connect(NoTls).await.map_err(database_error)?;
    let forward = receivers.clone();
    let driver = tokio::spawn(async move {
        let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(note)) => announce(&forward, note.payload()),
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!("the PostgreSQL listening connection failed: {}", database_error(e));
                    break;
                }
            }
        }
    });
    set_up(&client, &listen.session).await.map_err(database_error)?;
    // The channel is `shacl_mcp_models_` and hex digits (Scope::new).
    client
        .batch_execute(&format!("LISTEN {}", listen.channel))
        .await
        .map_err(database_error)?;
    match ready.take() {
        Some(ready) => {
            let _ = ready.send(Ok(()));
        }
        None => announce_all(&client, receivers).await?,
    }
    // Until the connection ends; the client must live as long, or the connection closes.
    let _ = driver.await;
    drop(client);
    Ok(())
}

/// After a reconnection: any perspective may have changed unheard.
async fn announce_all(client: &Client, receivers: &Receivers) -> Result<(), StoreError> {
    let rows = client
        .query("SELECT uuid FROM perspectives ORDER BY id", &[])
        .await
        .map_err(database_error)?;
    for row in rows {
        if let Ok(uuid) = row.try_get::<_, String>(0) {
            announce(receivers, &uuid);
        }
    }
    Ok(())
}

/// Hands `uuid` to every receiver, forgetting those dropped.
fn announce(receivers: &Receivers, uuid: &str) {
    lock(receivers).retain(|sender| sender.send(uuid.to_string()).is_ok());
}
