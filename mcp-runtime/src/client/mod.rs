//! A client connection: sends requests, matches responses, surfaces notifications.
//!
//! This is the foundation the automatic round loop builds on. Every 2026-07-28 request it sends
//! carries the version, capabilities and client info in `_meta`; after
//! [`initialize`](Client::initialize) it speaks 2025-11-25 instead.

mod callbacks;
mod rounds;

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::protocol::{
    CallToolResult, ClientCapabilities, CreateMessageParams, CreateMessageResult, DiscoverResult,
    ElicitParams, ElicitResult, GetPromptResult, Implementation, InitializeParams,
    InitializeResult, InputRequest, InputResponses, ListRootsResult, ListToolsResult, McpError,
    Outcome, RawNotification, RawRequest, ReadResourceResult, RequestId, V2025_11_25, V2026_07_28,
    error_line, input_methods, keys, methods, notification_line, request_line, result_line,
};
use crate::transport::Duplex;

use callbacks::{Callbacks, boxed};
pub use rounds::{DEFAULT_MAX_ROUNDS, Resume};

/// Why a request did not produce a result.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("the server answered with an error: {0}")]
    Rpc(#[from] McpError),
    /// The connection closed before the answer arrived.
    #[error("the connection closed")]
    Closed,
    /// The answer did not have the expected shape.
    #[error("unexpected result: {0}")]
    Decode(#[from] serde_json::Error),
    /// The server kept asking for input.
    #[error(
        "the server returned InputRequiredResult for more than {max} rounds; raise the limit \
         with Client::with_max_rounds, or drive the rounds yourself with call_tool_once"
    )]
    TooManyRounds {
        /// The limit that was reached.
        max: u32,
    },
    /// The call took longer than [`Client::with_call_timeout`] allows.
    #[error("the call did not finish within {0:?}")]
    Timeout(std::time::Duration),
}

type Pending = Mutex<HashMap<RequestId, oneshot::Sender<Result<Box<RawValue>, McpError>>>>;

/// A connection to a server.
///
/// ```
/// use mcp_runtime::client::Client;
/// use mcp_runtime::protocol::{CallToolResult, Implementation};
/// use mcp_runtime::server::Server;
/// use mcp_runtime::transport::memory;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let server = Server::builder(Implementation::new("s", "1"))
///     .on_call_tool(|_, _| async { Ok(CallToolResult::text("hi")) })
///     .build();
/// let (client_end, server_end) = memory::pair();
/// tokio::spawn(async move { server.serve(server_end).await });
/// let client = Client::connect(client_end, Implementation::new("c", "1"));
/// let outcome = client.call_tool_once("greet", None, None, None).await.unwrap();
/// assert!(matches!(outcome, mcp_runtime::protocol::Outcome::Complete(_)));
/// # }
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    outgoing: mpsc::Sender<String>,
    pending: Arc<Pending>,
    next_id: AtomicI64,
    info: Implementation,
    capabilities: Mutex<ClientCapabilities>,
    legacy: Mutex<Option<String>>,
    notifications: Mutex<Option<mpsc::UnboundedReceiver<RawNotification>>>,
    callbacks: Arc<Mutex<Callbacks>>,
    max_rounds: AtomicU32,
    restarts: AtomicU32,
    call_timeout: Mutex<Option<std::time::Duration>>,
    closed: Arc<AtomicBool>,
}

