//! Hearing what changes on the server: [`Client::listen`] and the [`Listen`] stream it returns,
//! on either revision.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::json;

use crate::protocol::{
    McpError, RequestId, ServerCapabilities, SubscriptionFilter, methods, request_line,
};
use crate::push::Change;

use super::backlog::Backlog;
use super::connection::{Connection, cancel_line, lock};
use super::listen_routes::Opening;
use super::{Client, ClientError};

/// How long a listen in a 2025-11-25 session waits for the session's standing stream (other
/// messages wait a second, and then go anyway).
const STANDING_STREAM_LISTEN_WAIT: Duration = Duration::from_secs(10);

/// Why a [`Listen`] ended without the server closing it: it broke, or fell behind. Changes
/// may have gone unheard: read again what you depend on, and listen again if the connection is
/// still there.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ListenLost {
    /// The connection to the server closed.
    #[error("the connection to the server closed")]
    Disconnected,
    /// The listen's request ended with an error (over HTTP, also a response stream that broke
    /// and could not be resumed).
    #[error("the listen ended with an error: {0}")]
    Failed(McpError),
    /// Nobody read the listen while [`LISTEN_BUFFER`](super::LISTEN_BUFFER) different changes
    /// waited; a 2026-07-28 server was told to stop it.
    #[error("nobody read the listen while its buffer filled up")]
    FellBehind,
}

/// An open listen: the changes the server tells of, as they come, each a
/// [`Change`](crate::push::Change). Read it with [`next`](Self::next) or as a
/// [`Stream`](futures_core::Stream).
///
/// It ends in one of two ways. The server closes it on purpose (a 2026-07-28 server's final
/// result: it is shutting down, or chose to end it): `next` returns `None`. Or it is lost
/// ([`ListenLost`]): `next` returns one `Some(Err(..))`, then `None`. Changes that arrived
/// before either are read first. Nothing is replayed across listens: a client that listens
/// again reads again what it depends on.
///
/// Dropping it ends it: on 2026-07-28 the server is sent `notifications/cancelled` for its
/// request (over Streamable HTTP, its response stream closes instead); in a 2025-11-25
/// session the resources it watched that no other listen watches are unsubscribed.
#[must_use = "a listen ends when it is dropped"]
pub struct Listen {
    id: RequestId,
    backlog: Arc<Backlog>,
    honoured: SubscriptionFilter,
    connection: Arc<Connection>,
    /// The resources a 2025-11-25 session listen holds subscriptions to; `None` for a
    /// 2026-07-28 listen.
    session: Option<Vec<String>>,
}

impl Listen {
    /// The next change; `None` once the server closed the listen, `Some(Err(..))` once when it
    /// was lost (then `None`).
    pub async fn next(&mut self) -> Option<Result<Change, ListenLost>> {
        std::future::poll_fn(|cx| self.backlog.poll_next(cx)).await
    }

    /// What this listen delivers, of what was asked. On 2026-07-28, what the server
    /// acknowledged; in a 2025-11-25 session, the list changes whose `listChanged` the server
    /// advertised at `initialize`, and every resource asked for (each was subscribed to).
    pub fn honoured(&self) -> &SubscriptionFilter {
        &self.honoured
    }
}

impl futures_core::Stream for Listen {
    type Item = Result<Change, ListenLost>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.backlog.poll_next(cx)
    }
}

impl Drop for Listen {
    fn drop(&mut self) {
        let connection = &self.connection;
        let open = connection.listens.remove(&self.id);
        match self.session.take() {
            None if open && !connection.is_closed() => {
                let line = cancel_line(self.id.clone(), "The client stopped listening");
                connection.send_detached(line);
            }
            Some(uris) if !uris.is_empty() => {
                let connection = connection.clone();
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(async move {
                        connection.subscriptions.release(&connection, uris).await;
                    });
                }
            }
            _ => {}
        }
    }
}

