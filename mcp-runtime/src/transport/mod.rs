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

use tokio::sync::{mpsc, oneshot};

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
