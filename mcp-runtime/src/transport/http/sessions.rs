//! The 2025-11-25 wire: `initialize` opens a session named by `Mcp-Session-Id`; later requests
//! carry it; a GET opens the session's server→client stream; DELETE ends the session.
//!
//! Each session owns a [`Connection`], so the dispatcher sees the same session state it would on
//! stdio. Server→client requests a handler sends (`Context::request_client`) go out on
//! that request's own SSE stream, and the client's answer comes back as a POSTed response that
//! the session's connection routes to the waiting handler. Messages that belong to no request
//! go out on the session's GET stream: what the server pushes
//! (`notifications/{tools,prompts,resources}/list_changed`, and
//! `notifications/resources/updated` for the session's subscriptions) and what hooks run
//! outside any request send. That stream is resumable ([`get_stream`]):
//! from the session's first GET on, its events are numbered and the latest
//! [`REPLAY_BUFFER`](super::REPLAY_BUFFER) kept, so a client that reconnects with
//! `Last-Event-ID` is sent what it missed meanwhile; a session that never opens the stream
//! keeps nothing.
//!
//! When the endpoint requires bearer tokens, a session belongs to the caller that opened it
//! (its client id, issuer and subject, as sealed `requestState` is bound): another caller's
//! request for it is answered `404`, exactly as for a session that does not exist, so a
//! session id learnt by someone else is worth nothing and its existence is not revealed.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::identity::Identity;
use crate::protocol::{
    Incoming, LEGACY_VERSIONS, McpError, error_line, methods, notification_methods,
};
use crate::server::{Connection, Exchange, NotificationSink, refusal};
use crate::state::default_principal;
use crate::transport::in_flight::InFlight;

use super::Shared;
use super::get_stream::{self, GetStream, Owner, Refused};
use super::headers::{self, SESSION_ID};
use super::overload;
use super::respond::{self, Job, StatusRules};

/// One 2025-11-25 session.
#[derive(Debug)]
pub(super) struct Session {
    connection: Arc<Connection>,
    /// Who opened it ([`default_principal`]; `None` without authentication).
    owner: Option<String>,
    last_seen: Mutex<Instant>,
    /// Cancels everything the session runs when it ends.
    ended: CancellationToken,
    /// Requests in flight, for `notifications/cancelled` and against a reused id.
    in_flight: Arc<InFlight>,
    /// Messages that belong to no request.
    get_stream: Arc<GetStream>,
    /// For `mcp.server.session.duration`.
    #[cfg(feature = "otel")]
    opened: Instant,
}

/// The session is gone for good once the last request holding it lets go.
#[cfg(feature = "otel")]
impl Drop for Session {
    fn drop(&mut self) {
        let version = self.connection.legacy_session();
        let version = version.map(|session| session.protocol_version);
        crate::telemetry::server_session(self.opened.elapsed(), version);
    }
}

impl Session {
    fn new(owner: Option<String>) -> Self {
        Self {
            connection: Arc::new(Connection::new()),
            owner,
            last_seen: Mutex::new(Instant::now()),
            ended: CancellationToken::new(),
            in_flight: Arc::default(),
            get_stream: Arc::default(),
            #[cfg(feature = "otel")]
            opened: Instant::now(),
        }
    }

    fn touch(&self) {
        *lock(&self.last_seen) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        lock(&self.last_seen).elapsed()
    }

    /// Cancels what the session runs and fails its unanswered questions to the client.
    fn end(&self) {
        self.ended.cancel();
        self.connection.abandon_answers();
    }

    /// A request running or the GET stream open: ending the session now would cut off a
    /// client in the middle of using it.
    fn in_use(&self) -> bool {
        !self.in_flight.is_empty() || self.get_stream.is_open()
    }

    /// A session in use never expires, however long ago its last POST was.
    fn expired(&self, timeout: Duration) -> bool {
        !self.in_use() && self.idle_for() > timeout
    }
}

