//! The client's side: what it knows of the server it talks to (from the transport it was
//! connected with), for its spans and durations, and the length of its 2025-11-25 sessions.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use super::metrics;

/// The server at the other end of a client's connection, as its transport describes it.
#[derive(Debug, Clone)]
pub(crate) struct ServerPeer {
    /// `network.transport`: `tcp` for HTTP, `pipe` for stdio and the in-memory pair.
    pub(crate) network_transport: &'static str,
    /// `server.address` and `server.port` of an HTTP endpoint.
    pub(crate) address: Option<(String, u16)>,
    /// The `Mcp-Session-Id` the HTTP transport holds once `initialize` got one.
    session: Option<Arc<Mutex<Option<String>>>>,
}

impl ServerPeer {
    /// An HTTP endpoint at `host:port`, whose session id the transport keeps in `session`.
    pub(crate) fn http(host: &str, port: u16, session: Arc<Mutex<Option<String>>>) -> Self {
        Self {
            network_transport: "tcp",
            // The URL's form of an IPv6 address is bracketed; the attribute's is not.
            address: Some((host.trim_matches(['[', ']']).to_owned(), port)),
            session: Some(session),
        }
    }

    /// A pipe pair: stdio, or the in-memory pair within one process.
    pub(crate) fn pipe() -> Self {
        Self {
            network_transport: "pipe",
            address: None,
            session: None,
        }
    }

    /// The HTTP session's id, if the transport has one.
    pub(crate) fn session_id(&self) -> Option<String> {
        let session = self.session.as_ref()?;
        session
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// A client's 2025-11-25 session under way: its duration is recorded when it is dropped,
/// which is when the client lets the session go (the client dropped, or another
/// `initialize`).
#[derive(Debug)]
pub(crate) struct SessionClock {
    started: Instant,
    protocol_version: String,
    server: Option<(String, u16)>,
}

impl SessionClock {
    pub(crate) fn start(protocol_version: String, peer: Option<&ServerPeer>) -> Self {
        Self {
            started: Instant::now(),
            protocol_version,
            server: peer.and_then(|peer| peer.address.clone()),
        }
    }
}

impl Drop for SessionClock {
    fn drop(&mut self) {
        metrics::client_session(
            self.started.elapsed(),
            std::mem::take(&mut self.protocol_version),
            self.server.take(),
        );
    }
}
