//! What a handler knows about the request it serves, and how it talks back while it runs.

use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::identity::Identity;
use crate::protocol::{
    ClientCapabilities, Generation, Implementation, InputResponses, JsonObject, LoggingLevel,
    LoggingMessageParams, McpError, ProgressParams, RequestId, notification_line,
    notification_methods, request_line,
};

use super::Server;
use super::answer::Exchange;
use super::app_state::{AppState, State};
use super::connection::Connection;
use super::gate::Admitted;
use super::handle::ServerHandle;
use super::sink::NotificationSink;

/// The request a handler is serving: who asked, with which capabilities, on which wire.
///
/// Cheap to clone; handlers may move it into spawned tasks.
#[derive(Debug, Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
    round: Option<Arc<Round>>,
}

/// What the client sent back in this round of a multi-round call.
#[derive(Debug, Default)]
struct Round {
    input_responses: Option<InputResponses>,
    request_state: Option<String>,
}

/// Everything a request runs with: what the gate admitted, and what the transport and the
/// server brought.
#[derive(Debug)]
struct ContextInner {
    id: RequestId,
    admitted: Admitted,
    identity: Option<Arc<Identity>>,
    cancellation: CancellationToken,
    sink: NotificationSink,
    connection: Arc<Connection>,
    /// The server serving the request: its shared state, and its handle.
    server: Server,
    back_channel: bool,
    /// Set for a tool that asks before its task: where its body waits for the task.
    body_gate: Option<BodyGate>,
}

/// Where the body of a tool that asks before its task (`ask_before_task`) waits while the
/// tasks runtime makes the task: the wrapper reports that every Resolve parameter is known,
/// and goes on once the task exists. Made by [`Context::for_task`].
#[derive(Debug)]
pub(crate) struct BodyGate {
    reached: Mutex<Option<oneshot::Sender<()>>>,
    go: Mutex<Option<oneshot::Receiver<()>>>,
}

/// The runtime's side of a [`BodyGate`]: learns that the body was reached, then lets it go.
#[derive(Debug)]
pub(crate) struct BodyGateKeeper {
    /// Fires when the body is about to run.
    pub reached: oneshot::Receiver<()>,
    /// Dropped or fired: the body goes on.
    pub go: oneshot::Sender<()>,
}

impl BodyGate {
    fn new() -> (Self, BodyGateKeeper) {
        let (reached_tx, reached) = oneshot::channel();
        let (go, go_rx) = oneshot::channel();
        let gate = Self {
            reached: Mutex::new(Some(reached_tx)),
            go: Mutex::new(Some(go_rx)),
        };
        (gate, BodyGateKeeper { reached, go })
    }
}

impl Context {
    /// The context of request `id`, admitted by the gate, arriving in `exchange`.
    pub(super) fn new(
        id: RequestId,
        admitted: Admitted,
        exchange: &Exchange,
        server: &Server,
    ) -> Self {
        Self {
            inner: Arc::new(ContextInner {
                id,
                admitted,
                identity: exchange.identity.clone(),
                cancellation: exchange.cancellation.clone(),
                sink: exchange.sink.clone(),
                connection: exchange.connection.clone(),
                server: server.clone(),
                back_channel: exchange.back_channel,
                body_gate: None,
            }),
            round: None,
        }
    }

    /// The context a task's function runs with: this request's caller, capabilities and
    /// server, but a cancellation of its own (the task's, fired by `tasks/cancel`), no
    /// progress or log notifications (a task has no request to carry them), and no requests
    /// to the client (a task asks through its `input_required` status). With `gated`, the
    /// body of a tool that asks before its task waits at [`enter_task_body`](Self::enter_task_body)
    /// until the keeper lets it go, and the rounds before it, which answer the call itself,
    /// keep the call's progress and log notifications.
    pub(crate) fn for_task(
        &self,
        cancellation: CancellationToken,
        gated: bool,
    ) -> (Self, Option<BodyGateKeeper>) {
        let mut admitted = self.inner.admitted.clone();
        let (body_gate, keeper, sink) = match gated {
            // The rounds before the gate answer the call itself, so they report progress and
            // log on its stream as any call does; past the gate, in the task, nothing is sent
            // (see `in_task_body`).
            true => {
                let (gate, keeper) = BodyGate::new();
                (Some(gate), Some(keeper), self.inner.sink.clone())
            }
            false => {
                admitted.progress_token = None;
                admitted.log_level = None;
                // What a task's function would notify is dropped.
                (None, None, NotificationSink::discard())
            }
        };
        let inner = ContextInner {
            id: self.inner.id.clone(),
            admitted,
            identity: self.inner.identity.clone(),
            cancellation,
            sink,
            connection: self.inner.connection.clone(),
            server: self.inner.server.clone(),
            back_channel: false,
            body_gate,
        };
        let context = Self {
            inner: Arc::new(inner),
            round: None,
        };
        (context, keeper)
    }