/// The live sessions: bounded in all and per authenticated caller, and swept of idle ones
/// whenever a new one opens.
///
/// Room for a new session is made by ending the longest idle one that is not in use; one in
/// use is never ended for it, since a flood of `initialize` calls would otherwise cut off the
/// clients actually working. When all are in use the new one is refused. An authenticated
/// caller at its own cap makes room among its own sessions only.
#[derive(Debug)]
pub(super) struct SessionTable {
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    capacity: usize,
    per_owner: usize,
    idle_timeout: Duration,
}

/// Why no session was opened.
enum NotOpened {
    /// Every session that could make room is in use.
    Full,
    Failed(McpError),
}

impl SessionTable {
    pub fn new(capacity: usize, per_owner: usize, idle_timeout: Duration) -> Self {
        Self {
            sessions: Mutex::default(),
            // Zero would refuse every session; one is the least that works.
            capacity: capacity.max(1),
            per_owner: per_owner.max(1),
            idle_timeout,
        }
    }

    /// The live session `id` if `caller` owns it.
    fn get(&self, id: &str, caller: Option<&Identity>) -> Option<Arc<Session>> {
        let mut sessions = lock(&self.sessions);
        let session = sessions.get(id)?.clone();
        if session.owner != default_principal(caller) {
            tracing::warn!(
                subject = caller
                    .and_then(|c| c.subject.as_deref())
                    .unwrap_or_default(),
                "refused a request for another caller's session"
            );
            return None;
        }
        if session.expired(self.idle_timeout) {
            sessions.remove(id);
            session.end();
            return None;
        }
        session.touch();
        Some(session)
    }

    /// Opens a session, evicting expired ones first, then, at a cap, the longest idle one not
    /// in use.
    fn open(&self, caller: Option<&Identity>) -> Result<(String, Arc<Session>), NotOpened> {
        let id = new_session_id().map_err(NotOpened::Failed)?;
        let owner = default_principal(caller);
        let mut sessions = lock(&self.sessions);
        sessions.retain(|_, s| {
            let keep = !s.expired(self.idle_timeout);
            if !keep {
                s.end();
            }
            keep
        });
        // Without authentication every caller is the same nobody: only the total applies.
        if owner.is_some() {
            let own = sessions.values().filter(|s| s.owner == owner).count();
            if own >= self.per_owner {
                evict_idlest(&mut sessions, |s| s.owner == owner)?;
            }
        }
        if sessions.len() >= self.capacity {
            evict_idlest(&mut sessions, |_| true)?;
        }
        let session = Arc::new(Session::new(owner));
        #[cfg(feature = "otel")]
        let _ = (session.connection.peer).set(crate::telemetry::Peer::http(Some(id.clone())));
        sessions.insert(id.clone(), session.clone());
        Ok((id, session))
    }

    /// Ends session `id` if `caller` owns it.
    fn close(&self, id: &str, caller: Option<&Identity>) -> bool {
        let mut sessions = lock(&self.sessions);
        let owner = default_principal(caller);
        if sessions.get(id).is_none_or(|s| s.owner != owner) {
            return false;
        }
        sessions.remove(id).inspect(|s| s.end()).is_some()
    }

    /// Drops a session that never got going.
    fn discard(&self, id: &str) {
        if let Some(session) = lock(&self.sessions).remove(id) {
            session.end();
        }
    }

    /// Ends every session (server shutdown).
    pub fn close_all(&self) {
        for (_, s) in lock(&self.sessions).drain() {
            s.end();
        }
    }
}

/// Ends the longest idle of the `eligible` sessions that is not in use.
fn evict_idlest(
    sessions: &mut HashMap<String, Arc<Session>>,
    eligible: impl Fn(&Session) -> bool,
) -> Result<(), NotOpened> {
    let idlest = sessions
        .iter()
        .filter(|(_, s)| eligible(s) && !s.in_use())
        .max_by_key(|(_, s)| s.idle_for())
        .map(|(id, _)| id.clone())
        .ok_or(NotOpened::Full)?;
    if let Some(evicted) = sessions.remove(&idlest) {
        evicted.end();
    }
    Ok(())
}

