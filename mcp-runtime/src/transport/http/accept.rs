//! Accepting connections: an accept error never stops the server nor makes it spin, running
//! out of file descriptors makes room by closing an idle connection, and on shutdown the
//! listening socket closes once the handshakes already completed are taken.

use std::io;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::connections::Connections;

/// How long a failed `accept` pauses the accept loop, or waits for room to be made.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// The listening socket, until `stop` is cancelled.
pub(super) struct Acceptor {
    listener: Option<TcpListener>,
    stop: CancellationToken,
    connections: Arc<Connections>,
}

impl Acceptor {
    pub fn new(
        listener: TcpListener,
        stop: CancellationToken,
        connections: Arc<Connections>,
    ) -> Self {
        Self {
            listener: Some(listener),
            stop,
            connections,
        }
    }

    /// The next connection; `None` once stopped.
    pub async fn next(&mut self) -> Option<TcpStream> {
        loop {
            let listener = self.listener.as_ref()?;
            if self.stop.is_cancelled() {
                // A connection whose handshake completed is one a balancer may have sent its
                // request on already; closing the socket would reset it, so serve it first.
                match std::future::poll_fn(|cx| Poll::Ready(listener.poll_accept(cx))).await {
                    Poll::Ready(Ok((stream, _))) => return Some(stream),
                    Poll::Ready(Err(_)) | Poll::Pending => {
                        tracing::debug!("stopped accepting connections");
                        self.listener = None;
                        return None;
                    }
                }
            }
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => return Some(stream),
                    Err(error) => self.recover(error).await,
                },
                () = self.stop.cancelled() => {}
            }
        }
    }

    async fn recover(&self, error: io::Error) {
        if out_of_descriptors(&error) {
            if self.connections.make_room_within(ACCEPT_RETRY).await {
                return;
            }
            tracing::warn!(%error, "out of file descriptors with every connection busy");
        } else if matches!(
            error.kind(),
            io::ErrorKind::ConnectionAborted
                | io::ErrorKind::ConnectionReset
                | io::ErrorKind::Interrupted
        ) {
            // Only that one connection failed; the next may be waiting.
            return;
        } else {
            tracing::warn!(%error, "accepting a connection failed");
        }
        tokio::time::sleep(ACCEPT_RETRY).await;
    }
}

/// `EMFILE` or `ENFILE`: the process or the system has no file descriptor left for a new
/// connection (std has no `ErrorKind` for either).
fn out_of_descriptors(error: &io::Error) -> bool {
    #[cfg(unix)]
    const CODES: [i32; 2] = [24, 23];
    // WSAEMFILE; Windows has no system-wide limit to run into.
    #[cfg(not(unix))]
    const CODES: [i32; 1] = [10024];
    error
        .raw_os_error()
        .is_some_and(|code| CODES.contains(&code))
}
