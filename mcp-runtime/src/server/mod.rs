//! The low-level [`Server`]: one handler per method, the generation gate, dispatch.
//!
//! A [`Server`] answers both wires at once: 2026-07-28 requests (version and capabilities in
//! `_meta`, multi round-trip results) and 2025-11-25 sessions (`initialize`, then requests).
//! Transports ([`crate::transport`]) feed it messages.

mod answer;
mod app_state;
mod build_error;
mod builder;
mod connection;
mod context;
mod extension;
mod fanout;
mod gate;
mod handle;
mod handlers;
#[cfg(feature = "http")]
pub(crate) mod http_settings;
mod lifecycle;
mod listen;
mod listen_tasks;
mod listing;
mod meta_cache;
mod middleware;
mod mount;
pub(crate) mod preread;
pub(crate) mod refusal;
pub(crate) mod registry;
mod route;
mod sealing;
mod sink;
mod subscriptions;
pub(crate) mod tasks;
#[cfg(feature = "otel")]
mod traced;

use std::sync::Arc;

pub use answer::{Exchange, Reply};
pub use app_state::{AppState, FromAppState, State, StateKey};
pub use build_error::BuildError;
pub use builder::{
    DEFAULT_LOG_LEVEL, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_MAX_REQUESTS_IN_FLIGHT, DEFAULT_PAGE_SIZE,
    ServerBuilder,
};
pub(crate) use connection::changes_connection;
pub use connection::{Connection, LegacySession, MAX_LISTENS, MAX_SUBSCRIPTIONS};
pub(crate) use context::BodyGateKeeper;
pub use context::Context;
pub use extension::{ExtendedOutcome, Extension};
pub use fanout::LISTENER_QUEUE;
pub(crate) use fanout::{Interest, Listener, Lists, may_have_changed};
pub(crate) use handle::WeakHandle;
pub use handle::{ChangeError, ServerHandle};
#[cfg(feature = "http")]
pub(crate) use http_settings::HttpSettings;
pub(crate) use listen::change_line;
pub use listen_tasks::MAX_LISTENED_TASKS;
pub(crate) use listen_tasks::TaskReader;
pub(crate) use listing::ListPage;
pub use middleware::{McpRequest, McpResponse, McpService};
pub use registry::{
    CompleteCall, Completer, CompletionRequest, IntoCompletion, IntoPromptOutcome,
    IntoResourceOutcome, IntoToolOutcome, Json, McpServer, PromptCall, PromptEntry, RateLimit,
    ResourceCall, ResourceEntry, TaskSupport, ToolCall, ToolEntry,
};
pub(crate) use registry::{ToolRun, macro_support};
pub use sink::NotificationSink;
pub use subscriptions::MAX_SUBSCRIBED_URI;
#[cfg(feature = "http")]
pub(crate) use {gate::Preparsed, preread::Preread};

use crate::protocol::{
    CacheHint, Frozen, Generation, Implementation, LoggingLevel, ResultFields, ServerCapabilities,
};
use crate::push::PushStats;
use crate::state::StateBoundary;
use builder::{Handlers, NotificationHook};
use subscriptions::ResourceExists;

/// A low-level MCP server. Cheap to clone (all clones share one set of handlers).
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    info: Arc<Implementation>,
    instructions: Option<String>,
    capabilities: ServerCapabilities,
    handlers: Handlers,
    extensions: extension::Extensions,
    max_message_size: usize,
    max_requests_in_flight: usize,
    /// `None`: unknown (a listing handler of the application's), so any URI may be subscribed.
    resource_exists: Option<ResourceExists>,
    state: Option<StateBoundary>,
    app_state: Arc<AppState>,
    /// Where the server's changes go out on, and its listeners hear them from.
    fanout: Arc<fanout::Fanout>,
    /// The tables of an `McpServer`; `None` for a server of the application's own handlers.
    live: Option<Arc<registry::LiveTables>>,
    /// The servers mounted in it (see `McpServer::mount`).
    mounts: Arc<[mount::Mount]>,
    /// The server it is mounted in, once that is built: its listeners are this server's
    /// clients', so the changes to its tables are announced there too.
    mounted_in: std::sync::OnceLock<std::sync::Weak<Inner>>,
    /// The level of a 2025-11-25 session before `logging/setLevel`.
    default_log_level: Option<LoggingLevel>,
    roots_list_changed: Option<NotificationHook>,
    #[cfg(feature = "http")]
    http: HttpSettings,
    /// The middleware every request goes through; `None` (no boxing) without any.
    middleware: Option<middleware::Stack>,
    /// `server/discover`'s own cache hint, if it has one.
    discover_cache: Option<CacheHint>,
    /// What results on each wire are filled in with.
    on_2026: ResultFields,
    on_2025: ResultFields,
}

