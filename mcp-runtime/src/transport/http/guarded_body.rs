//! A response body that holds something until the response has been sent: a connection's
//! count of requests in progress, or one of the endpoint's request slots.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use hyper::body::{Frame, SizeHint};

/// `body`, holding `guard` until it is dropped (when the response is sent, or abandoned).
#[derive(Debug)]
pub(super) struct Guarded<G> {
    body: Body,
    _guard: Option<G>,
}

impl<G> Guarded<G> {
    pub fn new(body: Body, guard: Option<G>) -> Self {
        Self {
            body,
            _guard: guard,
        }
    }
}

impl<G: Unpin> HttpBody for Guarded<G> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
