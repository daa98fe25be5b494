//! Assembling a [`Server`]: identity, handlers, limits. Settings are only stored until
//! [`ServerBuilder::build`], which checks them once and in any order.

use super::mount::Mount;
use std::future::Future;
use std::sync::Arc;

use crate::protocol::{
    CacheHint, CallToolParams, CallToolResult, CompleteParams, CompleteResult, GetPromptParams,
    GetPromptResult, Implementation, ListChangedCapability, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, LoggingLevel, McpError,
    PaginatedParams, Prompt, ReadResourceParams, ReadResourceResult, Resource, ResourceTemplate,
    ResourcesCapability, ServerCapabilities, Tool,
};

use crate::boxed::{BoxError, BoxFuture};
use crate::push::{LocalBus, NotificationBus};
use crate::state::{RequestStateSecurity, StateBoundary};

use super::Server;
use super::app_state::AppState;
use super::build_error::BuildError;
use super::context::Context;
use super::extension::{ExtendedOutcome, Extension, Extensions};
use super::handlers::{Handler, erase};
#[cfg(feature = "http")]
use super::http_settings::HttpSettings;
use super::listing::fixed_listing;
use super::middleware::{McpRequest, McpResponse, McpService, Stack};
use super::registry::LiveTables;
use super::subscriptions::{self, ResourceExists};

/// The longest message accepted by default (4 MiB).
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 4 * 1024 * 1024;
/// How many requests of one connection run at once by default.
pub const DEFAULT_MAX_REQUESTS_IN_FLIGHT: usize = 64;
/// Items per page of the built-in list handlers.
pub const DEFAULT_PAGE_SIZE: usize = 100;
/// The level a 2025-11-25 session logs at until its client sends `logging/setLevel`.
pub const DEFAULT_LOG_LEVEL: LoggingLevel = LoggingLevel::Info;

/// What the server runs when the client sends a notification it has a hook for.
pub(crate) type NotificationHook = Arc<dyn Fn(Context) -> BoxFuture<()> + Send + Sync>;

#[derive(Default)]
pub(crate) struct Handlers {
    pub list_tools: Option<Handler<PaginatedParams, ListToolsResult>>,
    pub call_tool: Option<Handler<CallToolParams, ExtendedOutcome<CallToolResult>>>,
    pub list_prompts: Option<Handler<PaginatedParams, ListPromptsResult>>,
    pub get_prompt: Option<Handler<GetPromptParams, ExtendedOutcome<GetPromptResult>>>,
    pub list_resources: Option<Handler<PaginatedParams, ListResourcesResult>>,
    pub list_resource_templates: Option<Handler<PaginatedParams, ListResourceTemplatesResult>>,
    pub read_resource: Option<Handler<ReadResourceParams, ExtendedOutcome<ReadResourceResult>>>,
    pub complete: Option<Handler<CompleteParams, CompleteResult>>,
}

