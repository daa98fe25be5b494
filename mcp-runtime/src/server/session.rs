//! Per-connection state. 2026-07-28 keeps none; a 2025-11-25 client's `initialize` opens a
//! session that lives as long as its connection.

use std::sync::Mutex;

use serde_json::Value;
use tokio::sync::mpsc;

use crate::protocol::{ClientCapabilities, Implementation, LoggingLevel, McpError, RawResponse};

use super::back_channel::BackChannel;

/// What a 2025-11-25 client declared at `initialize`.
#[derive(Debug, Clone)]
pub struct LegacySession {
    /// The negotiated revision.
    pub protocol_version: String,
    /// The client's capabilities for the whole session.
    pub capabilities: ClientCapabilities,
    /// The client's self-reported identity.
    pub client_info: Implementation,
    /// Set by `logging/setLevel`.
    pub log_level: Option<LoggingLevel>,
    /// Whether `notifications/initialized` has arrived.
    pub initialized: bool,
}

/// One transport connection (a stdio pipe pair, an in-memory pair, an HTTP session).
#[derive(Debug, Default)]
pub struct Connection {
    legacy: Mutex<Option<LegacySession>>,
    back_channel: BackChannel,
}

impl Connection {
    /// A fresh connection with no session.
    pub fn new() -> Self {
        Self::default()
    }

    /// The 2025-11-25 session, if `initialize` has succeeded on this connection.
    pub fn legacy_session(&self) -> Option<LegacySession> {
        self.lock().clone()
    }

    /// Lets this connection send requests to its (2025-11-25) client through `outgoing`.
    pub fn attach_client_channel(&self, outgoing: mpsc::Sender<String>) {
        self.back_channel.attach(outgoing);
    }

    /// Sends a request to the client and waits for its answer (2025-11-25 sessions only).
    pub async fn call_client(&self, method: &str, params: &Value) -> Result<Value, McpError> {
        self.back_channel.call(method, params).await
    }

    /// Routes a response from the client to the server request awaiting it; `false` when
    /// none is.
    pub fn deliver_client_response(&self, response: RawResponse) -> bool {
        self.back_channel.deliver(response)
    }

    /// Ends the back-channel: waiting requests fail.
    pub fn close(&self) {
        self.back_channel.close();
    }

    pub(crate) fn open_legacy(&self, session: LegacySession) -> bool {
        let mut slot = self.lock();
        if slot.is_some() {
            return false;
        }
        *slot = Some(session);
        true
    }

    pub(crate) fn mark_initialized(&self) {
        if let Some(s) = self.lock().as_mut() {
            s.initialized = true;
        }
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        if let Some(s) = self.lock().as_mut() {
            s.log_level = Some(level);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<LegacySession>> {
        // A panic while holding this lock cannot leave the session half-written (every
        // critical section is a single assignment), so a poisoned lock is still usable.
        self.legacy.lock().unwrap_or_else(|e| e.into_inner())
    }
}
