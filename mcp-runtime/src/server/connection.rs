//! Per-connection state. 2026-07-28 keeps none; a 2025-11-25 client's `initialize` opens a
//! session that lives as long as its connection.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU8, AtomicUsize, Ordering};

use serde_json::value::RawValue;
use tokio::sync::{Notify, oneshot};

use crate::protocol::{
    ClientCapabilities, Implementation, LoggingLevel, McpError, RawResponse, RequestId, methods,
};

/// Whether a request with this method changes what the connection's later messages see (the
/// session, its log level, its subscriptions), so that a transport reading messages in order
/// must answer it before admitting the next one.
pub(crate) fn changes_connection(method: &str) -> bool {
    matches!(
        method,
        methods::INITIALIZE
            | methods::SET_LEVEL
            | methods::RESOURCES_SUBSCRIBE
            | methods::RESOURCES_UNSUBSCRIBE
    )
}

/// How many resources one connection (or 2025-11-25 session) may subscribe to at once.
pub const MAX_SUBSCRIPTIONS: usize = 1000;

/// How many `subscriptions/listen` requests one connection may hold open at once.
pub const MAX_LISTENS: usize = 16;

/// What a server→client request resolves to: the client's result or its error.
pub(crate) type ClientAnswer = Result<Box<RawValue>, McpError>;

/// What a 2025-11-25 client declared at `initialize`.
#[derive(Debug, Clone)]
pub struct LegacySession {
    /// The negotiated revision.
    pub protocol_version: String,
    /// The client's capabilities for the whole session.
    pub capabilities: ClientCapabilities,
    /// The client's self-reported identity.
    pub client_info: Implementation,
    /// Set by `logging/setLevel`; until then the server's default level.
    pub log_level: Option<LoggingLevel>,
    /// Whether `notifications/initialized` has arrived.
    pub initialized: bool,
}

/// One transport connection (a stdio pipe pair, an in-memory pair, an HTTP session).
#[derive(Debug, Default)]
pub struct Connection {
    legacy: Mutex<Option<LegacySession>>,
    /// Server→client requests awaiting their answer (2025-11-25 back-channel).
    pending: Mutex<HashMap<RequestId, oneshot::Sender<ClientAnswer>>>,
    next_request: AtomicI64,
    /// Set once the peer is gone, so later questions fail at once instead of waiting forever.
    abandoned: AtomicBool,
    /// Resource URIs the client subscribed to (2025-11-25 `resources/subscribe`).
    subscriptions: Mutex<BTreeSet<String>>,
    /// Signalled each time a question is asked, for a reader that must start reading again
    /// once a request waits on the client.
    asked: Notify,
    /// Runs of the `notifications/roots/list_changed` hook.
    pub(crate) roots_hook: Coalesced,
    /// `subscriptions/listen` requests open on it.
    listens: AtomicUsize,
    /// What the telemetry says of its transport and session, set by the transport.
    #[cfg(feature = "otel")]
    pub(crate) peer: std::sync::OnceLock<crate::telemetry::Peer>,
}

/// One open listen's place among a connection's [`MAX_LISTENS`].
pub(crate) struct OpenListen<'a>(&'a AtomicUsize);

impl Drop for OpenListen<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Runs of a hook that a client's notifications ask for: one at a time per connection, and
/// notifications arriving during a run ask for one run more, not one each, so a client that
/// repeats itself cannot pile up tasks (a run may wait on the client for as long as the
/// session lasts).
#[derive(Debug, Default)]
pub(crate) struct Coalesced(AtomicU8);

const IDLE: u8 = 0;
const RUNNING: u8 = 1;
const AGAIN: u8 = 2;

impl Coalesced {
    /// Whether the caller is to start a run; if one is running, it runs once more instead.
    pub(crate) fn start(&self) -> bool {
        let mut state = self.0.load(Ordering::Acquire);
        loop {
            let next = if state == IDLE { RUNNING } else { AGAIN };
            match self
                .0
                .compare_exchange(state, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return state == IDLE,
                Err(actual) => state = actual,
            }
        }
    }

    /// At the end of a run: whether to run again (something asked meanwhile).
    pub(crate) fn again(&self) -> bool {
        loop {
            if self
                .0
                .compare_exchange(AGAIN, RUNNING, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return true;
            }
            if self
                .0
                .compare_exchange(RUNNING, IDLE, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return false;
            }
        }
    }
}

impl Connection {
    /// A fresh connection with no session.
    pub fn new() -> Self {
        Self::default()
    }

