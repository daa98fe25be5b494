//! Runs one request and shapes its HTTP response: plain JSON when the handler says nothing
//! before its result, an SSE stream as soon as it sends a notification first.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::identity::Identity;
use crate::panics::catch_panics;
use crate::protocol::{McpError, RawRequest, RequestId, code, error_line};
use crate::server::{Connection, Exchange, NotificationSink, Preparsed, Reply, Server, refusal};

use super::sse;

/// A request being answered; `Err` carries the payload of a panic.
type Answering = Pin<Box<dyn Future<Output = Result<Option<Reply>, Box<dyn Any + Send>>> + Send>>;

/// How many notifications a request may queue before its handler waits for the client.
pub(super) const STREAM_BUFFER: usize = 64;

/// Which wire's error-to-status rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StatusRules {
    /// 2026-07-28: the status tells intermediaries and clients what kind of error it is.
    Stateless,
    /// 2025-11-25 sessions: JSON-RPC errors travel with 200, because a 404 there means
    /// "session gone".
    Session,
}

/// One request to run, with everything it runs with.
pub(super) struct Job {
    pub request: RawRequest,
    pub connection: Arc<Connection>,
    /// The verified caller, once the transport authenticates.
    pub identity: Option<Arc<Identity>>,
    pub cancellation: CancellationToken,
    pub rules: StatusRules,
    /// Whether the client accepts `text/event-stream`. When it does not, notifications are
    /// dropped and the result goes out as JSON.
    pub sse_allowed: bool,
    /// Dropped when the handler is done (answered or cancelled), not when the response is:
    /// per-request bookkeeping must outlive the response head but not the request.
    pub held_until_done: Option<Box<dyn Send>>,
    /// The params as the gate reads them, when routing has read them already.
    pub preparsed: Option<Preparsed>,
    /// Fires on graceful shutdown: a listen then ends with its final result.
    pub closing: Arc<CancellationToken>,
}

/// Answers a request, as JSON or as SSE.
///
/// Everything up to the answering future is done before the returned future exists: it holds
/// only what it waits with, not the job (see `endpoint::post`).
pub(super) fn run(server: &Server, job: Job) -> impl Future<Output = Response> + use<> {
    let Job {
        request,
        connection,
        identity,
        cancellation,
        rules,
        sse_allowed,
        held_until_done,
        preparsed,
        closing,
    } = job;
    let id = request.id.clone();
    // A client that takes no SSE gets no notifications; for one that does, the stream's
    // channel is made by the first notification, which most requests never send.
    let (sink, first) = match sse_allowed {
        true => {
            let (sink, first) = NotificationSink::lazy(STREAM_BUFFER);
            (sink, Some(first))
        }
        false => (NotificationSink::discard(), None),
    };
    // Dropping the guard cancels the request: that happens when the client goes away before
    // the response starts, and (moved into the stream pump) when it closes the SSE stream. A
    // request answered whole is not cancelled after the fact (nor is one on stdio): the guard
    // is disarmed, which also spares the token's waiters a wake-up per request.
    let guard = cancellation.clone().drop_guard();
    let mut exchange = Exchange::new(connection, sink, cancellation)
        .with_identity(identity)
        .with_preparsed(preparsed)
        .closing_on(closing);
    if !sse_allowed {
        exchange = exchange.without_back_channel();
    }
    // Polled right here rather than spawned: most requests finish without a notification, and
    // a task of their own would cost an allocation, a schedule and a wake-up each. Boxed so a
    // request that starts streaming can move to the task that pumps its stream.
    let answering = server
        .clone()
        .answer_holding(request, exchange, held_until_done);
    let mut task: Answering = Box::pin(catch_panics(answering));
    async move {
        let Some(first) = first else {
            let joined = task.await;
            guard.disarm();
            return json(finished(&id, joined), rules);
        };
        tokio::select! {
            biased;
            joined = &mut task => answered(finished(&id, joined), first.try_take(), guard, rules),
            mut rx = first.made() => {
                // The first notification is on its way (usually queued already, by the handler
                // polled just now).
                tokio::select! {
                    biased;
                    Some(line) = rx.recv() => {
                        let (out_tx, out_rx) = mpsc::channel(STREAM_BUFFER);
                        tokio::spawn(pump_live(line, rx, task, id, out_tx, guard));
                        sse::response(out_rx)
                    }
                    joined = &mut task => answered(finished(&id, joined), Some(rx), guard, rules),
                }
            }
        }
    }
}

/// The response of a request answered before it streamed anything: JSON, or an SSE stream
/// when notifications are queued ahead of the result.
fn answered(
    reply: Reply,
    notifications: Option<mpsc::Receiver<String>>,
    guard: DropGuard,
    rules: StatusRules,
) -> Response {
    if let Some(mut rx) = notifications
        && let Ok(first) = rx.try_recv()
    {
        let (out_tx, out_rx) = mpsc::channel(STREAM_BUFFER);
        tokio::spawn(pump_finished(first, rx, reply.into_line(), out_tx, guard));
        return sse::response(out_rx);
    }
    guard.disarm();
    json(reply, rules)
}

