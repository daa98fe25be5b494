//! Server-sent events: the framing, and a response body fed by a channel.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::sync::mpsc;

/// One JSON-RPC message as an SSE event.
pub(super) fn event(line: &str) -> Bytes {
    // A JSON text serialized by serde_json has no raw newlines, so one `data:` line suffices.
    Bytes::from(format!("event: message\ndata: {line}\n\n"))
}

/// One JSON-RPC message as an SSE event a client may resume the stream after.
pub(super) fn event_with_id(id: &str, line: &str) -> Bytes {
    Bytes::from(format!("id: {id}\nevent: message\ndata: {line}\n\n"))
}

/// How long a client whose resumable stream broke should wait before reconnecting: short,
/// since the events it misses meanwhile are kept only up to a bound.
pub(super) const RECONNECT_AFTER: std::time::Duration = std::time::Duration::from_millis(500);

/// The event that opens a resumable stream: no message, only a place to resume from and how
/// soon to reconnect, so a client that loses the stream before its first message still
/// resumes rather than starting over.
pub(super) fn opening(id: &str) -> Bytes {
    let retry = RECONNECT_AFTER.as_millis();
    // `data:` with nothing after it: clients of 2025-11-25 skip an event without data.
    Bytes::from(format!("id: {id}\nretry: {retry}\ndata:\n\n"))
}

/// How often an idle long-lived stream gets a keep-alive comment.
pub(super) const KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(15);

/// A comment line: keeps idle proxies from closing a long-lived stream.
pub(super) fn keep_alive() -> Bytes {
    Bytes::from_static(b": keep-alive\n\n")
}

/// A body that yields whatever arrives on `rx` and ends when every sender is gone.
struct ChannelBody(mpsc::Receiver<Bytes>);

impl futures_core::Stream for ChannelBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(cx).map(|chunk| chunk.map(Ok))
    }
}

/// A `200 text/event-stream` response whose events come from `rx`.
pub(super) fn response(rx: mpsc::Receiver<Bytes>) -> Response {
    let mut response = Response::new(Body::from_stream(ChannelBody(rx)));
    *response.status_mut() = StatusCode::OK;
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Reverse proxies (nginx) would otherwise hold events back until their buffer fills.
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