    /// The 2025-11-25 session, if `initialize` has succeeded on this connection.
    pub fn legacy_session(&self) -> Option<LegacySession> {
        self.lock().clone()
    }

    pub(crate) fn open_legacy(&self, session: LegacySession) -> bool {
        let mut slot = self.lock();
        if slot.is_some() {
            return false;
        }
        *slot = Some(session);
        true
    }

    pub(crate) fn mark_initialized(&self) {
        if let Some(s) = self.lock().as_mut() {
            s.initialized = true;
        }
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        if let Some(s) = self.lock().as_mut() {
            s.log_level = Some(level);
        }
    }

    /// Routes the client's answer to a server→client request. Returns false when no request
    /// of ours has that id (it was never sent, already answered, or given up on).
    pub fn deliver(&self, response: RawResponse) -> bool {
        let waiting = lock(&self.pending).remove(&response.id);
        match waiting {
            // The asker may have been cancelled meanwhile; then nobody needs the answer.
            Some(tx) => tx.send(response.outcome).is_ok(),
            None => false,
        }
    }

    /// The resource URIs the client is subscribed to.
    pub fn subscriptions(&self) -> Vec<String> {
        lock(&self.subscriptions).iter().cloned().collect()
    }

    /// Subscribes to `uri`, unless the connection already holds
    /// [`MAX_SUBSCRIPTIONS`] others.
    pub(crate) fn subscribe(&self, uri: &str) -> Result<(), McpError> {
        let mut set = lock(&self.subscriptions);
        if set.len() >= MAX_SUBSCRIPTIONS && !set.contains(uri) {
            return Err(McpError::invalid_params(format!(
                "Too many subscriptions on this session (the limit is {MAX_SUBSCRIPTIONS}); \
                 unsubscribe from one first"
            )));
        }
        set.insert(uri.to_owned());
        Ok(())
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
    }

    /// Takes a place for one more listen, unless [`MAX_LISTENS`] are open already.
    pub(crate) fn open_listen(&self) -> Result<OpenListen<'_>, McpError> {
        let taken = self
            .listens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_LISTENS).then_some(n + 1)
            });
        match taken {
            Ok(_) => Ok(OpenListen(&self.listens)),
            Err(_) => Err(McpError::invalid_request(format!(
                "Too many listens open on this connection (the limit is {MAX_LISTENS}); \
                 end one first"
            ))),
        }
    }

    /// Reserves an id for a server→client request and the slot its answer arrives in.
    pub(crate) fn expect_answer(&self) -> (RequestId, oneshot::Receiver<ClientAnswer>) {
        // A prefix keeps our ids visibly apart from the client's in logs; JSON-RPC does not
        // need it, since each side numbers its own requests.
        let n = self.next_request.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::String(format!("srv-{n}"));
        let (tx, rx) = oneshot::channel();
        let mut pending = lock(&self.pending);
        if !self.abandoned.load(Ordering::Relaxed) {
            pending.insert(id.clone(), tx);
        }
        drop(pending);
        self.asked.notify_one();
        (id, rx)
    }

    /// Whether a server→client request is waiting for the client's answer.
    pub(crate) fn awaits_answers(&self) -> bool {
        !lock(&self.pending).is_empty()
    }

    /// Completes when a question is asked (at once if one was asked since the last call).
    pub(crate) async fn question_asked(&self) {
        self.asked.notified().await;
    }

    /// Fails every server→client request still waiting, and any asked later: the peer is gone
    /// and will not answer. Transports call this when a connection or session ends.
    pub fn abandon_answers(&self) {
        let mut pending = lock(&self.pending);
        // Set under the same lock `expect_answer` checks it under, so no question slips in.
        self.abandoned.store(true, Ordering::Relaxed);
        pending.clear();
    }

    pub(crate) fn forget_answer(&self, id: &RequestId) {
        lock(&self.pending).remove(id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<LegacySession>> {
        lock(&self.legacy)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every critical section here is a single insert, remove or assignment, so a panic inside
    // one cannot leave the data half-written and a poisoned lock is still usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::Coalesced;

    #[test]
    fn runs_coalesce_into_one_more() {
        let runs = Coalesced::default();
        assert!(runs.start(), "the first asks for a run");
        assert!(!runs.start(), "a second waits for the running one");
        assert!(!runs.start(), "and a third joins it");
        assert!(runs.again(), "one run more for both");
        assert!(!runs.again(), "then none");
        assert!(runs.start(), "idle again: a new run");
    }
}
