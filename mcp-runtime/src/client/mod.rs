//! A client that speaks both generations: configured with a [`ClientBuilder`], it connects
//! over any transport, runs the rounds of a multi-round call for you with the handlers it was
//! given, and answers a 2025-11-25 server's own requests with the same handlers.
//!
//! Every 2026-07-28 request it sends carries the version, capabilities and client info in
//! `_meta`; after [`initialize`](Client::initialize) it speaks 2025-11-25 instead.
//!
//! [`Client::listen`] hears what changes on the server, on either revision, and
//! [`ClientBuilder::on_tools_changed`] keeps an application's list of tools current.
//!
//! It takes part in the tasks extension (`io.modelcontextprotocol/tasks`) unless told not to:
//! [`Client::call_tool`] follows a task a server answers with to its result, and
//! [`Client::start_tool`], [`Client::get_task`], [`Client::update_task`],
//! [`Client::cancel_task`] and [`Client::wait_task`] let an application keep a task's id and
//! follow it itself.

mod answers;
#[cfg(feature = "oauth")]
pub mod auth;
mod backlog;
mod builder;
mod callbacks;
mod calls;
mod connection;
mod hearing;
mod listen;
mod listen_routes;
mod progress;
mod resource_subscriptions;
mod rounds;
mod server_requests;
mod task_calls;
mod task_pace;
mod task_wait;
mod tool_start;
mod tools_watch;
#[cfg(feature = "otel")]
mod traced;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::protocol::{
    ClientCapabilities, Implementation, McpError, RawNotification, ServerCapabilities, Task,
    V2026_07_28,
};
use crate::transport::Duplex;

pub use backlog::LISTEN_BUFFER;
pub use builder::ClientBuilder;
pub use calls::MAX_LIST_PAGES;
pub use connection::{MAX_SERVER_REQUESTS_IN_FLIGHT, NOTIFICATION_BUFFER};
pub use hearing::{HEARING_BUFFER, Heard, Hearing, ServerRequest};
pub use listen::{Listen, ListenLost};
pub use progress::{PROGRESS_BUFFER, Progress, ProgressReceiver};
pub use rounds::{DEFAULT_MAX_ROUNDS, Resume};
pub(crate) use task_pace::TaskWatch;
pub use task_pace::{DEFAULT_POLL_INTERVAL, MAX_POLL_BACKOFF, MIN_POLL_INTERVAL};
pub(crate) use tool_start::ToolRound;
pub use tool_start::ToolStart;

use callbacks::Callbacks;
use connection::{Connection, lock};
use tools_watch::ToolsWatch;

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
         with ClientBuilder::max_rounds, or drive the rounds yourself with call_tool_once"
    )]
    TooManyRounds {
        /// The limit that was reached.
        max: u32,
    },
    /// The call took longer than [`ClientBuilder::call_timeout`] allows.
    #[error("the call did not finish within {0:?}")]
    Timeout(std::time::Duration),
    /// A listing went on for more pages than a client follows.
    #[error("the server's listing went on for more than {max} pages")]
    TooManyPages {
        /// The limit that was reached ([`MAX_LIST_PAGES`]).
        max: usize,
    },
    /// The task a call became, or the one [`Client::wait_task`] waited for, ended cancelled
    /// (by `tasks/cancel`, from this client or another, or by the server).
    #[error("task {task_id} was cancelled")]
    TaskCancelled {
        /// The task.
        task_id: String,
        /// What the server said of it (`statusMessage`), if anything.
        message: Option<String>,
    },
    /// The task a call became, or the one [`Client::wait_task`] waited for, was still running
    /// at `createdAt + ttlMs`: the server may have dropped it, and the client stopped polling.
    /// Nothing was cancelled.
    #[error("task {task_id} did not finish within its ttl of {ttl_ms} ms")]
    TaskExpired {
        /// The task, for [`Client::get_task`] or [`Client::cancel_task`].
        task_id: String,
        /// Its ttl when the client gave up.
        ttl_ms: u64,
    },
    /// The server answered with a task where the client takes none: to
    /// [`call_tool_once`](Client::call_tool_once), which returns one round's answer (use
    /// [`start_tool`](Client::start_tool)), or to a call that did not declare the tasks
    /// extension. The task runs on; [`Client::wait_task`] or [`Client::cancel_task`] take it.
    #[error("the server answered with task {} where the client takes no task", .0.task_id)]
    UnexpectedTask(Box<Task>),
}