/// Builds a low-level [`Server`]: one handler per method.
///
/// `on_call_tool`, `on_get_prompt` and `on_read_resource` may finish or ask for input
/// (their closures return anything that converts into [`ExtendedOutcome`]: the result, an
/// `InputRequiredResult`, an `Outcome`, or an [`Extension`]'s result); every other handler
/// returns its plain result type, so asking for input from, say, `tools/list` does not compile.
///
/// ```
/// use mcp::protocol::{CallToolResult, Implementation, Tool};
/// use mcp::server::Server;
///
/// let server = Server::builder(Implementation::new("echo", "1.0.0"))
///     .list_tools(vec![Tool::new("echo", serde_json::json!({"type": "object"}))])
///     .on_call_tool(|_ctx, params| async move {
///         let text = params.arguments.and_then(|a| a.get("text").cloned()).unwrap_or_default();
///         Ok(CallToolResult::text(text.as_str().unwrap_or_default()))
///     })
///     .build()?;
/// # let _ = server;
/// # Ok::<(), mcp::server::BuildError>(())
/// ```
pub struct ServerBuilder {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) handlers: Handlers,
    listings: Listings,
    pub(crate) cache: CacheHint,
    pub(crate) cache_hints: CacheHints,
    pub(crate) page_size: usize,
    pub(crate) max_message_size: usize,
    pub(crate) max_requests_in_flight: usize,
    pub(crate) resource_exists: Option<ResourceExists>,
    logging: bool,
    pub(crate) default_log_level: Option<LoggingLevel>,
    pub(crate) roots_list_changed: Option<NotificationHook>,
    security: Option<RequestStateSecurity>,
    extensions: Vec<Extension>,
    pub(crate) app_state: AppState,
    pub(crate) bus: Arc<dyn NotificationBus>,
    /// The tables of an `McpServer`, which its handle may change while it runs.
    pub(crate) live: Option<Arc<LiveTables>>,
    /// The middleware layers, stacked as they were added; `None` without any.
    pub(crate) middleware: Option<Stack>,
    /// The servers mounted in an `McpServer`.
    pub(crate) mounts: Arc<[Mount]>,
    /// Who results say answered (`_meta.serverInfo`), when not this server itself: the
    /// endpoint's server, for one mounted in it, which its clients know and see in
    /// `server/discover`.
    pub(crate) answering_as: Option<Arc<Implementation>>,
    #[cfg(feature = "http")]
    pub(crate) http: HttpSettings,
}

/// Cache hints of particular answers, where they differ from the server's default.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct CacheHints {
    pub tools: Option<CacheHint>,
    pub prompts: Option<CacheHint>,
    pub resources: Option<CacheHint>,
    pub discover: Option<CacheHint>,
}

/// Fixed listings, paginated by the handlers [`ServerBuilder::build`] makes of them.
#[derive(Default)]
struct Listings {
    tools: Option<Vec<Tool>>,
    prompts: Option<Vec<Prompt>>,
    resources: Option<Vec<Resource>>,
    resource_templates: Option<Vec<ResourceTemplate>>,
}

impl ServerBuilder {
    pub(crate) fn new(info: Implementation) -> Self {
        Self {
            info,
            instructions: None,
            handlers: Handlers::default(),
            listings: Listings::default(),
            cache: CacheHint::default(),
            cache_hints: CacheHints::default(),
            page_size: DEFAULT_PAGE_SIZE,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            max_requests_in_flight: DEFAULT_MAX_REQUESTS_IN_FLIGHT,
            resource_exists: None,
            logging: true,
            default_log_level: Some(DEFAULT_LOG_LEVEL),
            roots_list_changed: None,
            security: None,
            extensions: Vec::new(),
            app_state: AppState::default(),
            bus: Arc::new(LocalBus::new()),
            live: None,
            middleware: None,
            mounts: Arc::new([]),
            answering_as: None,
            #[cfg(feature = "http")]
            http: HttpSettings::default(),
        }
    }

    /// Guidance for the model, returned by `server/discover` and `initialize`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Cache hints for list results and reads that set none themselves (default: 0 ms, private).
    pub fn cache_hint(mut self, hint: CacheHint) -> Self {
        self.cache = hint;
        self
    }

    /// Cache hints for every page of `tools/list` served from [`list_tools`](Self::list_tools)
    /// (default: [`cache_hint`](Self::cache_hint)).
    pub fn tools_cache_hint(mut self, hint: CacheHint) -> Self {
        self.cache_hints.tools = Some(hint);
        self
    }

    /// Cache hints for every page of `prompts/list` served from
    /// [`list_prompts`](Self::list_prompts) (default: [`cache_hint`](Self::cache_hint)).
    pub fn prompts_cache_hint(mut self, hint: CacheHint) -> Self {
        self.cache_hints.prompts = Some(hint);
        self
    }

    /// Cache hints for every page of `resources/list` and `resources/templates/list` served
    /// from the fixed listings (default: [`cache_hint`](Self::cache_hint)).
    pub fn resources_cache_hint(mut self, hint: CacheHint) -> Self {
        self.cache_hints.resources = Some(hint);
        self
    }

    /// Cache hints for `server/discover` (default: [`cache_hint`](Self::cache_hint)).
    pub fn discover_cache_hint(mut self, hint: CacheHint) -> Self {
        self.cache_hints.discover = Some(hint);
        self
    }