impl Client {
    /// Connects over `duplex`, introducing itself as `info`.
    pub fn connect(duplex: Duplex, info: Implementation) -> Self {
        let Duplex {
            mut incoming,
            outgoing,
        } = duplex;
        let pending: Arc<Pending> = Arc::default();
        let (note_tx, note_rx) = mpsc::unbounded_channel();
        let router = pending.clone();
        let callbacks: Arc<Mutex<Callbacks>> = Arc::default();
        let answerer = callbacks.clone();
        let replies = outgoing.clone();
        let closed = Arc::new(AtomicBool::new(false));
        let closing = closed.clone();
        tokio::spawn(async move {
            while let Some(frame) = incoming.recv().await {
                let Ok(line) = frame else { continue };
                match crate::protocol::Incoming::parse(&line) {
                    Ok(crate::protocol::Incoming::Response(r)) => {
                        let waiter = lock(&router).remove(&r.id);
                        match waiter {
                            Some(tx) => {
                                let _ = tx.send(r.outcome);
                            }
                            None => tracing::debug!(id = %r.id, "late or unknown response"),
                        }
                    }
                    Ok(crate::protocol::Incoming::Notification(n)) => {
                        let _ = note_tx.send(n);
                    }
                    Ok(crate::protocol::Incoming::Request(request)) => {
                        // A 2025-11-25 server asking over the back-channel: the same handlers
                        // answer, concurrently with everything else.
                        let callbacks = lock(&answerer).clone();
                        let replies = replies.clone();
                        tokio::spawn(async move {
                            let line = answer_server_request(&callbacks, request).await;
                            let _ = replies.send(line).await;
                        });
                    }
                    Err(rejected) => tracing::debug!(error = %rejected.error, "bad message"),
                }
            }
            // Closing: every waiter learns the connection is gone, and later requests fail
            // at once instead of waiting for an answer that cannot come.
            closing.store(true, Ordering::SeqCst);
            lock(&router).clear();
        });
        Self {
            inner: Arc::new(Inner {
                outgoing,
                pending,
                next_id: AtomicI64::new(1),
                info,
                capabilities: Mutex::new(ClientCapabilities::default()),
                legacy: Mutex::new(None),
                notifications: Mutex::new(Some(note_rx)),
                callbacks,
                max_rounds: AtomicU32::new(DEFAULT_MAX_ROUNDS),
                restarts: AtomicU32::new(0),
                call_timeout: Mutex::new(None),
                closed,
            }),
        }
    }

    /// Declares these capabilities on every request from now on.
    pub fn with_capabilities(self, capabilities: ClientCapabilities) -> Self {
        *lock(&self.inner.capabilities) = capabilities;
        self
    }

    /// Answers the server's elicitation questions (forms and URLs) with `handler`, and declares
    /// the elicitation capability.
    pub fn on_elicit<F, Fut>(self, handler: F) -> Self
    where
        F: Fn(ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, McpError>> + Send + 'static,
    {
        self.register(|c| c.elicit = Some(boxed(handler)))
    }

    /// Answers the server's sampling requests with `handler` (your LLM), and declares the
    /// sampling capability.
    pub fn on_sample<F, Fut>(self, handler: F) -> Self
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, McpError>> + Send + 'static,
    {
        self.register(|c| c.sample = Some(boxed(handler)))
    }

    /// Answers `roots/list` with `handler`, and declares the roots capability.
    pub fn on_list_roots<F, Fut>(self, handler: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListRootsResult, McpError>> + Send + 'static,
    {
        self.register(|c| c.roots = Some(boxed(move |()| handler())))
    }

    /// How many rounds [`call_tool`](Self::call_tool) and friends accept before giving up
    /// (default 10).
    pub fn with_max_rounds(self, max: u32) -> Self {
        self.inner.max_rounds.store(max, Ordering::Relaxed);
        self
    }

    /// Starts a call over from its first round, up to `max` times per call, when the server
    /// rejects the `requestState` of a retry with the fixed `Invalid or expired requestState`
    /// error (default 0: the call fails with that error).
    ///
    /// That happens when a retry reaches a server that cannot open the state: another instance
    /// without the shared keys, the same one after a restart with a per-process key, or a round
    /// that waited past the state's lifetime. Starting over runs the handlers again: the user is
    /// asked the questions of the call again. Opt in when that is acceptable.
    ///
    /// ```
    /// # use mcp_runtime::{client::Client, protocol::Implementation, transport::memory};
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # let (client_end, _server_end) = memory::pair();
    /// let client = Client::connect(client_end, Implementation::new("me", "1.0.0"))
    ///     .restart_on_invalid_state(3);
    /// # let _ = client;
    /// # }
    /// ```
    pub fn restart_on_invalid_state(self, max: u32) -> Self {
        self.inner.restarts.store(max, Ordering::Relaxed);
        self
    }

    pub(crate) fn max_restarts(&self) -> u32 {
        self.inner.restarts.load(Ordering::Relaxed)
    }

    fn register(self, set: impl FnOnce(&mut Callbacks)) -> Self {
        let mut callbacks = lock(&self.inner.callbacks);
        set(&mut callbacks);
        callbacks.declare(&mut lock(&self.inner.capabilities));
        drop(callbacks);
        self
    }

    pub(crate) fn callbacks(&self) -> Callbacks {
        lock(&self.inner.callbacks).clone()
    }

    pub(crate) fn max_rounds(&self) -> u32 {
        self.inner.max_rounds.load(Ordering::Relaxed)
    }

    /// Calls a tool and answers every question the server asks with the registered handlers,
    /// round after round, until the result. Each retry repeats the name and arguments with the
    /// answers and the server's `requestState` byte for byte, under a new JSON-RPC id.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<Value>,
    ) -> Result<CallToolResult, ClientError> {
        self.resume_tool(name, arguments, Resume::default()).await
    }

    /// [`call_tool`](Self::call_tool) from a persisted round.
    pub async fn resume_tool(
        &self,
        name: &str,
        arguments: Option<Value>,
        resume: Resume,
    ) -> Result<CallToolResult, ClientError> {
        self.drive(resume, |responses, state| {
            self.call_tool_once(name, arguments.clone(), responses, state)
        })
        .await
    }

    /// Gets a prompt, answering the server's questions on the way.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<Value>,
    ) -> Result<GetPromptResult, ClientError> {
        self.resume_prompt(name, arguments, Resume::default()).await
    }