/// A connection to a server. Cheap to clone; every clone shares the connection and its
/// configuration, which is fixed when it connects.
///
/// ```
/// use mcp::client::Client;
/// use mcp::protocol::{CallToolResult, Implementation, Outcome};
/// use mcp::server::Server;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), mcp::Error> {
/// let server = Server::builder(Implementation::new("s", "1"))
///     .on_call_tool(|_, _| async { Ok(CallToolResult::text("hi")) })
///     .build()?;
/// let client = Client::builder(Implementation::new("c", "1")).connect(server.serve_in_memory());
/// let outcome = client.call_tool_once("greet", None, None, None).await?;
/// assert!(matches!(outcome, Outcome::Complete(_)));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    connection: Arc<Connection>,
    info: Implementation,
    /// What every 2026-07-28 request declares.
    capabilities: ClientCapabilities,
    /// What `initialize` declares: the same without the tasks extension added by default
    /// (2025-11-25 has no extensions).
    session_capabilities: ClientCapabilities,
    callbacks: Arc<Callbacks>,
    max_rounds: u32,
    restarts: u32,
    call_timeout: Option<Duration>,
    /// The 2025-11-25 session [`initialize`](Client::initialize) opened.
    session: Mutex<Option<Session>>,
    notifications: Mutex<Option<mpsc::Receiver<RawNotification>>>,
    tools_watch: ToolsWatch,
    /// The server as the transport described it, for the telemetry.
    #[cfg(feature = "otel")]
    server: Option<crate::telemetry::ServerPeer>,
}

/// What `initialize` settled.
struct Session {
    version: String,
    /// What the server said it offers, for the changes a listen can expect to hear of.
    capabilities: ServerCapabilities,
    /// Records the session's duration when the client lets it go.
    #[cfg(feature = "otel")]
    _clock: crate::telemetry::SessionClock,
}

impl Client {
    /// Starts configuring a client that introduces itself as `info`.
    pub fn builder(info: Implementation) -> ClientBuilder {
        ClientBuilder::new(info)
    }

    fn start(builder: ClientBuilder, duplex: Duplex) -> Self {
        let session_capabilities = builder.declared_capabilities();
        let capabilities = builder.request_capabilities();
        let ClientBuilder {
            info,
            callbacks,
            max_rounds,
            restarts,
            call_timeout,
            tools_hook,
            ..
        } = builder;
        let callbacks = Arc::new(callbacks);
        #[cfg(feature = "otel")]
        let server = duplex.server.clone();
        let (connection, notifications) = Connection::open(duplex, callbacks.clone());
        Self {
            inner: Arc::new(Inner {
                connection: Arc::new(connection),
                info,
                capabilities,
                session_capabilities,
                callbacks,
                max_rounds,
                restarts,
                call_timeout,
                session: Mutex::new(None),
                notifications: Mutex::new(Some(notifications)),
                tools_watch: ToolsWatch::new(tools_hook),
                #[cfg(feature = "otel")]
                server,
            }),
        }
    }

    /// The notifications the server sends (progress, log messages) that nothing else took:
    /// progress of a call made with [`call_tool_with_progress`](Self::call_tool_with_progress)
    /// goes to that call, and the changes an open [`Listen`] hears go to it (see
    /// [`listen`](Self::listen)). Only the first call gets the receiver. Up to
    /// [`NOTIFICATION_BUFFER`] wait for it to be read; newer ones are dropped (and logged)
    /// until it is.
    pub fn notifications(&self) -> Option<mpsc::Receiver<RawNotification>> {
        lock(&self.inner.notifications).take()
    }

    /// The revision in use: 2026-07-28 unless [`initialize`](Self::initialize) negotiated
    /// another.
    pub fn protocol_version(&self) -> String {
        lock(&self.inner.session)
            .as_ref()
            .map_or_else(|| V2026_07_28.to_owned(), |s| s.version.clone())
    }

    /// Whether a 2025-11-25 session is open.
    fn in_session(&self) -> bool {
        lock(&self.inner.session).is_some()
    }
}