    /// Items per page for the fixed listings ([`list_tools`](Self::list_tools) and friends;
    /// default 100).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// The longest message accepted (default 4 MiB); longer ones are answered with -32600.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// How many requests of one connection served by [`Server::serve`] (stdio, in-memory) run
    /// at once (default 64, at least 1). At the bound the server stops reading the connection
    /// until one is answered, so a client that writes without reading cannot make it buffer
    /// without end. A 2026-07-28 `subscriptions/listen` stays open for as long as the client
    /// listens, so it takes no place among these; a connection holds at most
    /// [`MAX_LISTENS`](super::MAX_LISTENS) at once.
    pub fn max_requests_in_flight(mut self, requests: usize) -> Self {
        self.max_requests_in_flight = requests.max(1);
        self
    }

    /// Whether to advertise the (deprecated) logging capability (default on).
    pub fn logging(mut self, enabled: bool) -> Self {
        self.logging = enabled;
        self
    }

    /// The level [`Context::log`] sends at in a 2025-11-25 session before the client chooses
    /// one with `logging/setLevel` (default [`DEFAULT_LOG_LEVEL`], `info`; `None`: nothing
    /// until the client asks). That revision lets the server decide what to send before then.
    /// A 2026-07-28 request is never logged to unless it carries a `logLevel` of its own, as
    /// that revision requires; without the logging capability ([`logging`](Self::logging)
    /// off) nothing is logged to the client at all.
    ///
    /// ```
    /// use mcp::protocol::{Implementation, LoggingLevel};
    /// use mcp::server::Server;
    ///
    /// let server = Server::builder(Implementation::new("quiet", "1.0.0"))
    ///     .default_log_level(Some(LoggingLevel::Warning))
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn default_log_level(mut self, level: Option<LoggingLevel>) -> Self {
        self.default_log_level = level;
        self
    }

