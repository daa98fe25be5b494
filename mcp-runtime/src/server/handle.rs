//! The application's handle on a running server, for what happens outside any request:
//! changing what an `McpServer` offers, and telling listening clients what changed.

use std::fmt;
use std::sync::Arc;

use crate::push::{Change, NotificationBus};

use super::Server;
use super::app_state::AppState;
use super::build_error::BuildError;
use super::registry::{LiveTables, PromptEntry, ResourceEntry, ToolEntry};

/// A handle on a server, cheap to clone: from [`Server::handle`](super::Server::handle), or
/// from a handler's [`Context::server`](super::Context::server).
///
/// ```
/// use mcp::protocol::Implementation;
/// use mcp::server::Server;
///
/// let server = Server::builder(Implementation::new("board", "1.0.0")).build()?;
/// let handle = server.handle();
/// // A post arrived: clients subscribed to the board hear of it.
/// handle.resource_updated("board://messages");
/// # Ok::<(), mcp::server::BuildError>(())
/// ```
///
/// On a server built by [`McpServer`](super::McpServer), it also adds and removes tools,
/// prompts and resources while the server runs. The entries come from the same macros as at
/// build (`mcp::tools![…]`, `mcp::prompts![…]`, `mcp::resources![…]`), so a function added
/// later passes the same compile-time checks. Each change swaps the server's tables whole: a
/// listing shows the old set or the new one, never half of each; a call already running
/// finishes with the function it started with; a listing's cursor from before the change is
/// refused (`-32602`), so the client lists again from the start. Each change that changed
/// something announces its `…ListChanged` to the clients listening on this instance. The
/// tables are this instance's alone, so the announcement does not go on the bus: in a fleet,
/// make the same change on every instance (each tells its own listeners), or tell them all
/// with [`notify`](Self::notify) once they all have it.
///
/// ```
/// use mcp::McpServer;
///
/// /// Empties the board.
/// #[mcp::tool]
/// async fn clear() -> String {
///     "Cleared.".to_owned()
/// }
///
/// let server = McpServer::new("board").build()?;
/// let handle = server.handle();
/// handle.add_tools(mcp::tools![clear])?;
/// assert!(server.capabilities().tools.is_some());
/// assert!(handle.remove_tool("clear")?);
/// assert!(!handle.remove_tool("clear")?, "nothing left to remove");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A handler reaches the handle of the server it runs on through its context: here `unlock`
/// registers `clear`, and every client listening to this instance hears that the tools
/// changed.
///
/// ```
/// use mcp::client::Client;
/// use mcp::protocol::Implementation;
/// use mcp::{Context, McpServer};
///
/// /// Empties the board.
/// #[mcp::tool]
/// async fn clear() -> String {
///     "Cleared.".to_owned()
/// }
///
/// /// Unlocks the `clear` tool.
/// #[mcp::tool]
/// async fn unlock(ctx: Context) -> Result<String, String> {
///     ctx.server().add_tools(mcp::tools![clear]).map_err(|e| e.to_string())?;
///     Ok("`clear` is unlocked.".to_owned())
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = McpServer::new("board").tools(mcp::tools![unlock]).build()?;
/// let client = Client::builder(Implementation::new("c", "1")).connect(server.serve_in_memory());
/// assert_eq!(client.list_tools(None).await?.tools.len(), 1);
/// client.call_tool("unlock", None).await?;
/// let names: Vec<_> = client.list_tools(None).await?.tools.into_iter().map(|t| t.name).collect();
/// assert_eq!(names, ["unlock", "clear"]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ServerHandle {
    server: Server,
}

/// Why a [`ServerHandle`] could not change what the server offers.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChangeError {
    /// The server answers with the application's own handlers ([`ServerBuilder`](super::ServerBuilder)),
    /// so it has no tables to change: its handlers decide what exists.
    #[error(
        "this server has no {kind} table to change: it was built with `ServerBuilder` and its own \
         handlers, which decide what exists (build it with `McpServer` to add and remove {kind}s \
         at run time, or change what your handlers answer and call `notify`)"
    )]
    NoTables {
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
    },
    /// An entry was refused, for the reason [`McpServer::build`](super::McpServer::build)
    /// would have refused it (a name twice in one call, an unusable registration, shared
    /// state that was never registered). Nothing of the call was applied.
    #[error(transparent)]
    Rejected(#[from] BuildError),
}

impl ServerHandle {
    pub(super) fn new(server: Server) -> Self {
        Self { server }
    }

    /// The bus this server's changes travel on.
    pub(crate) fn bus(&self) -> Arc<dyn NotificationBus> {
        self.server.inner.fanout.bus().clone()
    }

    /// Tells every listening client of every instance on the server's bus about `change`.
    pub fn notify(&self, change: Change) {
        self.server.inner.fanout.bus().publish(change);
    }

