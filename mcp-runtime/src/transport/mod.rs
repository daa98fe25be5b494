//! How messages travel. Every transport here ends in a [`Duplex`]: a stream of incoming
//! frames and a sink of outgoing lines, which [`Server::serve`](crate::server::Server::serve)
//! and the [`Client`](crate::client::Client) both speak.

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "http")]
pub mod http_client;
mod in_flight;
pub(crate) mod line_framer;
pub mod memory;
mod message_loop;
pub mod stdio;

use tokio::sync::{mpsc, oneshot, watch};

/// Why an incoming frame could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// The line was longer than the limit; it was skipped up to its newline.
    #[error("message exceeds the {limit}-byte limit")]
    TooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// The line was not UTF-8.
    #[error("message is not valid UTF-8")]
    InvalidUtf8,
}

/// One incoming message, or why it could not be read.
pub type Frame = Result<String, FrameError>;

/// What starts a frame a transport tags with the request it came in answer to: the request's
/// id as JSON, a newline, then the message. Streamable HTTP knows it (a message on a request's
/// response stream is about that request); the wire has no field for it. No JSON text starts
/// this way, so a tagging transport drops any message that does, and only a duplex built
/// [tagging](Duplex::tagging_related) has its tags read.
pub(crate) const RELATED: &str = "\u{0}related ";

/// How many messages may wait in either direction before the sender waits.
pub const CHANNEL_CAPACITY: usize = 256;

/// Both directions of one connection.
#[derive(Debug)]
pub struct Duplex {
    /// Messages from the peer; ends when the peer hangs up.
    pub incoming: mpsc::Receiver<Frame>,
    /// Messages to the peer, one JSON text each (no newline).
    pub outgoing: mpsc::Sender<String>,
    /// Where the outgoing lines are written out by a task of their own (stdio), the way to wait
    /// for that task: a process must not exit with replies still queued.
    writer: Option<Flusher>,
    /// What the transport knows of the peer, for a client's spans and durations.
    #[cfg(feature = "otel")]
    pub(crate) server: Option<crate::telemetry::ServerPeer>,
    /// Whether its frames may carry a [`RELATED`] tag.
    pub(crate) tags_related: bool,
    /// Where the stream stands that carries what the server sends outside any request, for a
    /// transport that opens one of its own (HTTP, in a 2025-11-25 session).
    pub(crate) standing: Option<watch::Receiver<Standing>>,
}

/// Where a transport stands with the stream that carries what a server sends outside any
/// request: the standing GET stream of a 2025-11-25 session over HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// Only the HTTP client opens such a stream; without it, the client still asks where it stands.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) enum Standing {
    /// None is coming: no session was opened (yet).
    Absent,
    /// The session asked for it, and the server has not answered.
    Opening,
    /// The server answered: the stream is open, or the server offers none.
    Settled,
}

impl Duplex {
    /// Joins two channels into a duplex: the peer's messages arrive on `incoming`, and lines
    /// sent on `outgoing` reach it as soon as they are sent.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let (to_server, incoming) = tokio::sync::mpsc::channel(16);
    /// let (outgoing, mut from_server) = tokio::sync::mpsc::channel(16);
    /// let duplex = mcp::transport::Duplex::new(incoming, outgoing);
    /// # drop((to_server, duplex));
    /// # assert!(from_server.recv().await.is_none());
    /// # }
    /// ```
    pub fn new(incoming: mpsc::Receiver<Frame>, outgoing: mpsc::Sender<String>) -> Self {
        Self {
            incoming,
            outgoing,
            writer: None,
            #[cfg(feature = "otel")]
            server: None,
            tags_related: false,
            standing: None,
        }
    }

    /// Tells a client connected with this duplex what it talks to.
    #[cfg(feature = "otel")]
    pub(crate) fn talking_to(mut self, server: crate::telemetry::ServerPeer) -> Self {
        self.server = Some(server);
        self
    }

    /// This duplex's frames may carry a [`RELATED`] tag.
    #[cfg(feature = "http")]
    pub(crate) fn tagging_related(mut self) -> Self {
        self.tags_related = true;
        self
    }

    /// This duplex's transport opens a standing stream of its own, and says where it stands.
    #[cfg(feature = "http")]
    pub(crate) fn with_standing(mut self, standing: watch::Receiver<Standing>) -> Self {
        self.standing = Some(standing);
        self
    }

    fn written_by(mut self, writer: Flusher) -> Self {
        self.writer = Some(writer);
        self
    }
}

/// Asks a writer task to put out every line queued so far, and waits until it has.
#[derive(Debug, Clone)]
struct Flusher(mpsc::Sender<oneshot::Sender<()>>);

/// What a writer task receives from its [`Flusher`]: one acknowledgement to send per request.
type FlushRequests = mpsc::Receiver<oneshot::Sender<()>>;

impl Flusher {
    fn new() -> (Self, FlushRequests) {
        let (tx, rx) = mpsc::channel(1);
        (Self(tx), rx)
    }

    /// Returns once every line sent before this call is written and flushed, or the writer
    /// has stopped (its output failed): either way nothing more will come out.
    async fn flush(&self) {
        let (ack, done) = oneshot::channel();
        if self.0.send(ack).await.is_ok() {
            let _ = done.await;
        }
    }
}
