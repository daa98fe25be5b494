//! A remote MCP server served as if its tools, prompts and resources were this process's own:
//! [`proxy`] lists what the remote has through a [`Client`] and answers each request by
//! making it to the remote.
//!
//! A multi-round call passes through round by round. The remote's `inputRequests` go to our
//! caller as they came, and the retry's `inputResponses` go back unchanged. The remote's
//! `requestState` travels sealed a second time, by the proxy's own
//! [`RequestStateSecurity`](crate::state::RequestStateSecurity): bound to the proxied
//! method, name and arguments, and to our caller's identity, so one caller's round cannot be
//! replayed by another even when the remote does not bind its state to anyone (it cannot: it
//! sees the proxy, not the caller). A 2025-11-25 caller cannot carry an
//! `InputRequiredResult`: its proxy answers the remote's questions through that caller's
//! own back-channel (`elicitation/create`, `sampling/createMessage`, `roots/list`) and
//! retries until the remote answers. A remote task becomes a task of the proxy's own store
//! that follows it (`tasks`).
//!
//! Besides answers, a proxy relays what the remote says during a call (its log messages, and a
//! 2025-11-25 remote's own requests) to that call's caller, and follows the remote's listing
//! as it changes.

mod follow;
mod forward;
mod listing;
mod progress;
mod relay;
mod tasks;

use std::sync::Arc;

use tokio_util::sync::{CancellationToken, DropGuard};

use crate::client::{Client, ClientError};
use crate::protocol::{LoggingLevel, McpError, TASKS_EXTENSION, V2026_07_28, methods};
use crate::server::McpServer;

/// What the forwarding functions find in the proxy's shared state.
struct Remote {
    client: Client,
    progress: Arc<progress::ProgressRelay>,
    holds: tasks::Holds,
    /// Stops the listing's follower when the server goes.
    _following: Option<DropGuard>,
}

/// An [`McpServer`] named `name` that serves what the server behind `client` lists now:
/// its tools, prompts, resources and resource templates (each kind the remote does not serve
/// is left empty), and its completions. Build it, serve it, or [mount](McpServer::mount) it
/// like any other.
///
/// `client` speaks whichever revision it was set up for: 2026-07-28 as built, 2025-11-25
/// after [`Client::initialize`]. The remote's errors come back with their codes.
///
/// The listing follows the remote's: the proxy listens to it ([`Client::listen`], opened
/// before the listing is read here, so nothing is missed), reads the listing again when it
/// hears a change (changes heard within 200 ms of the first are read once), swaps its tables
/// whole and tells its own listeners which kinds changed. A listen that breaks is opened again
/// with growing waits, and the listing read again. [Mounted](McpServer::mount), the proxy
/// tells the gateway's listeners instead.
///
/// The remote's progress reports on a call reach the caller who asked for them (the proxy
/// takes `client`'s [notifications](Client::notifications) for that). Its log messages
/// during a call reach the caller of that call through [`Context::log`](crate::server::Context::log),
/// at the level that caller asked for, and a 2025-11-25 remote's own requests in the middle of
/// a call (`elicitation/create`, `sampling/createMessage`, `roots/list`) go to that caller's
/// session when it is a 2025-11-25 caller; a 2026-07-28 caller cannot be asked mid-call, and
/// the remote gets an error that says so. Both are tied to the call by
/// [`Client::request_hearing`]: over Streamable HTTP by the response stream they came on;
/// on stdio and in memory only while the call is the one request in flight the remote may
/// speak of, so there, with concurrent calls, some are not relayed, never given to the wrong
/// caller.
///
/// Tasks pass through when the remote's `server/discover` declares the tasks extension: a
/// `tools/call` whose caller declared it goes to the remote with it, and a remote task makes
/// a task of the proxy's own (its tools run as tasks that ask before the task is made; set the
/// store with [`McpServer::tasks`]) whose function follows the remote's by polling it, asks
/// its questions through the proxy task's `input_required` status, and cancels it if the
/// proxy's task ends first. The caller never sees the remote's task id: the proxy's tasks are
/// bound to the caller, the remote's to nobody.
///
/// Not passed through: subscriptions to the remote's resources.
///
/// ```no_run
/// use mcp::client::Client;
/// use mcp::protocol::Implementation;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let remote = mcp::transport::http_client::connect("http://127.0.0.1:3001/mcp")?;
/// let client = Client::builder(Implementation::new("gateway", "1.0.0"))
///     .accept_tasks(false)
///     .connect(remote);
/// mcp::proxy::proxy("upstream", client)
///     .await?
///     .serve_http("127.0.0.1:8000")
///     .await?;
/// # Ok(())
/// # }
/// ```
pub async fn proxy(name: impl Into<String>, client: Client) -> Result<McpServer, ClientError> {
    let tasks = passes_tasks(&client).await;
    // Opened first: a change made while the listing is read is heard.
    let first_listen = follow::first_listen(&client).await;
    let listed = listing::fetch(&client, tasks).await?;
    if client.protocol_version() != V2026_07_28 {
        // A 2025-11-25 session has one log level for all its requests: the lowest, and each
        // caller's `ctx.log` keeps what that caller asked for.
        let level = serde_json::json!({ "level": LoggingLevel::Debug });
        if let Err(error) = client
            .request::<serde_json::Value>(methods::SET_LEVEL, level)
            .await
        {
            tracing::debug!(%error, "the proxied server's log level stays its default");
        }
    }
    let progress = Arc::new(progress::ProgressRelay::default());
    progress.start(&client);
    let runtime = tokio::runtime::Handle::current();
    let following = first_listen.is_some().then(|| follow::Following {
        client: client.clone(),
        tasks,
        stop: CancellationToken::new(),
    });
    let stop_following = following.as_ref().map(|f| f.stop.clone().drop_guard());
    let mut server = McpServer::new(name)
        .tools(listed.tools)
        .prompts(listed.prompts)
        .resources(listed.resources)
        .on_complete(forward::complete)
        .state(Remote {
            client,
            progress,
            holds: tasks::Holds::default(),
            _following: stop_following,
        });
    if let (Some(first), Some(following)) = (first_listen, following) {
        server = server.on_built(move |server| follow::start(&runtime, following, first, server));
    }
    Ok(server)
}

/// Whether the remote serves the tasks extension, as its `server/discover` says: only then
/// can a call of ours end in one of its tasks. 2025-11-25 has no extensions.
async fn passes_tasks(client: &Client) -> bool {
    if client.protocol_version() != V2026_07_28 {
        return false;
    }
    match client.discover().await {
        Ok(found) => found
            .capabilities
            .extensions
            .is_some_and(|extensions| extensions.contains_key(TASKS_EXTENSION)),
        Err(error) => {
            tracing::info!(%error, "the proxied server did not say what it serves; tasks are not passed through");
            false
        }
    }
}

/// The remote's answer as our caller gets it: its JSON-RPC errors as they came, anything
/// else as an internal error (the cause logged, not sent).
fn passed_through(error: ClientError) -> McpError {
    match error {
        ClientError::Rpc(error) => error,
        other => {
            tracing::warn!(error = %other, "the proxied server did not answer");
            McpError::internal("The proxied server did not answer")
        }
    }
}