    /// The resource at `uri` changed: `notifications/resources/updated` to the clients
    /// subscribed to it.
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.notify(Change::ResourceUpdated { uri: uri.into() });
    }

    /// Adds tools (usually `mcp::tools![…]`), each replacing the tool of the same name if
    /// there is one; then [`Change::ToolsListChanged`], unless each one replaced a tool listed
    /// exactly like it (only what runs changed).
    pub fn add_tools(&self, tools: impl IntoIterator<Item = ToolEntry>) -> Result<(), ChangeError> {
        let live = self.tables("tool")?;
        let change = live.add_tools(tools.into_iter().collect(), self.app_state())?;
        self.announce(change);
        Ok(())
    }

    /// Removes the tool `name`; whether there was one (only then
    /// [`Change::ToolsListChanged`]). Its calls already running finish; its next round, if
    /// one was asked for, gets the unknown-tool error.
    pub fn remove_tool(&self, name: &str) -> Result<bool, ChangeError> {
        let change = self.tables("tool")?.remove_tool(name);
        Ok(self.announce(change))
    }

    /// Adds prompts (usually `mcp::prompts![…]`), each replacing the prompt of the same name
    /// if there is one; then [`Change::PromptsListChanged`], unless each one replaced a prompt
    /// listed exactly like it.
    pub fn add_prompts(
        &self,
        prompts: impl IntoIterator<Item = PromptEntry>,
    ) -> Result<(), ChangeError> {
        let live = self.tables("prompt")?;
        let change = live.add_prompts(prompts.into_iter().collect(), self.app_state())?;
        self.announce(change);
        Ok(())
    }

    /// Removes the prompt `name`; whether there was one (only then
    /// [`Change::PromptsListChanged`]).
    pub fn remove_prompt(&self, name: &str) -> Result<bool, ChangeError> {
        let change = self.tables("prompt")?.remove_prompt(name);
        Ok(self.announce(change))
    }

    /// Adds resources and resource templates (usually `mcp::resources![…]`), each replacing
    /// the one of the same URI (or URI template) if there is one; then
    /// [`Change::ResourcesListChanged`], unless each one replaced an entry listed exactly like
    /// it. Completions of a template's variables and
    /// `resources/subscribe` follow.
    pub fn add_resources(
        &self,
        resources: impl IntoIterator<Item = ResourceEntry>,
    ) -> Result<(), ChangeError> {
        let live = self.tables("resource")?;
        let change = live.add_resources(resources.into_iter().collect(), self.app_state())?;
        self.announce(change);
        Ok(())
    }

    /// Removes the resource with URI `uri`, or the template written `uri`
    /// (`"deploy://{env}/confirm"`); whether there was one (only then
    /// [`Change::ResourcesListChanged`]).
    pub fn remove_resource(&self, uri: &str) -> Result<bool, ChangeError> {
        let change = self.tables("resource")?.remove_resource(uri);
        Ok(self.announce(change))
    }

    /// Replaces every tool, prompt and resource at once (a proxy following its remote), then
    /// announces each kind whose listing changed.
    pub(crate) fn replace_all(
        &self,
        tools: Vec<ToolEntry>,
        prompts: Vec<PromptEntry>,
        resources: Vec<ResourceEntry>,
    ) -> Result<(), ChangeError> {
        let live = self.tables("tool")?;
        for change in live.replace(tools, prompts, resources, self.app_state())? {
            self.announce(Some(change));
        }
        Ok(())
    }

    /// A hold on the server that does not keep it alive, for a task that works for it.
    pub(crate) fn downgrade(&self) -> WeakHandle {
        WeakHandle(Arc::downgrade(&self.server.inner))
    }

    fn tables(&self, kind: &'static str) -> Result<&LiveTables, ChangeError> {
        let live = self.server.inner.live.as_deref();
        live.ok_or(ChangeError::NoTables { kind })
    }

    fn app_state(&self) -> &Arc<AppState> {
        &self.server.inner.app_state
    }

    /// Tells this instance's listeners of `change` if there is one; whether there was. Not
    /// the bus: the tables changed are this instance's, and another instance that makes the
    /// same change announces it to its own listeners (a fleet-wide notice would tell them of
    /// a listing their instance does not have, or tell them once per instance).
    fn announce(&self, change: Option<Change>) -> bool {
        let changed = change.is_some();
        if let Some(change) = change {
            self.server.inner.fanout.deliver(&change);
            // A mounted server's listeners are those of the servers it is mounted in.
            let mut parent = self.server.inner.mounted_in.get().and_then(|p| p.upgrade());
            while let Some(inner) = parent {
                inner.fanout.deliver(&change);
                parent = inner.mounted_in.get().and_then(|p| p.upgrade());
            }
        }
        changed
    }
}

/// A [`ServerHandle`] that lets the server go once nothing else holds it.
pub(crate) struct WeakHandle(std::sync::Weak<super::Inner>);

impl WeakHandle {
    /// The handle, while the server is still held elsewhere.
    pub fn upgrade(&self) -> Option<ServerHandle> {
        let inner = self.0.upgrade()?;
        Some(ServerHandle::new(Server { inner }))
    }
}

impl fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerHandle")
            .field("tables", &self.server.inner.live.is_some())
            .finish_non_exhaustive()
    }
}