impl std::fmt::Debug for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listen")
            .field("id", &self.id)
            .field("honoured", &self.honoured)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Listens for the changes `filter` asks for, on the revision in use, and returns once
    /// the listen is open.
    ///
    /// - 2026-07-28: sends `subscriptions/listen` and returns once the server acknowledged it
    ///   ([`Listen::honoured`] is what it agreed to send). Several listens may be open at once;
    ///   each hears only its own notifications, and none of them reach
    ///   [`notifications`](Self::notifications). Tasks it asks for
    ///   ([`SubscriptionFilter::task`]) need the tasks extension declared in the client's
    ///   [`capabilities`](super::ClientBuilder::capabilities) (else the server refuses with
    ///   `-32021`); each `notifications/tasks` comes as a [`Change::Task`] with the task whole,
    ///   starting with its status when the listen opened.
    /// - 2025-11-25 (after [`initialize`](Self::initialize)): subscribes to each resource of
    ///   the filter (`resources/subscribe`; a refusal is returned as the error) and returns.
    ///   Over HTTP it first waits (up to 10 s) until the server has answered the session's
    ///   standing GET, which carries what the listen hears. The
    ///   session's `list_changed` and `resources/updated` notifications (on its connection, or
    ///   its standing GET stream over HTTP) go to every open listen that watches what changed;
    ///   those no listen watches go to [`notifications`](Self::notifications) as before. That
    ///   revision has no tasks: task ids are not honoured.
    ///
    /// ```
    /// use mcp::McpServer;
    /// use mcp::client::Client;
    /// use mcp::protocol::{Implementation, SubscriptionFilter};
    /// use mcp::push::Change;
    ///
    /// /// Says hello.
    /// #[mcp::tool]
    /// async fn hello() -> &'static str {
    ///     "hello"
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), mcp::Error> {
    /// let server = McpServer::new("greeter").tools(mcp::tools![hello]).build()?;
    /// let handle = server.handle();
    /// let client = Client::builder(Implementation::new("c", "1")).connect(server.serve_in_memory());
    ///
    /// let mut changes = client
    ///     .listen(SubscriptionFilter::new().tools_changed().prompts_changed())
    ///     .await?;
    /// // The server has no prompts, so it will never say they changed.
    /// assert_eq!(changes.honoured(), &SubscriptionFilter::new().tools_changed());
    ///
    /// handle.notify(Change::ToolsListChanged);
    /// assert_eq!(changes.next().await, Some(Ok(Change::ToolsListChanged)));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Listen, ClientError> {
        let session = lock(&self.inner.session)
            .as_ref()
            .map(|s| s.capabilities.clone());
        match session {
            Some(offered) => self.listen_in_session(filter, &offered).await,
            None => self.listen_on_stream(filter).await,
        }
    }

    async fn listen_on_stream(&self, filter: SubscriptionFilter) -> Result<Listen, ClientError> {
        let connection = &self.inner.connection;
        let id = connection.listen_id();
        let (backlog, opening) = connection
            .listens
            .open_stream(id.clone())
            .ok_or(ClientError::Closed)?;
        // Made before anything is sent, so giving up on this call ends the listen.
        let mut listen = Listen {
            id: id.clone(),
            backlog,
            honoured: SubscriptionFilter::default(),
            connection: connection.clone(),
            session: None,
        };
        let params = self.with_meta(json!({ "notifications": filter }))?;
        let line = request_line(&id, methods::SUBSCRIPTIONS_LISTEN, &params);
        connection.send(line).await?;
        match opening.await {
            Ok(Opening::Acknowledged(granted)) => {
                listen.honoured = granted;
                Ok(listen)
            }
            Ok(Opening::Refused(error)) => Err(ClientError::Rpc(error)),
            Err(_) => Err(ClientError::Closed),
        }
    }

    async fn listen_in_session(
        &self,
        filter: SubscriptionFilter,
        offered: &ServerCapabilities,
    ) -> Result<Listen, ClientError> {
        // What the listen hears arrives on the session's standing stream: returning before the
        // server took that stream would let the changes made meanwhile go nowhere.
        if !self
            .inner
            .connection
            .standing_settled(STANDING_STREAM_LISTEN_WAIT)
            .await
        {
            tracing::warn!(
                "the session's standing stream has not opened; the listen may miss changes"
            );
        }
        let mut uris: Vec<String> = Vec::new();
        for uri in filter.resource_subscriptions.into_iter().flatten() {
            if !uris.contains(&uri) {
                uris.push(uri);
            }
        }
        let tools = offered.tools.as_ref().and_then(|c| c.list_changed);
        let prompts = offered.prompts.as_ref().and_then(|c| c.list_changed);
        let resources = offered.resources.as_ref().and_then(|c| c.list_changed);
        let honoured = SubscriptionFilter {
            tools_list_changed: announced(filter.tools_list_changed, tools),
            prompts_list_changed: announced(filter.prompts_list_changed, prompts),
            resources_list_changed: announced(filter.resources_list_changed, resources),
            resource_subscriptions: (!uris.is_empty()).then(|| uris.clone()),
            // The tasks extension is 2026-07-28 only.
            task_ids: None,
        };
        let connection = &self.inner.connection;
        let id = connection.listen_id();
        let backlog = connection
            .listens
            .open_session(id.clone(), honoured.clone())
            .ok_or(ClientError::Closed)?;
        let mut listen = Listen {
            id,
            backlog,
            honoured,
            connection: connection.clone(),
            session: Some(Vec::new()),
        };
        connection.subscriptions.acquire(connection, &uris).await?;
        listen.session = Some(uris);
        Ok(listen)
    }
}

/// A list change a session listen asked for, if the server announces changes of that list
/// (`listChanged` in its capabilities).
fn announced(asked: Option<bool>, announces: Option<bool>) -> Option<bool> {
    (asked == Some(true) && announces == Some(true)).then_some(true)
}
