//! How messages travel. Every transport here ends in a [`Duplex`]: a stream of incoming
//! frames and a sink of outgoing lines, which [`Server::serve`](crate::server::Server::serve)
//! and the [`Client`](crate::client::Client) both speak.

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "http")]
pub mod http_client;
pub mod memory;
mod message_loop;
pub mod stdio;

use tokio::sync::mpsc;

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

/// How many messages may wait in either direction before the sender waits.
pub const CHANNEL_CAPACITY: usize = 256;

/// Both directions of one connection.
#[derive(Debug)]
pub struct Duplex {
    /// Messages from the peer; ends when the peer hangs up.
    pub incoming: mpsc::Receiver<Frame>,
    /// Messages to the peer, one JSON text each (no newline).
    pub outgoing: mpsc::Sender<String>,
}
