//! Configuring a [`Client`] before it connects: who it is, what it declares, how it answers the
//! server's questions and how long it keeps at a call. A connected client's configuration never
//! changes, so every clone of it behaves the same.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::protocol::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult,
    Implementation, JsonObject, ListRootsResult, McpError, TASKS_EXTENSION, Tool,
};
use crate::transport::Duplex;

use super::Client;
use super::callbacks::{Callbacks, boxed};
use super::rounds::DEFAULT_MAX_ROUNDS;
use super::tools_watch::ToolsHook;

/// Builds a [`Client`]; [`connect`](Self::connect) ends the configuration.
///
/// ```
/// use std::time::Duration;
/// use mcp::client::Client;
/// use mcp::protocol::{ElicitResult, Implementation};
/// use mcp::transport::memory;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// # let (client_end, _server_end) = memory::pair();
/// let client = Client::builder(Implementation::new("me", "1.0.0"))
///     .on_elicit(|_question| async { Ok(ElicitResult::decline()) })
///     .max_rounds(5)
///     .call_timeout(Duration::from_secs(30))
///     .connect(client_end);
/// # let _ = client;
/// # }
/// ```
#[must_use = "a client builder does nothing until `connect`"]
pub struct ClientBuilder {
    pub(super) info: Implementation,
    capabilities: ClientCapabilities,
    pub(super) callbacks: Callbacks,
    pub(super) max_rounds: u32,
    pub(super) restarts: u32,
    pub(super) call_timeout: Option<Duration>,
    pub(super) tools_hook: Option<ToolsHook>,
    accept_tasks: bool,
}

impl ClientBuilder {
    pub(super) fn new(info: Implementation) -> Self {
        Self {
            info,
            capabilities: ClientCapabilities::default(),
            callbacks: Callbacks::default(),
            max_rounds: DEFAULT_MAX_ROUNDS,
            restarts: 0,
            call_timeout: None,
            tools_hook: None,
            accept_tasks: true,
        }
    }

    /// Declares these capabilities on every request, besides those the registered handlers
    /// declare ([`on_elicit`](Self::on_elicit) and friends). What is set here wins: a handler
    /// only fills in what these leave out (e.g. `elicitation: {form: {}}` with `on_elicit`
    /// stays form-only).
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Answers the server's elicitation questions (forms and URLs) with `handler`, and declares
    /// the elicitation capability.
    pub fn on_elicit<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, McpError>> + Send + 'static,
    {
        self.callbacks.elicit = Some(boxed(handler));
        self
    }

    /// Answers the server's sampling requests with `handler` (your LLM), and declares the
    /// sampling capability. Servers will not send it `tools`; use
    /// [`on_sample_with_tools`](Self::on_sample_with_tools) for a handler that runs tool loops.
    pub fn on_sample<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, McpError>> + Send + 'static,
    {
        self.callbacks.sample = Some(boxed(handler));
        self.callbacks.sample_tools = false;
        self
    }

    /// Answers the server's sampling requests with `handler`, which also handles `tools` and
    /// `toolChoice` (answering with `tool_use` blocks when the model calls a tool), and declares
    /// `sampling.tools` besides the sampling capability.
    ///
    /// ```
    /// use mcp::client::Client;
    /// use mcp::protocol::{CreateMessageResult, Implementation, OneOrMany, Role, SamplingContent};
    ///
    /// let builder = Client::builder(Implementation::new("me", "1.0.0"))
    ///     .on_sample_with_tools(|request| async move {
    ///         // Hand `request.tools` to the model along with the messages.
    ///         let _tools = request.tools.unwrap_or_default();
    ///         Ok(CreateMessageResult {
    ///             role: Role::Assistant,
    ///             content: OneOrMany::One(SamplingContent::text("no tool needed")),
    ///             model: "my-model".into(),
    ///             stop_reason: Some("endTurn".into()),
    ///             meta: None,
    ///         })
    ///     });
    /// # let _ = builder;
    /// ```
    pub fn on_sample_with_tools<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, McpError>> + Send + 'static,
    {
        self.callbacks.sample = Some(boxed(handler));
        self.callbacks.sample_tools = true;
        self
    }

    /// Answers `roots/list` with `handler`, and declares the roots capability.
    pub fn on_list_roots<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListRootsResult, McpError>> + Send + 'static,
    {
        self.callbacks.roots = Some(boxed(move |()| handler()));
        self
    }

