//! One connection to a server: the reader task that routes responses to their waiting
//! requests, notifications to their listens or the application, and the server's own requests
//! to the handlers; and sending requests of the revision in use.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{Semaphore, mpsc, oneshot, watch};

use crate::protocol::{
    CancelledParams, Incoming, McpError, RawNotification, RequestId, V2026_07_28, code, error_line,
    keys, methods, notification_line, notification_methods, request_line, result_line,
};
use crate::transport::{Duplex, RELATED, Standing};

use super::callbacks::Callbacks;
use super::hearing::Hearings;
use super::listen_routes::ListenRoutes;
use super::progress::ProgressRoutes;
use super::resource_subscriptions::ResourceSubscriptions;
use super::server_requests::answer_server_request;
use super::{Client, ClientError};

type Waiters = Mutex<HashMap<RequestId, oneshot::Sender<Result<Box<RawValue>, McpError>>>>;

/// How many notifications wait for the application before newer ones are dropped: a client
/// that never takes [`Client::notifications`] must not grow without end.
pub const NOTIFICATION_BUFFER: usize = 1024;

/// How many of the server's own requests (2025-11-25 back-channel) are answered at once; past
/// that a server asking more gets an error at once rather than a task each.
pub const MAX_SERVER_REQUESTS_IN_FLIGHT: usize = 64;

/// The sending half of a connection and the requests waiting for their answers.
pub(super) struct Connection {
    outgoing: mpsc::Sender<String>,
    waiting: Arc<Waiters>,
    next_id: AtomicI64,
    /// Set by the reader when the connection ends, so later requests fail at once.
    closed: Arc<AtomicBool>,
    /// The calls waiting for their progress reports.
    pub progress: Arc<ProgressRoutes>,
    /// The open listens, waiting for the changes they asked for.
    pub listens: Arc<ListenRoutes>,
    /// The resources a 2025-11-25 session is subscribed to on behalf of its listens.
    pub subscriptions: ResourceSubscriptions,
    /// The requests in flight whose callers hear what the server says during them.
    hearings: Arc<Hearings>,
    /// Whether a 2025-11-25 session is open, where the server may speak of any request.
    pub in_session: AtomicBool,
    /// Where the transport's standing stream stands, for a transport that opens one.
    standing: Option<watch::Receiver<Standing>>,
}

impl Connection {
    /// Starts the reader task of `duplex`; the notifications it reads go to the returned
    /// receiver.
    pub fn open(
        duplex: Duplex,
        callbacks: Arc<Callbacks>,
    ) -> (Self, mpsc::Receiver<RawNotification>) {
        let Duplex {
            mut incoming,
            outgoing,
            tags_related,
            standing,
            ..
        } = duplex;
        let waiting: Arc<Waiters> = Arc::default();
        let closed = Arc::new(AtomicBool::new(false));
        let (note_tx, note_rx) = mpsc::channel(NOTIFICATION_BUFFER);
        let answering = Arc::new(Semaphore::new(MAX_SERVER_REQUESTS_IN_FLIGHT));
        let mut dropped = 0u64;
        let router = waiting.clone();
        let replies = outgoing.clone();
        let closing = closed.clone();
        let progress: Arc<ProgressRoutes> = Arc::default();
        let routes = progress.clone();
        let listens: Arc<ListenRoutes> = Arc::default();
        let listening = listens.clone();
        let hearings: Arc<Hearings> = Arc::default();
        let heard = hearings.clone();
        tokio::spawn(async move {
            while let Some(frame) = incoming.recv().await {
                let Ok(line) = frame else { continue };
                let (related, line) = match tags_related {
                    true => split_related(line),
                    false => (None, line),
                };
                match Incoming::parse(&line) {
                    Ok(Incoming::Response(r)) => {
                        let waiter = lock(&router).remove(&r.id);
                        match waiter {
                            Some(tx) => {
                                let _ = tx.send(r.outcome);
                            }
                            None if listening.finish(&r.id, r.outcome) => {}
                            None => tracing::debug!(id = %r.id, "late or unknown response"),
                        }
                    }
                    Ok(Incoming::Notification(n)) => {
                        let n = if n.method == notification_methods::PROGRESS {
                            match routes.deliver(n) {
                                Some(unclaimed) => unclaimed,
                                None => continue,
                            }
                        } else {
                            n
                        };
                        let Some(n) = listening.deliver(n, &replies) else {
                            continue;
                        };
                        let n = if n.method == notification_methods::PROGRESS {
                            n
                        } else {
                            match heard.deliver(n, related.as_ref()) {
                                Some(unheard) => unheard,
                                None => continue,
                            }
                        };
                        if let Err(TrySendError::Full(n)) = note_tx.try_send(n) {
                            dropped += 1;
                            // Logged at powers of two: a steady flood stays readable.
                            if dropped.is_power_of_two() {
                                tracing::warn!(
                                    dropped,
                                    method = %n.method,
                                    "dropped a server notification: nobody reads them"
                                );
                            }
                        }
                    }
                    Ok(Incoming::Request(request)) => {
                        // A 2025-11-25 server asking over the back-channel: its requests are
                        // answered concurrently with everything else, up to one bound, whether
                        // a request's caller hears them or the client's handlers answer.
                        let Ok(permit) = answering.clone().try_acquire_owned() else {
                            let error = McpError::internal(format!(
                                "The client is answering {MAX_SERVER_REQUESTS_IN_FLIGHT} \
                                 requests of this server already"
                            ));
                            let _ = replies.send(error_line(Some(&request.id), &error)).await;
                            continue;
                        };
                        let id = request.id.clone();
                        // A ping is the connection's, answered here whoever is in flight.
                        let heard = match request.method == methods::PING {
                            true => Err(request),
                            false => heard.ask(request, related.as_ref()),
                        };
                        let replies = replies.clone();
                        match heard {
                            Ok(answer) => tokio::spawn(async move {
                                let line = match answer.await {
                                    Ok(Ok(result)) => result_line(&id, &result),
                                    Ok(Err(error)) => error_line(Some(&id), &error),
                                    Err(_) => error_line(
                                        Some(&id),
                                        &McpError::internal("The request was not answered"),
                                    ),
                                };
                                drop(permit);
                                let _ = replies.send(line).await;
                            }),
                            Err(request) => {
                                let callbacks = callbacks.clone();
                                tokio::spawn(async move {
                                    let line = answer_server_request(&callbacks, request).await;
                                    drop(permit);
                                    let _ = replies.send(line).await;
                                })
                            }
                        };
                    }
                    Err(rejected) => tracing::debug!(error = %rejected.error, "bad message"),
                }
            }
            // Closing: every waiter learns the connection is gone, and later requests fail
            // at once instead of waiting for an answer that cannot come.
            closing.store(true, Ordering::SeqCst);
            lock(&router).clear();
            listening.close();
        });
        let connection = Self {
            outgoing,
            waiting,
            next_id: AtomicI64::new(1),
            closed,
            progress,
            listens,
            subscriptions: ResourceSubscriptions::default(),
            hearings,
            in_session: AtomicBool::new(false),
            standing,
        };
        (connection, note_rx)
    }

