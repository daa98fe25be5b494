//! Reading a request body: no larger than the endpoint's limit, no slower than its body
//! timeout, and within the budget of body bytes that all requests read at once share.
//!
//! The budget is taken chunk by chunk as bytes arrive, not reserved from `Content-Length`: a
//! client that announces a large body and sends nothing must not hold memory it never sent.
//! A body that would go over it is refused at once rather than made to wait, since waiting
//! would hold the bytes it has already sent.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use http_body_util::BodyExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::protocol::{McpError, error_line};
use crate::server::refusal;

use super::{overload, respond};

/// How request bodies are read.
#[derive(Debug)]
pub(super) struct BodyRules {
    limit: usize,
    timeout: Duration,
    /// One permit per byte held.
    budget: Arc<Semaphore>,
}

/// A request body, holding its share of the budget until dropped.
pub(super) struct ReadBody {
    pub bytes: Bytes,
    _held: Option<OwnedSemaphorePermit>,
}

impl BodyRules {
    /// `budget` is raised to `limit` if below it, or no body of the largest allowed size
    /// could ever be read.
    pub fn new(limit: usize, timeout: Duration, budget: usize) -> Self {
        let budget = budget.max(limit).min(Semaphore::MAX_PERMITS);
        Self {
            limit,
            timeout,
            budget: Arc::new(Semaphore::new(budget)),
        }
    }

    /// The whole body, or the refusal: `413` past the limit (told by `Content-Length` before
    /// anything is read, when the client sends one), `408` past the timeout, `503` past the
    /// budget, `400` when the client stops sending.
    pub async fn read(&self, mut body: Body) -> Result<ReadBody, Response> {
        if body.size_hint().lower() > self.limit as u64 {
            return Err(self.too_large());
        }
        // Started by the first frame that is not there yet: a small body arrives with its
        // head, and reading it then takes no clock reading and no timer.
        let mut deadline = None;
        let mut chunks = Chunks::default();
        let mut total = 0usize;
        let mut held: Option<OwnedSemaphorePermit> = None;
        loop {
            let mut next = body.frame();
            let frame = match poll_once(&mut next).await {
                Poll::Ready(frame) => frame,
                Poll::Pending => {
                    let deadline =
                        *deadline.get_or_insert_with(|| Instant::now().checked_add(self.timeout));
                    match deadline {
                        Some(deadline) => match tokio::time::timeout_at(deadline, next).await {
                            Ok(frame) => frame,
                            Err(_) => return Err(self.timed_out()),
                        },
                        None => next.await,
                    }
                }
            };
            let Some(frame) = frame else { break };
            let frame = frame.map_err(|error| {
                respond::refused(
                    StatusCode::BAD_REQUEST,
                    &format!("the body could not be read: {error}"),
                )
            })?;
            // Trailers carry nothing a JSON-RPC message needs.
            let Ok(data) = frame.into_data() else {
                continue;
            };
            total += data.len();
            if total > self.limit {
                return Err(self.too_large());
            }
            let share = u32::try_from(data.len())
                .ok()
                .and_then(|bytes| self.budget.clone().try_acquire_many_owned(bytes).ok())
                .ok_or_else(|| {
                    overload::overloaded(
                        None,
                        "Too many request bodies are being read; retry later",
                    )
                })?;
            match &mut held {
                Some(held) => held.merge(share),
                None => held = Some(share),
            }
            chunks.push(data);
        }
        Ok(ReadBody {
            bytes: chunks.into_bytes(),
            _held: held,
        })
    }

    fn too_large(&self) -> Response {
        let error = McpError::invalid_request(format!(
            "The request body is larger than this endpoint's limit of {} bytes",
            self.limit
        ));
        refusal::rpc(None, &error);
        respond::json_with_status(error_line(None, &error), StatusCode::PAYLOAD_TOO_LARGE)
    }

    fn timed_out(&self) -> Response {
        let error = McpError::invalid_request(format!(
            "The request body did not arrive within {:?}",
            self.timeout
        ));
        refusal::rpc(None, &error);
        let mut response =
            respond::json_with_status(error_line(None, &error), StatusCode::REQUEST_TIMEOUT);
        // The rest of the body may still be on its way; the connection cannot be reused.
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        response
    }
}

/// A body's chunks as they arrive: most bodies are one, which is kept as it came.
#[derive(Default)]
enum Chunks {
    #[default]
    None,
    One(Bytes),
    Many(Vec<Bytes>),
}

impl Chunks {
    fn push(&mut self, data: Bytes) {
        *self = match std::mem::take(self) {
            Chunks::None => Chunks::One(data),
            Chunks::One(first) => Chunks::Many(vec![first, data]),
            Chunks::Many(mut all) => {
                all.push(data);
                Chunks::Many(all)
            }
        };
    }

    fn into_bytes(self) -> Bytes {
        match self {
            Chunks::None => Bytes::new(),
            Chunks::One(bytes) => bytes,
            Chunks::Many(all) => Bytes::from(all.concat()),
        }
    }
}

/// Polls `future` once: its output, or `Pending` without waiting.
async fn poll_once<F: Future + Unpin>(future: &mut F) -> Poll<F::Output> {
    std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut *future).poll(cx))).await
}