    /// How many rounds [`call_tool`](Client::call_tool) and friends accept before giving up
    /// (default 10).
    pub fn max_rounds(mut self, max: u32) -> Self {
        self.max_rounds = max;
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
    pub fn restart_on_invalid_state(mut self, max: u32) -> Self {
        self.restarts = max;
        self
    }

    /// Bounds the whole of each [`call_tool`](Client::call_tool)-style call, all rounds and
    /// the wait for a task the server made of it included, and each
    /// [`wait_task`](Client::wait_task) (default: no bound); a call that runs longer ends with
    /// [`ClientError::Timeout`](super::ClientError::Timeout), and the server is told to stop
    /// the round in flight, as it is for a call whose future is dropped:
    /// `notifications/cancelled`, or on the 2026-07-28 HTTP wire the closing of the request's
    /// response stream. A task is not cancelled: it runs on, to its end or its ttl.
    pub fn call_timeout(mut self, limit: Duration) -> Self {
        self.call_timeout = Some(limit);
        self
    }

    /// Whether the client takes part in the tasks extension (`io.modelcontextprotocol/tasks`);
    /// it does unless told `false`.
    ///
    /// Taking part, every 2026-07-28 request declares the extension, so a server may answer a
    /// `tools/call` with a task that runs on after the call returns: [`Client::call_tool`]
    /// polls it to its result, answering what it asks with the handlers registered here, and
    /// [`Client::start_tool`] hands it over to an application that follows it itself.
    ///
    /// Told `false`, the client does not declare the extension: servers answer each call
    /// itself, or refuse a tool that only runs as a task with `-32021` naming the extension,
    /// and refuse `tasks/get`, `tasks/update` and `tasks/cancel` the same way. For a client
    /// that must not wait on anything longer than a call, or that talks to a server which
    /// mishandles the declaration. An extension declared by hand in
    /// [`capabilities`](Self::capabilities) stays declared.
    ///
    /// ```
    /// use mcp::client::Client;
    /// use mcp::protocol::Implementation;
    /// use mcp::transport::memory;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # let (client_end, _server_end) = memory::pair();
    /// let client = Client::builder(Implementation::new("me", "1.0.0"))
    ///     .accept_tasks(false)
    ///     .connect(client_end);
    /// # let _ = client;
    /// # }
    /// ```
    pub fn accept_tasks(mut self, accept: bool) -> Self {
        self.accept_tasks = accept;
        self
    }

    /// Keeps the application's list of tools current: each time the server says its tools
    /// changed, the client lists them again (every page, as
    /// [`list_all_tools`](Client::list_all_tools) does) and hands the new list to `handler`.
    /// A listing that fails is logged and skipped.
    ///
    /// The client watches from the first [`list_tools`](Client::list_tools) on (the
    /// application's own first look at the tools), before that listing goes out, so no change
    /// after it goes unheard. On 2026-07-28 it opens a listen of its own for the tools
    /// (`subscriptions/listen` with `toolsListChanged`); in a 2025-11-25 session it takes the
    /// session's `notifications/tools/list_changed`, which then no longer reach
    /// [`notifications`](Client::notifications). A server that does not announce changes of
    /// its tools is not watched. If the watch ends (the server closed its listen, or the
    /// connection), the next `list_tools` starts it again.
    ///
    /// ```
    /// use mcp::McpServer;
    /// use mcp::client::Client;
    /// use mcp::protocol::{Implementation, Tool};
    ///
    /// /// Says hello.
    /// #[mcp::tool]
    /// async fn hello() -> &'static str {
    ///     "hello"
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = McpServer::new("greeter").tools(mcp::tools![hello]).build()?;
    /// let (changed, mut heard) = tokio::sync::mpsc::channel::<Vec<Tool>>(4);
    /// let client = Client::builder(Implementation::new("c", "1"))
    ///     .on_tools_changed(move |tools| {
    ///         let changed = changed.clone();
    ///         async move {
    ///             let _ = changed.send(tools).await;
    ///         }
    ///     })
    ///     .connect(server.serve_in_memory());
    ///
    /// assert_eq!(client.list_all_tools().await?.len(), 1);
    /// server.handle().remove_tool("hello")?;
    /// let tools = heard.recv().await.expect("the new list");
    /// assert!(tools.is_empty());
    /// # Ok(())
    /// # }
    /// ```
    pub fn on_tools_changed<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(Vec<Tool>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.tools_hook = Some(Arc::new(move |tools| Box::pin(handler(tools))));
        self
    }

    /// Connects over `duplex` (in memory, a child process's pipes, or Streamable HTTP; see
    /// [`crate::transport`]). Needs a Tokio runtime: the connection's reader runs as a task.
    pub fn connect(self, duplex: Duplex) -> Client {
        Client::start(self, duplex)
    }

    /// What the client declares at `initialize`: the explicit capabilities and those of its
    /// handlers.
    pub(super) fn declared_capabilities(&self) -> ClientCapabilities {
        let mut capabilities = self.capabilities.clone();
        self.callbacks.declare(&mut capabilities);
        capabilities
    }

    /// What every 2026-07-28 request declares: the same, and the tasks extension when the
    /// client takes tasks (with the settings declared by hand, if any).
    pub(super) fn request_capabilities(&self) -> ClientCapabilities {
        let mut capabilities = self.declared_capabilities();
        if self.accept_tasks {
            capabilities
                .extensions
                .get_or_insert_with(JsonObject::new)
                .entry(TASKS_EXTENSION)
                .or_insert_with(|| JsonObject::new().into());
        }
        capabilities
    }
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("info", &self.info)
            .field("max_rounds", &self.max_rounds)
            .field("accept_tasks", &self.accept_tasks)
            .finish_non_exhaustive()
    }
}
