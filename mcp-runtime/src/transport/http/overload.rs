//! Refusing work there is no room for with `503` and `Retry-After`, so a client backs off and
//! tries again rather than waiting on a server that is already full, and the requests that did
//! get in keep their share of it.

use std::sync::Arc;

use axum::body::{Body, HttpBody};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::protocol::{McpError, RequestId, error_line};
use crate::server::refusal;

use super::guarded_body::Guarded;
use super::respond;

/// A `503` saying why, as a JSON-RPC error for clients that read the body.
pub(super) fn overloaded(id: Option<&RequestId>, message: &'static str) -> Response {
    refusal::http(StatusCode::SERVICE_UNAVAILABLE, message);
    let line = error_line(id, &McpError::internal(message));
    let mut response = respond::json_with_status(line, StatusCode::SERVICE_UNAVAILABLE);
    // Whatever filled the server up is mostly short-lived: a second is worth waiting.
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// The JSON-RPC requests the endpoint may handle at once.
#[derive(Debug)]
pub(super) struct RequestSlots(Arc<Semaphore>);

/// One request's place among those handled at once.
pub(super) type Slot = OwnedSemaphorePermit;

impl RequestSlots {
    pub fn new(slots: usize) -> Self {
        // Zero would refuse every request; one is the least that serves.
        Self(Arc::new(Semaphore::new(
            slots.clamp(1, Semaphore::MAX_PERMITS),
        )))
    }

    /// A free slot, if any.
    pub fn take(&self) -> Option<Slot> {
        self.0.clone().try_acquire_owned().ok()
    }
}

/// Keeps `slot` taken until `response` has been sent: a complete body is, as far as the
/// handler is concerned, sent already; a streaming one (SSE) is the handler still at work.
pub(super) fn hold_until_sent(response: Response, slot: Slot) -> Response {
    if response.body().size_hint().exact().is_some() {
        return response;
    }
    response.map(|body| Body::new(Guarded::new(body, Some(slot))))
}