/// The response line of a finished task. A cancelled request is never answered, but the HTTP
/// exchange still needs a body, so it gets an error the client has stopped waiting for anyway.
fn finished(id: &RequestId, joined: Result<Option<Reply>, Box<dyn Any + Send>>) -> Reply {
    let error = match joined {
        Ok(Some(reply)) => return reply,
        Ok(None) => McpError::internal("Request cancelled"),
        Err(_) => {
            tracing::error!("a request panicked outside its handler; answering -32603");
            McpError::internal("Internal error")
        }
    };
    Reply::error(Some(id), &error)
}

async fn pump_finished(
    first: String,
    mut rx: mpsc::Receiver<String>,
    line: String,
    out: mpsc::Sender<Bytes>,
    _guard: DropGuard,
) {
    let _ = out.send(sse::event(&first)).await;
    while let Ok(next) = rx.try_recv() {
        let _ = out.send(sse::event(&next)).await;
    }
    let _ = out.send(sse::event(&line)).await;
}

async fn pump_live(
    first: String,
    mut rx: mpsc::Receiver<String>,
    mut task: Answering,
    id: RequestId,
    out: mpsc::Sender<Bytes>,
    guard: DropGuard,
) {
    if out.send(sse::event(&first)).await.is_err() {
        return; // the guard drops here: the client left, so the request is cancelled
    }
    let line = loop {
        tokio::select! {
            biased;
            Some(next) = rx.recv() => {
                if out.send(sse::event(&next)).await.is_err() {
                    return;
                }
            }
            joined = &mut task => break finished(&id, joined).into_line(),
            () = out.closed() => return,
            // A stream that stays quiet (a listen with nothing to tell) is written to now and
            // then, so a proxy keeps it open and a client that vanished is noticed.
            () = tokio::time::sleep(sse::KEEP_ALIVE) => {
                if out.send(sse::keep_alive()).await.is_err() {
                    return;
                }
            }
        }
    };
    // Notifications queued just before the result still go first.
    while let Ok(next) = rx.try_recv() {
        let _ = out.send(sse::event(&next)).await;
    }
    let _ = out.send(sse::event(&line)).await;
    drop(guard);
}

/// What a response refusing a caller for its token's scopes carries to the endpoint, which
/// adds the challenge (it knows the resource server's metadata and schemes).
#[derive(Debug, Clone)]
pub(super) struct InsufficientScope(pub Vec<String>);

/// A JSON response with the status the rules give the reply's error code; `403`, on either
/// wire, for a caller whose token lacks a scope (the HTTP answer MCP clients step up on).
pub(super) fn json(mut reply: Reply, rules: StatusRules) -> Response {
    if let Some(scopes) = reply.take_required_scopes() {
        let mut response = json_with_status(reply.into_line(), StatusCode::FORBIDDEN);
        response.extensions_mut().insert(InsufficientScope(scopes));
        return response;
    }
    let status = match (reply.error_code(), rules) {
        (None, _) => StatusCode::OK,
        (Some(c), StatusRules::Stateless) => status_for(c),
        (Some(c), StatusRules::Session) => session_status_for(c),
    };
    with_retry_after(json_with_status(reply.into_line(), status))
}

/// A `503` tells clients, proxies and load balancers alike to back off; a second is what the
/// transport's own refusals ask for too (see `overload`).
fn with_retry_after(mut response: Response) -> Response {
    if response.status() == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

/// A JSON response with a fixed status.
pub(super) fn json_with_status(body: String, status: StatusCode) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// An error response for a request that never reached dispatch.
pub(super) fn error(id: Option<&RequestId>, error: &McpError, rules: StatusRules) -> Response {
    refusal::rpc(None, error);
    let line = error_line(id, error);
    let status = match rules {
        StatusRules::Stateless => status_for(error.code),
        StatusRules::Session => session_status_for(error.code),
    };
    with_retry_after(json_with_status(line, status))
}

/// A bodiless refusal, logged with its reason.
pub(super) fn refused(status: StatusCode, reason: &str) -> Response {
    refusal::http(status, reason);
    empty(status)
}

/// A bodiless response.
pub(super) fn empty(status: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

fn status_for(error_code: i32) -> StatusCode {
    match error_code {
        code::PARSE_ERROR
        | code::INVALID_REQUEST
        | code::INVALID_PARAMS
        | code::HEADER_MISMATCH
        | code::MISSING_REQUIRED_CLIENT_CAPABILITY
        | code::UNSUPPORTED_PROTOCOL_VERSION => StatusCode::BAD_REQUEST,
        code::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        code::SERVER_OVERLOADED => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::OK,
    }
}

fn session_status_for(error_code: i32) -> StatusCode {
    match error_code {
        code::PARSE_ERROR | code::INVALID_REQUEST => StatusCode::BAD_REQUEST,
        code::SERVER_OVERLOADED => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::OK,
    }
}