    /// A handle on the server serving this request, for telling its listening clients what
    /// changed (see [`ServerHandle`]).
    pub fn server(&self) -> ServerHandle {
        self.inner.server.handle()
    }

    /// Shared state of type `T` registered on the server, if any.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.inner.server.inner.app_state.get::<T>()
    }

    /// All of the server's shared state.
    pub fn app_state(&self) -> &AppState {
        &self.inner.server.inner.app_state
    }

    /// The answers the client sent in this round (`None` on a first round), for a tool, prompt
    /// or resource that asks by hand with `InputRequiredResult`.
    pub fn input_responses(&self) -> Option<&InputResponses> {
        self.round.as_ref()?.input_responses.as_ref()
    }

    /// The plaintext `requestState` of this round (`None` on a first round). Under a sealing
    /// policy it was verified and opened before the handler runs.
    pub fn request_state(&self) -> Option<&str> {
        self.round.as_ref()?.request_state.as_deref()
    }

    /// Attaches a round's answers and state (macro-generated wrappers do this).
    #[doc(hidden)]
    pub fn with_round(
        mut self,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Self {
        self.round = Some(Arc::new(Round {
            input_responses,
            request_state,
        }));
        self
    }

    /// Where a tool with `ask_before_task` has every Resolve parameter in hand and its body
    /// is about to run: the tasks runtime makes the task here and runs the body in the
    /// background. Anywhere else it returns at once (macro-generated wrappers call it).
    #[doc(hidden)]
    pub async fn enter_task_body(&self) {
        let Some(gate) = &self.inner.body_gate else {
            return;
        };
        let reached = lock(&gate.reached).take();
        let go = lock(&gate.go).take();
        if let (Some(reached), Some(go)) = (reached, go) {
            // The keeper gone (no task after all) lets the body go too; its future is being
            // dropped then anyway.
            let _ = reached.send(());
            let _ = go.await;
        }
    }

    /// The JSON-RPC id of this request (every round of a multi-round call has a new one).
    pub fn request_id(&self) -> &RequestId {
        &self.inner.id
    }

    /// The wire this request came on.
    pub fn generation(&self) -> Generation {
        self.inner.admitted.generation
    }

    /// The protocol revision of this request.
    pub fn protocol_version(&self) -> &str {
        self.inner.admitted.protocol_version()
    }

    /// What the client can do for this request (2026-07-28: declared on the request itself;
    /// 2025-11-25: declared at `initialize`).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        self.inner.admitted.client_capabilities()
    }

    /// The settings the client declared on this request for extension `id`, if it did and
    /// this server has that [`Extension`](super::Extension): whether the two negotiated it.
    /// Always `None` on 2025-11-25, where extensions are not negotiated (see
    /// [`Extension`](super::Extension)).
    ///
    /// A handler asks this before answering in a way only the extension's clients understand
    /// (the tasks extension, before answering `tools/call` with a task).
    ///
    /// ```
    /// use mcp::server::Context;
    ///
    /// fn wants_loud_echo(ctx: &Context) -> bool {
    ///     ctx.client_extension("com.example/echo")
    ///         .and_then(|settings| settings.get("loud"))
    ///         .and_then(serde_json::Value::as_bool)
    ///         .unwrap_or(false)
    /// }
    /// ```
    pub fn client_extension(&self, id: &str) -> Option<&JsonObject> {
        if !self.inner.server.inner.extensions.has(id) {
            return None;
        }
        self.declared_extension(id)
    }

    /// The settings the client declared on this request for extension `id`, whether this
    /// server has it or a server mounted in it does.
    pub(crate) fn declared_extension(&self, id: &str) -> Option<&JsonObject> {
        if self.generation() != Generation::V2026_07_28 {
            return None;
        }
        let declared = self.client_capabilities().extensions.as_ref()?;
        declared.get(id)?.as_object()
    }

    /// This request as the mounted server `server` serves it: the same caller, capabilities,
    /// connection and cancellation, with that server's state and bus.
    pub(crate) fn on_server(&self, server: &Server) -> Self {
        let inner = ContextInner {
            id: self.inner.id.clone(),
            admitted: self.inner.admitted.clone(),
            identity: self.inner.identity.clone(),
            cancellation: self.inner.cancellation.clone(),
            sink: self.inner.sink.clone(),
            connection: self.inner.connection.clone(),
            server: server.clone(),
            back_channel: self.inner.back_channel,
            body_gate: None,
        };
        Self {
            inner: Arc::new(inner),
            round: self.round.clone(),
        }
    }

    /// The client's self-reported identity: for display and logs, never for security.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.admitted.client_info()
    }

    /// The verified caller, when the transport authenticates requests.
    pub fn identity(&self) -> Option<&Identity> {
        self.inner.identity.as_deref()
    }

    /// The shared handle of the verified caller (a cheap clone, unlike the identity itself).
    pub(crate) fn identity_handle(&self) -> Option<Arc<Identity>> {
        self.inner.identity.clone()
    }

    /// Other `_meta` keys of the request (`traceparent`, extension keys, …).
    pub fn meta(&self) -> &JsonObject {
        self.inner.admitted.meta()
    }

    /// Whether the client cancelled this request.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// Completes when the client cancels this request.
    pub async fn cancelled(&self) {
        self.inner.cancellation.cancelled().await;
    }

    /// Whether the client asked for progress reports (sent a `progressToken`).
    pub fn wants_progress(&self) -> bool {
        self.inner.admitted.progress_token.is_some() && !self.in_task_body()
    }

    /// Past the gate of a tool that asks before its task: the call was answered with the task,
    /// and progress and log messages are not sent on tasks (the tasks extension).
    fn in_task_body(&self) -> bool {
        self.inner
            .body_gate
            .as_ref()
            .is_some_and(|gate| lock(&gate.reached).is_none())
    }

    /// Reports progress, if the client asked for it with a `progressToken` (else does nothing).
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        let Some(token) = &self.inner.admitted.progress_token else {
            return;
        };
        let params = ProgressParams {
            progress_token: token.clone(),
            progress,
            total,
            message,
        };
        self.notify(notification_methods::PROGRESS, &params).await;
    }

    /// The lowest level of log message the client asked for on this request, if it asked.
    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        self.inner.admitted.log_level
    }

    /// Sends a log message, if the client asked for this level or a lower one (else does nothing).
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: impl Into<Value>) {
        if self.inner.admitted.log_level.is_none_or(|min| level < min) {
            return;
        }
        let params = LoggingMessageParams {
            level,
            logger: logger.map(str::to_owned),
            data: data.into(),
        };
        self.notify(notification_methods::MESSAGE, &params).await;
    }

    /// Sends a request to the client and waits for its answer: the 2025-11-25 back-channel
    /// (`sampling/createMessage`, `elicitation/create`, `roots/list`). The request travels on
    /// this request's own response stream.
    ///
    /// On the 2026-07-28 wire servers never send requests; ask with an
    /// [`InputRequiredResult`](crate::protocol::InputRequiredResult) instead, so this fails
    /// there with -32603. It also fails when the client answers with an error, when its answer
    /// does not decode as `R`, and when this request is cancelled.
    ///
    /// ```
    /// use mcp::protocol::{CreateMessageParams, CreateMessageResult, McpError};
    /// use mcp::server::Context;
    ///
    /// async fn ask_model(ctx: &Context) -> Result<String, McpError> {
    ///     let answer: CreateMessageResult = ctx
    ///         .request_client("sampling/createMessage", &CreateMessageParams::prompt("Hi?", 50))
    ///         .await?;
    ///     Ok(answer.text().unwrap_or_default().to_owned())
    /// }
    /// ```
    pub async fn request_client<P, R>(&self, method: &str, params: &P) -> Result<R, McpError>
    where
        P: Serialize + ?Sized,
        R: DeserializeOwned,
    {
        if self.inner.admitted.generation != Generation::V2025_11_25 {
            return Err(McpError::internal(
                "A 2026-07-28 server asks the client through InputRequiredResult, not requests",
            ));
        }
        // Nothing would carry the request, and the wait would last until the client hangs up.
        if !self.can_ask_client() {
            return Err(McpError::internal(
                "The client takes no event stream on this request, so the server cannot ask it \
                 anything while answering",
            ));
        }
        let connection = &self.inner.connection;
        let (id, answer) = connection.expect_answer();
        self.inner
            .sink
            .send(request_line(&id, method, params))
            .await;
        let answer = tokio::select! {
            answer = answer => answer,
            () = self.cancelled() => {
                connection.forget_answer(&id);
                return Err(McpError::internal("The request was cancelled"));
            }
        };
        match answer {
            Ok(Ok(raw)) => serde_json::from_str(raw.get()).map_err(|e| {
                McpError::internal(format!("The client's answer to {method} is malformed: {e}"))
            }),
            Ok(Err(error)) => Err(error),
            Err(_) => Err(McpError::internal(
                "The connection closed before the client answered",
            )),
        }
    }

    /// Whether a 2025-11-25 request can carry requests to the client (its transport has a
    /// way back while it runs).
    pub(crate) fn can_ask_client(&self) -> bool {
        self.inner.back_channel
    }

    pub(crate) async fn notify<P: Serialize>(&self, method: &str, params: &P) {
        if self.is_cancelled() || self.in_task_body() {
            return;
        }
        self.inner
            .sink
            .send(notification_line(method, params))
            .await;
    }
}

/// A gate's slot; each holds one `Option` taken once, so a panic cannot leave it half-changed.
fn lock<T>(slot: &Mutex<T>) -> MutexGuard<'_, T> {
    slot.lock().unwrap_or_else(|e| e.into_inner())
}