/// 128 random bits, hex: unguessable, and plain visible ASCII as the header requires.
fn new_session_id() -> Result<String, McpError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| {
        tracing::error!(error = %e, "no randomness for a session id");
        McpError::internal("Could not open a session")
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn session_header(headers: &HeaderMap) -> Option<String> {
    headers::header(headers, &SESSION_ID)
        .ok()
        .flatten()
        .map(Cow::into_owned)
}

/// A session-level refusal: the status says what happened to the session, the body says it in
/// JSON-RPC terms for clients that read it.
fn no_session(status: StatusCode, message: impl Into<Cow<'static, str>>) -> Response {
    let message = message.into();
    refusal::http(status, &message);
    let line = error_line(None, &McpError::invalid_request(message));
    respond::json_with_status(line, status)
}

/// Whether this POST belongs to the session wire.
pub(super) fn wants_session(headers: &HeaderMap, message: &Incoming) -> bool {
    headers.contains_key(&SESSION_ID)
        || matches!(message, Incoming::Request(r) if r.method == methods::INITIALIZE)
}

/// Serves one POST on the session wire.
pub(super) async fn handle_post(
    shared: &Shared,
    headers: &HeaderMap,
    message: Incoming,
    identity: Option<Arc<Identity>>,
    sse_allowed: bool,
) -> Response {
    let Some(session_id) = session_header(headers) else {
        return match message {
            Incoming::Request(request) if request.method == methods::INITIALIZE => {
                initialize(shared, request, identity).await
            }
            _ => no_session(
                StatusCode::BAD_REQUEST,
                "Missing Mcp-Session-Id header: call initialize first",
            ),
        };
    };
    let Some(session) = shared.sessions.get(&session_id, identity.as_deref()) else {
        return no_session(StatusCode::NOT_FOUND, "Session not found or expired");
    };
    // 2025-11-25 clients repeat the negotiated version on every request; one this wire cannot
    // speak means the client and server disagree about the session, which 400 tells it.
    if let Ok(Some(version)) = headers::header(headers, &headers::PROTOCOL_VERSION)
        && !LEGACY_VERSIONS.contains(&version.as_ref())
    {
        let error = McpError::invalid_request(format!(
            "Unsupported MCP-Protocol-Version {version:?} in a session"
        ));
        return respond::error(None, &error, StatusRules::Session);
    }
    match message {
        Incoming::Request(request) => {
            let token = session.ended.child_token();
            let entry = match session.in_flight.admit(&request.id, token.clone()) {
                Ok(entry) => entry,
                Err(error) => {
                    return respond::error(Some(&request.id), &error, StatusRules::Session);
                }
            };
            let job = Job {
                request,
                connection: session.connection.clone(),
                identity,
                cancellation: token,
                rules: StatusRules::Session,
                sse_allowed,
                held_until_done: Some(Box::new(entry)),
                preparsed: None,
                closing: shared.streams_closing.clone(),
            };
            respond::run(&shared.server, job).await
        }
        Incoming::Notification(n) => {
            match n.method.as_str() {
                notification_methods::INITIALIZED => session.connection.mark_initialized(),
                notification_methods::CANCELLED => session.in_flight.cancel(n.params.as_deref()),
                // Only a notification with a hook gets the forwarding task a hook's messages
                // need.
                notification_methods::ROOTS_LIST_CHANGED => {
                    let exchange = Exchange::new(
                        session.connection.clone(),
                        NotificationSink::new(to_get_stream(&session)),
                        session.ended.child_token(),
                    )
                    .with_identity(identity);
                    shared.server.notified(&n, exchange);
                }
                other => tracing::debug!(method = other, "ignored a notification"),
            }
            respond::empty(StatusCode::ACCEPTED)
        }
        Incoming::Response(r) => {
            let id = r.id.clone();
            if !session.connection.deliver(r) {
                tracing::debug!(%id, "dropped a response to no request of ours");
            }
            respond::empty(StatusCode::ACCEPTED)
        }
    }
}

async fn initialize(
    shared: &Shared,
    request: crate::protocol::RawRequest,
    identity: Option<Arc<Identity>>,
) -> Response {
    let id = request.id.clone();
    let (session_id, session) = match shared.sessions.open(identity.as_deref()) {
        Ok(opened) => opened,
        Err(NotOpened::Full) => {
            return overload::overloaded(Some(&id), "Every session is in use; retry later");
        }
        Err(NotOpened::Failed(error)) => {
            return respond::error(Some(&id), &error, StatusRules::Session);
        }
    };
    let job = Job {
        request,
        connection: session.connection.clone(),
        identity,
        cancellation: session.ended.child_token(),
        rules: StatusRules::Session,
        sse_allowed: true,
        held_until_done: None,
        preparsed: None,
        closing: shared.streams_closing.clone(),
    };
    let mut response = respond::run(&shared.server, job).await;
    if session.connection.legacy_session().is_none() {
        // initialize failed: the session never started.
        shared.sessions.discard(&session_id);
        return response;
    }
    match HeaderValue::from_str(&session_id) {
        Ok(value) => {
            response.headers_mut().insert(SESSION_ID, value);
        }
        Err(_) => {
            shared.sessions.discard(&session_id);
        }
    }
    response
}

/// GET: the session's stream of server-initiated messages.
pub(super) fn handle_get(
    shared: &Shared,
    headers: &HeaderMap,
    identity: Option<&Identity>,
) -> Response {
    let Some(session_id) = session_header(headers) else {
        return respond::refused(
            StatusCode::METHOD_NOT_ALLOWED,
            "GET without an Mcp-Session-Id header",
        );
    };
    if !headers::accepts(headers, "text/event-stream") {
        return respond::refused(
            StatusCode::NOT_ACCEPTABLE,
            "a GET stream for a client that does not accept text/event-stream",
        );
    }
    let Some(session) = shared.sessions.get(&session_id, identity) else {
        return no_session(StatusCode::NOT_FOUND, "Session not found or expired");
    };
    let owner = Owner {
        server: &shared.server,
        connection: &session.connection,
        ended: &session.ended,
        closing: &shared.streams_closing,
    };
    let opened =
        get_stream::start(headers).and_then(|start| session.get_stream.open(&owner, start));
    match opened {
        Ok(stream) => stream,
        Err(Refused::AlreadyOpen) => no_session(
            StatusCode::CONFLICT,
            "This session already has an open GET stream",
        ),
        Err(Refused::BadLastEventId(reason)) => no_session(StatusCode::BAD_REQUEST, reason),
    }
}

/// Where a hook of the session (run for a notification, outside any request) sends its
/// messages: the session's GET stream, if it ever opened one.
fn to_get_stream(session: &Arc<Session>) -> mpsc::Sender<String> {
    let (tx, mut rx) = mpsc::channel::<String>(respond::STREAM_BUFFER);
    let stream = session.get_stream.clone();
    tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            if !stream.send(&line) {
                tracing::debug!("dropped a message: the session never opened its GET stream");
            }
        }
    });
    tx
}

/// DELETE: the client ends its session.
pub(super) fn handle_delete(
    shared: &Shared,
    headers: &HeaderMap,
    identity: Option<&Identity>,
) -> Response {
    let Some(session_id) = session_header(headers) else {
        return respond::refused(
            StatusCode::METHOD_NOT_ALLOWED,
            "DELETE without an Mcp-Session-Id header",
        );
    };
    if shared.sessions.close(&session_id, identity) {
        respond::empty(StatusCode::OK)
    } else {
        no_session(StatusCode::NOT_FOUND, "Session not found or expired")
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every critical section here is a single read or write, so a poisoned lock holds
    // consistent data.
    m.lock().unwrap_or_else(|e| e.into_inner())
}