    /// Runs `hook` each time a 2025-11-25 client sends `notifications/roots/list_changed`
    /// (2026-07-28 has no such notification: a server asks for the roots where it needs them).
    /// The hook runs in a task of its own with a [`Context`] of the session (its client, its
    /// capabilities, the shared state); [`Context::request_id`] is the notification's method
    /// there, as a notification has no id. It may ask the client for the new roots with
    /// [`Context::request_client`]: over stdio and in memory the request goes out at once,
    /// over HTTP on the session's GET stream (when the client keeps one open).
    ///
    /// ```
    /// use mcp::protocol::{Implementation, ListRootsResult};
    /// use mcp::server::Server;
    ///
    /// let server = Server::builder(Implementation::new("files", "1.0.0"))
    ///     .on_roots_list_changed(|ctx| async move {
    ///         let roots: Result<ListRootsResult, _> =
    ///             ctx.request_client("roots/list", &serde_json::json!({})).await;
    ///         tracing::info!(count = roots.map(|r| r.roots.len()).ok(), "the roots changed");
    ///     })
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn on_roots_list_changed<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.roots_list_changed = Some(Arc::new(move |ctx| Box::pin(hook(ctx))));
        self
    }

    /// Handles `tools/list`.
    pub fn on_list_tools<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Context, PaginatedParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListToolsResult, McpError>> + Send + 'static,
    {
        self.handlers.list_tools = Some(erase(f));
        self.listings.tools = None;
        self
    }

    /// Serves `tools/list` from a fixed list, [paginated](Self::page_size).
    pub fn list_tools(mut self, tools: Vec<Tool>) -> Self {
        self.listings.tools = Some(tools);
        self.handlers.list_tools = None;
        self
    }

    /// Handles `tools/call`: return a `CallToolResult`, an `InputRequiredResult`, an
    /// `Outcome`, or an [`ExtendedOutcome`] (which may be an extension's result).
    pub fn on_call_tool<F, Fut, O>(mut self, f: F) -> Self
    where
        F: Fn(Context, CallToolParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, McpError>> + Send + 'static,
        O: Into<ExtendedOutcome<CallToolResult>> + 'static,
    {
        self.handlers.call_tool = Some(erase(f));
        self
    }

    /// Handles `prompts/list`.
    pub fn on_list_prompts<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Context, PaginatedParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListPromptsResult, McpError>> + Send + 'static,
    {
        self.handlers.list_prompts = Some(erase(f));
        self.listings.prompts = None;
        self
    }

    /// Serves `prompts/list` from a fixed list, [paginated](Self::page_size).
    pub fn list_prompts(mut self, prompts: Vec<Prompt>) -> Self {
        self.listings.prompts = Some(prompts);
        self.handlers.list_prompts = None;
        self
    }

    /// Handles `prompts/get`: return a `GetPromptResult`, an `InputRequiredResult`, an
    /// `Outcome`, or an [`ExtendedOutcome`].
    pub fn on_get_prompt<F, Fut, O>(mut self, f: F) -> Self
    where
        F: Fn(Context, GetPromptParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, McpError>> + Send + 'static,
        O: Into<ExtendedOutcome<GetPromptResult>> + 'static,
    {
        self.handlers.get_prompt = Some(erase(f));
        self
    }

    /// Handles `resources/list`.
    pub fn on_list_resources<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Context, PaginatedParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListResourcesResult, McpError>> + Send + 'static,
    {
        self.handlers.list_resources = Some(erase(f));
        self.listings.resources = None;
        self
    }

    /// Serves `resources/list` from a fixed list, [paginated](Self::page_size).
    pub fn list_resources(mut self, resources: Vec<Resource>) -> Self {
        self.listings.resources = Some(resources);
        self.handlers.list_resources = None;
        self
    }

    /// Handles `resources/templates/list`.
    pub fn on_list_resource_templates<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Context, PaginatedParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListResourceTemplatesResult, McpError>> + Send + 'static,
    {
        self.handlers.list_resource_templates = Some(erase(f));
        self.listings.resource_templates = None;
        self
    }

    /// Serves `resources/templates/list` from a fixed list, [paginated](Self::page_size).
    pub fn list_resource_templates(mut self, resource_templates: Vec<ResourceTemplate>) -> Self {
        self.listings.resource_templates = Some(resource_templates);
        self.handlers.list_resource_templates = None;
        self
    }

    /// Handles `resources/read`: return a `ReadResourceResult`, an `InputRequiredResult`, an
    /// `Outcome`, or an [`ExtendedOutcome`]. A missing resource is [`McpError::resource_not_found`].
    pub fn on_read_resource<F, Fut, O>(mut self, f: F) -> Self
    where
        F: Fn(Context, ReadResourceParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, McpError>> + Send + 'static,
        O: Into<ExtendedOutcome<ReadResourceResult>> + 'static,
    {
        self.handlers.read_resource = Some(erase(f));
        self
    }

    /// Says which URIs name a resource, for 2025-11-25 `resources/subscribe`: a subscription
    /// to any other is refused (-32002). Without it, the fixed listings
    /// ([`list_resources`](Self::list_resources),
    /// [`list_resource_templates`](Self::list_resource_templates)) decide when there are some
    /// and no listing comes from a handler; otherwise any URI may be subscribed (each session
    /// holds at most [`MAX_SUBSCRIPTIONS`](super::MAX_SUBSCRIPTIONS) of at most
    /// [`MAX_SUBSCRIBED_URI`](super::MAX_SUBSCRIBED_URI) bytes).
    ///
    /// ```
    /// use mcp::protocol::{Implementation, ReadResourceResult, ResourceContents};
    /// let server = mcp::server::Server::builder(Implementation::new("files", "1.0.0"))
    ///     .on_read_resource(|_ctx, params| async move {
    ///         let text = ResourceContents::text(&params.uri, "…");
    ///         Ok(ReadResourceResult::new(vec![text]))
    ///     })
    ///     .resource_exists(|uri| uri.starts_with("file:///srv/"))
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn resource_exists(
        mut self,
        exists: impl Fn(&str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.resource_exists = Some(Arc::new(exists));
        self
    }

    /// Handles `completion/complete`.
    pub fn on_complete<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Context, CompleteParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CompleteResult, McpError>> + Send + 'static,
    {
        self.handlers.complete = Some(erase(f));
        self
    }

    /// Wraps every MCP request in `layer`, an ordinary `tower` layer (a timeout, a
    /// concurrency limit, an audit log), after the request is decoded and admitted and
    /// before its handler runs; see [`McpRequest`] and [`McpResponse`] for what a layer sees,
    /// and [`McpService`] for how a layer's errors reach the client.
    ///
    /// Each call wraps the layers added before it, so the last one added sees a request first.
    /// A layer's service must be `Clone` (one clone serves each request): wrap one that is not
    /// (tower's `RateLimit`) in a `tower::buffer::BufferLayer`. Without layers nothing is
    /// boxed: the request goes straight to its handler.
    ///
    /// Every method goes through the layers but `subscriptions/listen`, a stream open for as
    /// long as its client listens, which a timeout would end and a concurrency limit would be
    /// held by. A call that becomes a task goes through them once, when it is made; its
    /// background run does not.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp::protocol::Implementation;
    /// use mcp::server::{McpRequest, Server};
    /// use tower::ServiceBuilder;
    ///
    /// let server = Server::builder(Implementation::new("audited", "1.0.0"))
    ///     .layer(
    ///         ServiceBuilder::new()
    ///             .timeout(Duration::from_secs(30))
    ///             .map_request(|request: McpRequest| {
    ///                 tracing::info!(method = request.method(), target = request.target(), "call");
    ///                 request
    ///             }),
    ///     )
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn layer<L, S>(mut self, layer: L) -> Self
    where
        L: tower::Layer<McpService, Service = S>,
        S: tower::Service<McpRequest, Response = McpResponse> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        self.middleware = Some(Stack::wrap(self.middleware.take(), layer));
        self
    }

    /// Adds `extension`: advertised by `server/discover`, its methods served to the 2026-07-28
    /// clients that declare it (see [`Extension`]). [`build`](Self::build) checks its id and
    /// refuses an id registered twice, and a method or `resultType` the core protocol or
    /// another extension has, naming both.
    ///
    /// ```
    /// use mcp::protocol::Implementation;
    /// use mcp::server::{Extension, Server};
    ///
    /// let server = Server::builder(Implementation::new("apps", "1.0.0"))
    ///     .extension(Extension::new("io.modelcontextprotocol/ui"))
    ///     .build()?;
    /// assert!(server.capabilities().extensions.is_some_and(|e| e.contains_key("io.modelcontextprotocol/ui")));
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn extension(mut self, extension: Extension) -> Self {
        self.extensions.push(extension);
        self
    }

    /// The capabilities implied by the registered handlers and extensions.
    fn capabilities(&self, extensions: &Extensions) -> ServerCapabilities {
        let h = &self.handlers;
        let empty = || Some(Default::default());
        // Every kind served can change: the application announces it through the server's
        // handle, and the server delivers it to whoever listens.
        let lists = || ListChangedCapability {
            list_changed: Some(true),
        };
        ServerCapabilities {
            tools: (h.list_tools.is_some() || h.call_tool.is_some()).then(lists),
            prompts: (h.list_prompts.is_some() || h.get_prompt.is_some()).then(lists),
            resources: (h.list_resources.is_some()
                || h.list_resource_templates.is_some()
                || h.read_resource.is_some())
            .then(|| ResourcesCapability {
                // Updates need something to read again, so only with `resources/read`.
                subscribe: h.read_resource.is_some().then_some(true),
                list_changed: Some(true),
            }),
            completions: h.complete.as_ref().and_then(|_| empty()),
            logging: if self.logging { empty() } else { None },
            extensions: extensions.advertised(),
            ..ServerCapabilities::default()
        }
    }

    /// The bus the server's changes travel on (default: a [`LocalBus`], this process only).
    /// Instances that serve one application share one bus, so a change made through any of
    /// them reaches the clients listening on all of them.
    ///
    /// ```
    /// use mcp::protocol::Implementation;
    /// use mcp::push::LocalBus;
    /// use mcp::server::Server;
    ///
    /// let server = Server::builder(Implementation::new("board", "1.0.0"))
    ///     .notification_bus(LocalBus::new())
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn notification_bus(mut self, bus: impl NotificationBus) -> Self {
        self.bus = Arc::new(bus);
        self
    }

    /// Shares `value` with every handler: `ctx.state::<T>()`, or an `mcp::State<T>` parameter
    /// of a macro-built handler. One value per type; a second call for the same type replaces
    /// the first.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.app_state.insert(value);
        self
    }

    /// Seals every `requestState` this server mints and opens every one it receives, under
    /// `security` (see [`crate::state`]). Without it, handlers' state goes to the client as
    /// plaintext and comes back unverified, which is only safe for state that carries no
    /// authority.
    ///
    /// [`build`](Self::build) fails when the policy has explicit keys but neither the server
    /// nor the policy names an audience.
    ///
    /// ```
    /// use mcp::protocol::Implementation;
    /// use mcp::server::Server;
    /// use mcp::state::RequestStateSecurity;
    ///
    /// let server = Server::builder(Implementation::new("deployer", "1.0.0"))
    ///     .request_state_security(RequestStateSecurity::ephemeral())
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn request_state_security(mut self, security: RequestStateSecurity) -> Self {
        self.security = Some(security);
        self
    }

    /// Checks the settings and finishes the server.
    pub fn build(mut self) -> Result<Server, BuildError> {
        check_urls(&self.info)?;
        let extensions = Extensions::new(std::mem::take(&mut self.extensions))?;
        let state = match self.security.take() {
            Some(security) => Some(StateBoundary::new(security, &self.info.name)?),
            None => None,
        };
        let page_size = self.page_size;
        let hints = self.cache_hints;
        let listings = std::mem::take(&mut self.listings);
        // A listing handler of the application's may name any URI.
        let listed_by_handler = self.handlers.list_resources.is_some()
            || self.handlers.list_resource_templates.is_some();
        if self.resource_exists.is_none() && !listed_by_handler {
            self.resource_exists = subscriptions::listed(
                listings.resources.as_deref().unwrap_or_default(),
                listings.resource_templates.as_deref().unwrap_or_default(),
            );
        }
        if let Some(tools) = listings.tools {
            self.handlers.list_tools = Some(fixed_listing(tools, page_size, hints.tools));
        }
        if let Some(prompts) = listings.prompts {
            self.handlers.list_prompts = Some(fixed_listing(prompts, page_size, hints.prompts));
        }
        if let Some(resources) = listings.resources {
            let handler = fixed_listing(resources, page_size, hints.resources);
            self.handlers.list_resources = Some(handler);
        }
        if let Some(templates) = listings.resource_templates {
            let handler = fixed_listing(templates, page_size, hints.resources);
            self.handlers.list_resource_templates = Some(handler);
        }
        let capabilities = self.capabilities(&extensions);
        Ok(Server::from_builder(self, capabilities, extensions, state))
    }
}

/// The server's icons and website: clients show them, so a URL they cannot fetch is a mistake
/// better found at startup.
fn check_urls(info: &Implementation) -> Result<(), BuildError> {
    for icon in info.icons.iter().flatten() {
        check_icon_src(&icon.src, "server icon")?;
    }
    if let Some(url) = &info.website_url
        && !is_web_url(url)
    {
        return Err(BuildError::InvalidUrl {
            what: "website URL".to_owned(),
            url: url.clone(),
            expected: "an `https:` or `http:` URL",
        });
    }
    Ok(())
}

/// An icon's `src`: the spec allows an HTTP(S) URL or a `data:` URI.
fn check_icon_src(src: &str, what: &str) -> Result<(), BuildError> {
    if is_web_url(src) || (src.starts_with("data:") && src.contains(',')) {
        return Ok(());
    }
    Err(BuildError::InvalidUrl {
        what: what.to_owned(),
        url: src.to_owned(),
        expected: "an `https:` or `http:` URL or a `data:` URI",
    })
}

fn is_web_url(url: &str) -> bool {
    ["https://", "http://"].iter().any(|scheme| {
        url.get(..scheme.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
            && url.len() > scheme.len()
    })
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}
