//! Leaving a load balancer's pool without failing a request.
//!
//! A balancer keeps idle HTTP/1.1 connections to each instance and reuses them. If a stopping
//! server closes one of those while the balancer is sending a POST on it, the request is lost
//! after it was sent, and a balancer does not retry a POST it has sent. So on shutdown the
//! server first refuses new connections (a refused connect is never sent, so the balancer retries
//! it elsewhere; see `accept`), marks every response `Connection: close` (the balancer reads that
//! before it could reuse the connection), and leaves idle connections for their peer to close,
//! for up to the drain period. Only then does it close what is idle, while requests in progress
//! finish, and a request head already arriving may still arrive (within its timeout).

use axum::http::{HeaderValue, header};
use axum::response::Response;
use tokio_util::sync::CancellationToken;

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