impl Server {
    /// Starts building a server that introduces itself as `info`.
    pub fn builder(info: Implementation) -> ServerBuilder {
        ServerBuilder::new(info)
    }

    fn from_builder(
        b: ServerBuilder,
        capabilities: ServerCapabilities,
        extensions: extension::Extensions,
        state: Option<StateBoundary>,
    ) -> Self {
        let info = Arc::new(b.info);
        // Frozen here, once: it is written into every result.
        let answering_as = Frozen::new(Implementation::clone(
            b.answering_as.as_deref().unwrap_or(&info),
        ));
        let fields = |generation| ResultFields {
            generation,
            server_info: answering_as.clone(),
            cache: b.cache,
        };
        let on_2026 = fields(Generation::V2026_07_28);
        let on_2025 = fields(Generation::V2025_11_25);
        // Without the capability the client was never told logs may come.
        let default_log_level = b
            .default_log_level
            .filter(|_| capabilities.logging.is_some());
        let server = Self {
            inner: Arc::new(Inner {
                info,
                instructions: b.instructions,
                capabilities,
                handlers: b.handlers,
                extensions,
                max_message_size: b.max_message_size,
                max_requests_in_flight: b.max_requests_in_flight,
                resource_exists: b.resource_exists,
                state,
                app_state: Arc::new(b.app_state),
                fanout: Arc::new(fanout::Fanout::new(b.bus)),
                live: b.live,
                mounts: b.mounts,
                mounted_in: std::sync::OnceLock::new(),
                default_log_level,
                roots_list_changed: b.roots_list_changed,
                #[cfg(feature = "http")]
                http: b.http,
                middleware: b.middleware,
                discover_cache: b.cache_hints.discover,
                on_2026,
                on_2025,
            }),
        };
        for mount in server.inner.mounts.iter() {
            // Set once: a server is mounted in one parent, built once.
            let _ = mount
                .server
                .inner
                .mounted_in
                .set(Arc::downgrade(&server.inner));
        }
        server
    }

    /// Who this server says it is.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// A handle for telling its clients what changed, from outside any request.
    pub fn handle(&self) -> ServerHandle {
        ServerHandle::new(self.clone())
    }

    /// How delivery of changes to this instance's listeners is going: how many listen, how
    /// many were ended for falling behind.
    ///
    /// ```
    /// use mcp::protocol::Implementation;
    /// use mcp::server::Server;
    ///
    /// let server = Server::builder(Implementation::new("board", "1.0.0")).build()?;
    /// assert_eq!(server.push_stats().listeners, 0);
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn push_stats(&self) -> PushStats {
        self.inner.fanout.stats()
    }

    /// A listener on this instance's changes.
    pub(crate) fn listen_to_changes(&self, interest: Interest) -> Listener {
        self.inner.fanout.listen(interest)
    }

    /// The list changes this server announces: one per kind it advertises now (an
    /// `McpServer`'s follow its tables).
    pub(crate) fn announced_lists(&self) -> Lists {
        let c = self.capabilities();
        Lists {
            tools: c.tools.is_some(),
            prompts: c.prompts.is_some(),
            resources: c.resources.is_some(),
        }
    }

    /// What it advertises now. An [`McpServer`]'s follow its tables, which a
    /// [`ServerHandle`] may change while it runs. `extensions` (its [`Extension`]s) goes out
    /// on 2026-07-28 `server/discover` only, never in a 2025-11-25 `initialize`.
    pub fn capabilities(&self) -> ServerCapabilities {
        let mut capabilities = self.inner.capabilities.clone();
        if let Some(live) = &self.inner.live {
            live.advertise(&mut capabilities);
        }
        self.advertise_mounts(&mut capabilities);
        capabilities
    }

    /// The longest message it accepts.
    pub fn max_message_size(&self) -> usize {
        self.inner.max_message_size
    }

    /// How many requests of one connection it runs at once (see
    /// [`ServerBuilder::max_requests_in_flight`]).
    pub fn max_requests_in_flight(&self) -> usize {
        self.inner.max_requests_in_flight
    }

    /// How it wants to be served over HTTP.
    #[cfg(feature = "http")]
    pub(crate) fn http_settings(&self) -> &HttpSettings {
        &self.inner.http
    }

    /// The params field whose string a request for `method` must carry in `Mcp-Name`, when
    /// an extension routes the method by one (see [`Extension::routing_param`]).
    #[cfg(feature = "http")]
    pub(crate) fn routing_param(&self, method: &str) -> Option<&str> {
        self.inner
            .extensions
            .routing_param(method)
            .or_else(|| self.mounted_routing_param(method))
    }

    fn result_fields(&self, generation: Generation) -> &ResultFields {
        match generation {
            Generation::V2026_07_28 => &self.inner.on_2026,
            Generation::V2025_11_25 => &self.inner.on_2025,
        }
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .field("capabilities", &self.inner.capabilities)
            .finish_non_exhaustive()
    }
}
