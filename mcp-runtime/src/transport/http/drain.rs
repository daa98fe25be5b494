//! Leaving a load balancer's pool without failing a request.
//!
//! A balancer keeps idle HTTP/1.1 connections to each instance and reuses them. If a stopping
//! server closes one of those while the balancer is sending a POST on it, the request is lost
//! after it was sent, and a balancer does not retry a POST it has sent. So on shutdown the
//! server first refuses new connections (a refused connect is never sent, so the balancer retries
//! it elsewhere), marks every response `Connection: close` (the balancer reads that before it
//! could reuse the connection), and leaves idle connections for their peer to close, for up to
//! the drain period. Only then does the ordinary graceful shutdown close what is left.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::{HeaderValue, header};
use axum::response::Response;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// How long a failed `accept` (out of file descriptors, say) pauses the accept loop.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// A listener that closes its socket when `stop` is cancelled and counts the connections it
/// handed out that are still open.
pub(super) struct DrainingListener {
    listener: Option<TcpListener>,
    stop: CancellationToken,
    open: Arc<OpenConnections>,
}

impl DrainingListener {
    pub fn new(listener: TcpListener, stop: CancellationToken) -> Self {
        Self {
            listener: Some(listener),
            stop,
            open: Arc::default(),
        }
    }

    /// The connections this listener accepted that are still open.
    pub fn open_connections(&self) -> Arc<OpenConnections> {
        self.open.clone()
    }

    fn track(&self, stream: TcpStream) -> Tracked {
        self.open.count.fetch_add(1, Ordering::SeqCst);
        Tracked {
            stream,
            open: self.open.clone(),
        }
    }
}

impl axum::serve::Listener for DrainingListener {
    type Io = Tracked;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Some(listener) = &self.listener else {
                // Closed: axum stops calling once its own shutdown begins.
                return std::future::pending().await;
            };
            if self.stop.is_cancelled() {
                // Connections whose handshake already completed would be reset if the socket
                // closed under them, after the balancer sent its request: serve them first.
                match std::future::poll_fn(|cx| Poll::Ready(listener.poll_accept(cx))).await {
                    Poll::Ready(Ok((stream, addr))) => return (self.track(stream), addr),
                    Poll::Ready(Err(_)) | Poll::Pending => {
                        tracing::debug!("stopped accepting connections");
                        self.listener = None;
                        continue;
                    }
                }
            }
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, addr)) => return (self.track(stream), addr),
                    Err(e) => {
                        tracing::warn!(error = %e, "accepting a connection failed");
                        tokio::time::sleep(ACCEPT_RETRY).await;
                    }
                },
                () = self.stop.cancelled() => {}
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        match &self.listener {
            Some(listener) => listener.local_addr(),
            None => Err(io::Error::new(io::ErrorKind::NotConnected, "closed")),
        }
    }
}

/// How many accepted connections are still open.
#[derive(Debug, Default)]
pub(super) struct OpenConnections {
    count: AtomicUsize,
    closed: Notify,
}

impl OpenConnections {
    /// Completes once every accepted connection has closed.
    pub async fn all_closed(&self) {
        loop {
            let closed = self.closed.notified();
            tokio::pin!(closed);
            // Registered before the check, so a close in between is not missed.
            closed.as_mut().enable();
            if self.count.load(Ordering::SeqCst) == 0 {
                return;
            }
            closed.await;
        }
    }
}

/// An accepted connection that is counted while open.
pub(super) struct Tracked {
    stream: TcpStream,
    open: Arc<OpenConnections>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if self.open.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.open.closed.notify_waiters();
        }
    }
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Once shutdown has begun, tells the peer this connection closes after the response, so it
/// never sends another request on it.
pub(super) fn close_when_stopping(
    stopping: &CancellationToken,
    mut response: Response,
) -> Response {
    if stopping.is_cancelled() {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}