    /// Sends a request exactly as given and decodes its result.
    pub async fn request<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, ClientError> {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        #[cfg(feature = "otel")]
        tracing::Span::current().record("jsonrpc.request.id", tracing::field::display(&id));
        let (tx, rx) = oneshot::channel();
        let line = request_line(&id, method, params);
        // Heard from before the request goes out, so nothing said about it is missed. A
        // request's `_meta` is not parsed again to find a log level: the key anywhere in it
        // counts, which only ever makes ties rarer.
        let spoken_of = self.in_session.load(Ordering::SeqCst) || line.contains(keys::LOG_LEVEL);
        let _heard = self.hearings.open(&id, spoken_of).then(|| HeldHearing {
            hearings: &self.hearings,
            id: id.clone(),
        });
        lock(&self.waiting).insert(id.clone(), tx);
        // Checked after registering, so a close racing with this request is always seen.
        if self.is_closed() {
            lock(&self.waiting).remove(&id);
            return Err(ClientError::Closed);
        }
        if self.outgoing.send(line).await.is_err() {
            lock(&self.waiting).remove(&id);
            return Err(ClientError::Closed);
        }
        // From here until the answer, dropping this future (the caller gave up, or the call
        // timeout fired) tells the server to stop.
        let mut pending = Pending {
            connection: self,
            id: Some(id).filter(|_| method != methods::INITIALIZE),
        };
        let answer = rx.await;
        pending.id = None;
        let raw = answer.map_err(|_| ClientError::Closed)??;
        Ok(serde_json::from_str(raw.get())?)
    }

    /// Sends `line` without waiting (see [`send_detached`]).
    pub fn send_detached(&self, line: String) {
        send_detached(&self.outgoing, line);
    }

