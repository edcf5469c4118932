//! The session store for `--http` with sessions: rmcp's `LocalSessionManager` (in memory,
//! closing a session after it has been idle for a while) with a cap on how many are open.

use std::fmt;
use std::time::Duration;

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionConfig,
};
use rmcp::transport::streamable_http_server::session::{RestoreOutcome, ServerSseMessage, SessionId};

/// At most `max` open sessions; each closes after `idle` without traffic.
pub(super) struct BoundedSessions {
    local: LocalSessionManager,
    max: usize,
    /// Serialises creation so that the count and the insert happen together.
    creating: tokio::sync::Mutex<()>,
}

impl BoundedSessions {
    pub fn new(max: usize, idle: Duration) -> BoundedSessions {
        let mut config = SessionConfig::default();
        config.keep_alive = Some(idle);
        let mut local = LocalSessionManager::default();
        local.session_config = config;
        BoundedSessions {
            local,
            max,
            creating: tokio::sync::Mutex::new(()),
        }
    }

    pub async fn open(&self) -> usize {
        self.local.sessions.read().await.len()
    }

    pub async fn is_full(&self) -> bool {
        self.open().await >= self.max
    }

    pub fn max(&self) -> usize {
        self.max
    }
}

#[derive(Debug)]
pub(super) enum SessionsError {
    Full(usize),
    Local(LocalSessionManagerError),
}

impl fmt::Display for SessionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionsError::Full(max) => write!(f, "too many open sessions (at most {max})"),
            SessionsError::Local(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SessionsError {}

impl From<LocalSessionManagerError> for SessionsError {
    fn from(e: LocalSessionManagerError) -> Self {
        SessionsError::Local(e)
    }
}

type Transport = <LocalSessionManager as SessionManager>::Transport;

impl SessionManager for BoundedSessions {
    type Error = SessionsError;
    type Transport = Transport;

    async fn create_session(&self) -> Result<(SessionId, Transport), SessionsError> {
        let _creating = self.creating.lock().await;
        if self.is_full().await {
            return Err(SessionsError::Full(self.max));
        }
        Ok(self.local.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, SessionsError> {
        Ok(self.local.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, SessionsError> {
        Ok(self.local.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), SessionsError> {
        Ok(self.local.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        Ok(self.local.create_stream(id, message).await?)
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), SessionsError> {
        Ok(self.local.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        Ok(self.local.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        Ok(self.local.resume(id, last_event_id).await?)
    }

    async fn restore_session(&self, id: SessionId) -> Result<RestoreOutcome<Transport>, SessionsError> {
        let _creating = self.creating.lock().await;
        if self.is_full().await {
            return Err(SessionsError::Full(self.max));
        }
        Ok(self.local.restore_session(id).await?)
    }
}