    /// [`get_prompt`](Self::get_prompt) from a persisted round.
    pub async fn resume_prompt(
        &self,
        name: &str,
        arguments: Option<Value>,
        resume: Resume,
    ) -> Result<GetPromptResult, ClientError> {
        self.drive(resume, |responses, state| {
            self.get_prompt_once(name, arguments.clone(), responses, state)
        })
        .await
    }

    /// Reads a resource, answering the server's questions on the way.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        self.resume_resource(uri, Resume::default()).await
    }

    /// [`read_resource`](Self::read_resource) from a persisted round.
    pub async fn resume_resource(
        &self,
        uri: &str,
        resume: Resume,
    ) -> Result<ReadResourceResult, ClientError> {
        self.drive(resume, |responses, state| {
            self.read_resource_once(uri, responses, state)
        })
        .await
    }

    /// Bounds the whole of each [`call_tool`](Self::call_tool)-style call, all rounds included
    /// (default: no bound); a call that runs longer ends with [`ClientError::Timeout`].
    pub fn with_call_timeout(self, limit: std::time::Duration) -> Self {
        *lock(&self.inner.call_timeout) = Some(limit);
        self
    }

    pub(crate) fn call_timeout(&self) -> Option<std::time::Duration> {
        *lock(&self.inner.call_timeout)
    }

    /// The notifications the server sends (progress, log messages). Only the first call gets
    /// the receiver.
    pub fn notifications(&self) -> Option<mpsc::UnboundedReceiver<RawNotification>> {
        lock(&self.inner.notifications).take()
    }

    /// The revision in use: 2026-07-28 unless [`initialize`](Self::initialize) negotiated another.
    pub fn protocol_version(&self) -> String {
        lock(&self.inner.legacy)
            .clone()
            .unwrap_or_else(|| V2026_07_28.to_owned())
    }

    /// Sends a request exactly as given (no `_meta` added) and decodes its result.
    pub async fn request_raw<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, ClientError> {
        let id = RequestId::Number(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        lock(&self.inner.pending).insert(id.clone(), tx);
        // Checked after registering, so a close racing with this request is always seen.
        if self.inner.closed.load(Ordering::SeqCst) {
            lock(&self.inner.pending).remove(&id);
            return Err(ClientError::Closed);
        }
        let line = request_line(&id, method, params);
        if self.inner.outgoing.send(line).await.is_err() {
            lock(&self.inner.pending).remove(&id);
            return Err(ClientError::Closed);
        }
        let raw = rx.await.map_err(|_| ClientError::Closed)??;
        Ok(serde_json::from_str(raw.get())?)
    }

    /// Sends a request of the current revision: in 2026-07-28, `_meta` carries the version,
    /// capabilities and client info. A server that refuses the version (`-32022`) but lists
    /// 2026-07-28 among the ones it supports gets the request once more.
    pub async fn request<R: DeserializeOwned>(
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

    fn with_meta(&self, params: Value) -> Result<Map<String, Value>, ClientError> {
        let mut params = match params {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        if lock(&self.inner.legacy).is_none() {
            let meta = params
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                meta.insert(keys::PROTOCOL_VERSION.into(), json!(V2026_07_28));
                meta.insert(
                    keys::CLIENT_CAPABILITIES.into(),
                    serde_json::to_value(&*lock(&self.inner.capabilities))?,
                );
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
        self.inner
            .outgoing
            .send(notification_line(method, params))
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// Opens a 2025-11-25 session (`initialize`, then `notifications/initialized`).
    pub async fn initialize(&self) -> Result<InitializeResult, ClientError> {
        let params = InitializeParams {
            protocol_version: V2025_11_25.to_owned(),
            capabilities: lock(&self.inner.capabilities).clone(),
            client_info: self.inner.info.clone(),
        };
        let result: InitializeResult = self.request_raw(methods::INITIALIZE, &params).await?;
        *lock(&self.inner.legacy) = Some(result.protocol_version.clone());
        self.notify("notifications/initialized", &json!({})).await?;
        Ok(result)
    }

    /// Finds the revision to speak: `server/discover` first (2026-07-28), and `initialize`
    /// (2025-11-25) for a server that does not positively answer it. Returns the revision.
    ///
    /// Call it once after [`connect`](Self::connect) when the server's age is unknown; the
    /// in-memory and macro-built servers of this crate answer both.
    pub async fn negotiate(&self) -> Result<String, ClientError> {
        match self.discover().await {
            Ok(found) if found.supported_versions.iter().any(|v| v == V2026_07_28) => {
                Ok(V2026_07_28.to_owned())
            }
            // A closed connection is not an old server.
            Err(ClientError::Closed) => Err(ClientError::Closed),
            _ => Ok(self.initialize().await?.protocol_version),
        }
    }

    /// `server/discover`.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        self.request(methods::DISCOVER, json!({})).await
    }

    /// `tools/list` (one page).
    pub async fn list_tools(&self, cursor: Option<&str>) -> Result<ListToolsResult, ClientError> {
        // `cursor` is a string when present; the schema has no `null` for it.
        let params = match cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => json!({}),
        };
        self.request(methods::TOOLS_LIST, params).await
    }

    /// One `tools/call` round: the final result or the server's request for input.
    pub async fn call_tool_once(
        &self,
        name: &str,
        arguments: Option<Value>,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Result<Outcome<CallToolResult>, ClientError> {
        let mut params = json!({ "name": name });
        round_params(&mut params, arguments, input_responses, request_state);
        self.request(methods::TOOLS_CALL, params).await
    }

    /// One `prompts/get` round.
    pub async fn get_prompt_once(
        &self,
        name: &str,
        arguments: Option<Value>,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Result<Outcome<GetPromptResult>, ClientError> {
        let mut params = json!({ "name": name });
        round_params(&mut params, arguments, input_responses, request_state);
        self.request(methods::PROMPTS_GET, params).await
    }

    /// One `resources/read` round.
    pub async fn read_resource_once(
        &self,
        uri: &str,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Result<Outcome<ReadResourceResult>, ClientError> {
        let mut params = json!({ "uri": uri });
        round_params(&mut params, None, input_responses, request_state);
        self.request(methods::RESOURCES_READ, params).await
    }
}

/// Whether a `-32022` refusal names a revision this client speaks, so a retry can succeed.
fn retry_version(error: &McpError) -> bool {
    error.code == crate::protocol::code::UNSUPPORTED_PROTOCOL_VERSION
        && error
            .data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array)
            .is_some_and(|versions| versions.iter().any(|v| v == V2026_07_28))
}

/// The response line for a server→client request, from the registered handlers.
async fn answer_server_request(callbacks: &Callbacks, request: RawRequest) -> String {
    let params: Value = request
        .params
        .as_deref()
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or(Value::Null);
    let question = match request.method.as_str() {
        input_methods::ELICIT => serde_json::from_value(params).map(InputRequest::Elicit),
        input_methods::CREATE_MESSAGE => {
            serde_json::from_value(params).map(|p| InputRequest::CreateMessage(Box::new(p)))
        }
        input_methods::LIST_ROOTS => Ok(InputRequest::ListRoots),
        other => {
            return error_line(Some(&request.id), &McpError::method_not_found(other));
        }
    };
    let answer = match question {
        Ok(question) => callbacks.answer(question).await,
        Err(e) => Err(McpError::invalid_params(format!("Invalid params: {e}"))),
    };
    match answer {
        Ok(result) => result_line(&request.id, &result),
        Err(error) => error_line(Some(&request.id), &error),
    }
}

fn round_params(
    params: &mut Value,
    arguments: Option<Value>,
    input_responses: Option<InputResponses>,
    request_state: Option<String>,
) {
    if let Value::Object(map) = params {
        if let Some(a) = arguments {
            map.insert("arguments".into(), a);
        }
        if let Some(r) = input_responses {
            map.insert(
                "inputResponses".into(),
                Value::Object(r.0.into_iter().collect()),
            );
        }
        if let Some(s) = request_state {
            map.insert("requestState".into(), Value::String(s));
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