    /// Sends a line that must wait for room in the outgoing queue.
    pub async fn send(&self, line: String) -> Result<(), ClientError> {
        self.outgoing
            .send(line)
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// The next id of a listen: from the same sequence as the requests' ids, as a string
    /// that says what it is, so the reader knows a server's `notifications/cancelled` for a
    /// listen even once that listen is gone.
    pub fn listen_id(&self) -> RequestId {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        RequestId::String(format!("{LISTEN_ID_PREFIX}{n}"))
    }

    /// Whether the reader saw the connection end.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Waits, at most `bound`, until the server has answered the transport's request for its
    /// standing stream; `false` when it has not by then. At once for a transport that opens
    /// none, or a stream that no session asked for.
    pub async fn standing_settled(&self, bound: Duration) -> bool {
        let Some(mut standing) = self.standing.clone() else {
            return true;
        };
        let settled = standing.wait_for(|now| *now != Standing::Opening);
        // Within the bound, a transport gone (an error from the wait) counts as settled too:
        // there is nothing more to wait for.
        tokio::time::timeout(bound, settled).await.is_ok()
    }
}

/// The request a tagged frame names (see [`RELATED`]), and the message.
fn split_related(line: String) -> (Option<RequestId>, String) {
    let Some(tagged) = line.strip_prefix(RELATED) else {
        return (None, line);
    };
    match tagged.split_once('\n') {
        Some((id, message)) => (serde_json::from_str(id).ok(), message.to_owned()),
        None => (None, line),
    }
}

/// A request's hold on its hearing, however the request ends.
struct HeldHearing<'a> {
    hearings: &'a Hearings,
    id: RequestId,
}

impl Drop for HeldHearing<'_> {
    fn drop(&mut self) {
        self.hearings.close(&self.id);
    }
}

/// What every listen id starts with (and no other id of this client does).
pub(super) const LISTEN_ID_PREFIX: &str = "listen-";

/// `notifications/cancelled` for the request `id`.
pub(super) fn cancel_line(id: RequestId, reason: &str) -> String {
    let params = CancelledParams {
        request_id: id,
        reason: Some(reason.to_owned()),
    };
    notification_line(notification_methods::CANCELLED, &params)
}

/// Sends `line` at once if there is room, or from a task once there is: for a `Drop` or the
/// reader, which must not wait for room, telling the server to stop something.
pub(super) fn send_detached(outgoing: &mpsc::Sender<String>, line: String) {
    match outgoing.try_send(line) {
        Ok(()) | Err(TrySendError::Closed(_)) => {}
        Err(TrySendError::Full(line)) => {
            let outgoing = outgoing.clone();
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move { outgoing.send(line).await });
            }
        }
    }
}

impl Client {
    /// Sends a request exactly as given (no `_meta` added) and decodes its result.
    pub async fn request_raw<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, ClientError> {
        self.inner.connection.request(method, params).await
    }

    /// Sends a request of the current revision: in 2026-07-28, `_meta` carries the version,
    /// capabilities and client info (capabilities already in `params._meta` are kept: a proxy
    /// declares its caller's, not its own). A server that refuses the version (`-32022`) but lists
    /// 2026-07-28 among the ones it supports gets the request once more.
    pub async fn request<R: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<R, ClientError> {
        #[cfg(feature = "otel")]
        return self.traced_request(method, params).await;
        #[cfg(not(feature = "otel"))]
        self.send_request(method, params).await
    }

    /// [`request`](Self::request) without the telemetry's span.
    pub(super) async fn send_request<R: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<R, ClientError> {
        let params = self.with_meta(params)?;
        match self.request_raw(method, &params).await {
            Err(ClientError::Rpc(error)) if retry_version(&error) => {
                self.request_raw(method, &params).await
            }
            other => other,
        }
    }

    pub(super) fn with_meta(&self, params: Value) -> Result<Map<String, Value>, ClientError> {
        let mut params = match params {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        if !self.in_session() {
            let meta = params
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                meta.insert(keys::PROTOCOL_VERSION.into(), json!(V2026_07_28));
                if !meta.contains_key(keys::CLIENT_CAPABILITIES) {
                    meta.insert(
                        keys::CLIENT_CAPABILITIES.into(),
                        serde_json::to_value(&self.inner.capabilities)?,
                    );
                }
                meta.insert(
                    keys::CLIENT_INFO.into(),
                    serde_json::to_value(&self.inner.info)?,
                );
            }
        }
        Ok(params)
    }

    /// Sends a notification.
    pub async fn notify<P: Serialize>(&self, method: &str, params: &P) -> Result<(), ClientError> {
        let line = notification_line(method, params);
        self.inner.connection.send(line).await
    }
}

/// A request sent and not yet answered. Dropped before its answer, it cancels the request:
/// the waiter goes, and the server gets `notifications/cancelled` (which the Streamable HTTP
/// transport turns into closing the request's stream on the 2026-07-28 wire, as that wire
/// wants).
struct Pending<'a> {
    connection: &'a Connection,
    /// `None` once answered, and for `initialize`, which the spec says is never cancelled.
    id: Option<RequestId>,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let connection = self.connection;
        lock(&connection.waiting).remove(&id);
        if !connection.is_closed() {
            connection.send_detached(cancel_line(id, "The client stopped waiting"));
        }
    }
}

/// Whether a `-32022` refusal names a revision this client speaks, so a retry can succeed.
fn retry_version(error: &McpError) -> bool {
    error.code == code::UNSUPPORTED_PROTOCOL_VERSION
        && error
            .data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array)
            .is_some_and(|versions| versions.iter().any(|v| v == V2026_07_28))
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
