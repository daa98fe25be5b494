//! [`McpServer`]: the settings of a low-level [`ServerBuilder`] plus the registry of
//! macro-described functions, checked and assembled at [`McpServer::build`].

use std::sync::Arc;
#[cfg(feature = "http")]
use std::time::Duration;

use crate::protocol::{
    CacheHint, CompleteParams, CompleteResult, Icon, Implementation, LoggingLevel, McpError,
};
use crate::push::NotificationBus;
use crate::state::RequestStateSecurity;

use super::live::{LiveTables, check};
use super::prompts::PromptEntry;
use super::resources::ResourceEntry;
use super::tables::{Tables, Versions, install};
use super::tools::{TaskSupport, ToolEntry};
use crate::boxed::BoxError;
use crate::server::mount;
use crate::server::tasks::TaskRuntime;
use crate::server::{
    BuildError, Context, Extension, McpRequest, McpResponse, McpService, Server, ServerBuilder,
};
use crate::tasks::Tasks;

/// A server assembled from `#[mcp::tool]` functions (registered with `mcp::tools![…]`; see the
/// `mcp` facade crate for the macros).
///
/// ```
/// use mcp::server::McpServer;
///
/// let server = McpServer::new("greeter")
///     .version("1.2.0")
///     .instructions("Greets people.")
///     .build()?;
/// assert_eq!(server.info().name, "greeter");
/// # Ok::<(), mcp::server::BuildError>(())
/// ```
///
/// Sealing of `requestState` is on by default with a per-process key
/// ([`RequestStateSecurity::ephemeral`]); pass shared keys with
/// [`request_state_security`](Self::request_state_security) to run several instances.
#[derive(Debug)]
pub struct McpServer {
    /// Every setting of the low-level server, so none is lost on the way to it.
    builder: ServerBuilder,
    tools: Vec<ToolEntry>,
    prompts: Vec<PromptEntry>,
    resources: Vec<ResourceEntry>,
    tasks: Option<Tasks>,
    mounts: Vec<(String, McpServer)>,
    built: BuiltHooks,
}

/// What runs once the server is built, with it: work of the crate's own that needs the
/// running server (a proxy following its remote's listing).
#[derive(Default)]
struct BuiltHooks(Vec<BuiltHook>);

type BuiltHook = Box<dyn FnOnce(&Server) + Send>;

impl std::fmt::Debug for BuiltHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} hooks", self.0.len())
    }
}

impl McpServer {
    /// A server that introduces itself as `name`, version `0.0.0` until [`version`](Self::version).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            builder: Server::builder(Implementation::new(name, "0.0.0"))
                .request_state_security(RequestStateSecurity::ephemeral()),
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            tasks: None,
            mounts: Vec::new(),
            built: BuiltHooks::default(),
        }
    }

    /// Runs `hook` with the server once [`build`](Self::build) has built it.
    pub(crate) fn on_built(mut self, hook: impl FnOnce(&Server) + Send + 'static) -> Self {
        self.built.0.push(Box::new(hook));
        self
    }

    /// The version it reports.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.builder.info.version = version.into();
        self
    }

    /// A display name, shown by clients instead of the programmatic name.
    ///
    /// The title, [`description`](Self::description), [`icons`](Self::icons) and
    /// [`website_url`](Self::website_url) describe the server in `initialize`'s `serverInfo`
    /// (2025-11-25) and in every result's `_meta["io.modelcontextprotocol/serverInfo"]`
    /// (2026-07-28, `server/discover` included).
    ///
    /// ```
    /// use mcp::protocol::{Icon, IconTheme};
    /// use mcp::server::McpServer;
    ///
    /// let server = McpServer::new("provisioner")
    ///     .version("2.1.0")
    ///     .title("Database Provisioner")
    ///     .description("Creates and sizes databases.")
    ///     .icons([
    ///         Icon::new("https://example.com/db.svg").with_mime_type("image/svg+xml").with_sizes(["any"]),
    ///         Icon::new("https://example.com/db-dark.png").with_theme(IconTheme::Dark),
    ///     ])
    ///     .website_url("https://example.com/provisioner")
    ///     .build()?;
    /// assert_eq!(server.info().title.as_deref(), Some("Database Provisioner"));
    /// assert_eq!(server.info().icons.as_ref().map(Vec::len), Some(2));
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.builder.info.title = Some(title.into());
        self
    }

    /// What the server does, for people (the model's guidance is
    /// [`instructions`](Self::instructions)).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.builder.info.description = Some(description.into());
        self
    }

    /// Icons clients may show for the server (added to any given before). Each `src` is an
    /// `https:`/`http:` URL or a `data:` URI; [`build`](Self::build) refuses any other.
    pub fn icons(mut self, icons: impl IntoIterator<Item = Icon>) -> Self {
        self.builder
            .info
            .icons
            .get_or_insert_with(Vec::new)
            .extend(icons);
        self
    }

    /// The server's website (an `https:` or `http:` URL, checked by [`build`](Self::build)).
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.builder.info.website_url = Some(url.into());
        self
    }

    /// Guidance for the model, sent by `server/discover` and `initialize`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.builder = self.builder.instructions(instructions);
        self
    }

    /// Registers tools, usually `mcp::tools![a, b, c]`.
    pub fn tools(mut self, tools: impl IntoIterator<Item = ToolEntry>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Registers prompts, usually `mcp::prompts![a, b]`.
    pub fn prompts(mut self, prompts: impl IntoIterator<Item = PromptEntry>) -> Self {
        self.prompts.extend(prompts);
        self
    }

    /// Registers resources and resource templates, usually `mcp::resources![a, b]`.
    pub fn resources(mut self, resources: impl IntoIterator<Item = ResourceEntry>) -> Self {
        self.resources.extend(resources);
        self
    }

    /// Serves `server` as part of this one: its tools and prompts listed as
    /// `{prefix}_{name}`, its resources and templates as `{prefix}+{uri}` (an empty prefix keeps
    /// its names), and every request for them answered by it.
    ///
    /// The mounted server keeps everything of its own: shared state ([`state`](Self::state)),
    /// request-state sealing (its keys, its name as the audience: a `requestState` it mints
    /// opens nowhere else), its tasks (in its own store) and completions. What it advertises is added to this
    /// server's capabilities; its list changes and resource updates reach this server's
    /// clients (it publishes on this server's [bus](Self::notification_bus)). Its own HTTP,
    /// auth and transport settings are not used: the mounting server's are, and its results
    /// name the mounting server (`_meta.serverInfo`), the one its clients discovered.
    ///
    /// Its tasks (the tasks extension) read `{prefix}:{id}` here (`:{id}` under the empty
    /// prefix) everywhere a task id travels: the call's `CreateTaskResult`, `tasks/get`,
    /// `notifications/tasks` on a listen, the status changes on the bus. `tasks/get`,
    /// `tasks/update` and `tasks/cancel` of such an id reach the server that made the task,
    /// with the id its own store knows, and a listen here is sent that task's status; this
    /// server's own tasks keep their ids. An id none of them made (another prefix, a mounted
    /// server's id without its prefix, a forged one) is refused exactly as a task that does not
    /// exist. Give each server its own task store (or its own Redis key prefix): a store shared
    /// by two of them would find a mounted server's task under its bare id too.
    ///
    /// [`build`](Self::build) refuses a prefix that is not a letter followed by letters, digits
    /// or `-`, two servers under one prefix, a mounted server named like its parent or a
    /// sibling, and any two tools, prompts, resources, templates or extension methods that
    /// would read alike, but for the tasks extension's methods, which several of them may
    /// serve: the task id says whose each request is.
    ///
    /// ```
    /// use mcp::McpServer;
    ///
    /// /// Adds a note.
    /// #[mcp::tool]
    /// async fn add(text: String) -> String {
    ///     format!("noted: {text}")
    /// }
    ///
    /// /// Adds two numbers.
    /// #[mcp::tool(name = "add")]
    /// async fn sum(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// /// Builds the weekly report, as a task when the caller takes one.
    /// #[mcp::tool(task = "optional")]
    /// async fn report() -> &'static str {
    ///     "report ready"
    /// }
    ///
    /// // Both run tasks, each in its own store: the gateway names `calc`'s `calc:…`.
    /// let gateway = McpServer::new("gateway")
    ///     .mount("notes", McpServer::new("notes").tools(mcp::tools![add, report]))
    ///     .mount("calc", McpServer::new("calc").tools(mcp::tools![sum, report]))
    ///     .build()?;
    /// assert!(gateway.capabilities().tools.is_some());
    /// let extensions = gateway.capabilities().extensions.unwrap_or_default();
    /// assert!(extensions.contains_key("io.modelcontextprotocol/tasks"));
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn mount(mut self, prefix: impl Into<String>, server: McpServer) -> Self {
        self.mounts.push((prefix.into(), server));
        self
    }

    /// Runs tools that allow it (`#[mcp::tool(task = "optional" | "required")]`) as tasks of
    /// the tasks extension, kept in `tasks`'s store (see [`Tasks`]). Without this, a server
    /// with such a tool at build keeps its tasks in memory with the default settings
    /// ([`Tasks::default`]); a server without one serves no tasks, and a task-required tool
    /// added at run time answers `-32021`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp::server::McpServer;
    /// use mcp::tasks::{MemoryTaskStore, Tasks};
    ///
    /// let tasks = Tasks::new(MemoryTaskStore::new()).poll_interval(Duration::from_millis(250));
    /// let server = McpServer::new("builds").tasks(tasks).build()?;
    /// let advertised = server.capabilities().extensions.unwrap_or_default();
    /// assert!(advertised.contains_key("io.modelcontextprotocol/tasks"));
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn tasks(mut self, tasks: Tasks) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// Adds `extension`: advertised by `server/discover` and served beside the tools, prompts
    /// and resources (see [`ServerBuilder::extension`] and [`Extension`]).
    ///
    /// ```
    /// use mcp::protocol::McpError;
    /// use mcp::server::{Context, Extension, McpServer};
    ///
    /// let server = McpServer::new("echo")
    ///     .extension(Extension::new("com.example/echo").method(
    ///         "echo/say",
    ///         |_ctx: Context, params: serde_json::Value| async move { Ok::<_, McpError>(params) },
    ///     ))
    ///     .build()?;
    /// assert!(server.capabilities().extensions.is_some());
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn extension(mut self, extension: Extension) -> Self {
        self.builder = self.builder.extension(extension);
        self
    }

    /// Wraps every MCP request in `layer`, an ordinary `tower` layer (see
    /// [`ServerBuilder::layer`], which this is).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp::server::McpServer;
    /// use tower::limit::ConcurrencyLimitLayer;
    /// use tower::timeout::TimeoutLayer;
    ///
    /// let server = McpServer::new("guarded")
    ///     .layer(TimeoutLayer::new(Duration::from_secs(60)))
    ///     .layer(ConcurrencyLimitLayer::new(32))
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
        self.builder = self.builder.layer(layer);
        self
    }

    /// Shares `value` with every handler that takes an `mcp::State<T>` parameter (one value
    /// per type).
    ///
    /// A handler reads it as `inventory: mcp::State<Inventory>` (see the `mcp` facade), or
    /// with `ctx.state::<Inventory>()`.
    ///
    /// ```
    /// use mcp::server::McpServer;
    ///
    /// struct Inventory {
    ///     items: Vec<String>,
    /// }
    ///
    /// let server = McpServer::new("shop")
    ///     .state(Inventory { items: vec!["apple".into()] })
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.builder = self.builder.state(value);
        self
    }

    /// The bus the server's changes travel on (see [`ServerBuilder::notification_bus`]).
    pub fn notification_bus(mut self, bus: impl NotificationBus) -> Self {
        self.builder = self.builder.notification_bus(bus);
        self
    }

    /// Results say `endpoint` answered them: a mounted server's, as its parent's.
    pub(crate) fn answering_as(mut self, endpoint: Arc<Implementation>) -> Self {
        self.builder.answering_as = Some(endpoint);
        self
    }

    /// Answers `completion/complete` (and declares the `completions` capability) for every
    /// prompt argument and template variable that has no completion function of its own
    /// (`#[mcp(complete = f)]` on the parameter, which is asked first).
    ///
    /// This is the same handler the low-level [`ServerBuilder::on_complete`] takes. Without it,
    /// an argument without a function of its own gets no suggestions.
    ///
    /// ```
    /// use mcp::protocol::CompleteResult;
    /// use mcp::server::McpServer;
    ///
    /// let server = McpServer::new("completer")
    ///     .on_complete(|_ctx, _params| async { Ok(CompleteResult::values(vec!["eu-west-1".into()])) })
    ///     .build()?;
    /// assert!(server.capabilities().completions.is_some());
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn on_complete<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Context, CompleteParams) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<CompleteResult, McpError>> + Send + 'static,
    {
        self.builder = self.builder.on_complete(f);
        self
    }

    /// How `requestState` is sealed (default: a random per-process key). The policy is checked
    /// by [`build`](Self::build).
    pub fn request_state_security(mut self, security: RequestStateSecurity) -> Self {
        self.builder = self.builder.request_state_security(security);
        self
    }

    /// Items per page of `tools/list`, `prompts/list` and the resource lists (default 100).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.builder = self.builder.page_size(page_size);
        self
    }

    /// Cache hints (`ttlMs`, `cacheScope`, on 2026-07-28) for every cacheable answer that
    /// sets none itself: the lists, `resources/read` and `server/discover` (default: 0 ms,
    /// private, i.e. always fetch again).
    ///
    /// The lists' own hints override it ([`tools_cache_hint`](Self::tools_cache_hint) and
    /// friends), as does a resource's `cache(…)` key on `#[mcp::resource]`, and a read's own
    /// answer ([`ReadResourceResult::with_cache_hint`](crate::protocol::ReadResourceResult::with_cache_hint))
    /// overrides both. A `public` hint lets shared caches serve the answer to other callers:
    /// keep `private` for anything that depends on who asks.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp::protocol::CacheHint;
    /// use mcp::server::McpServer;
    ///
    /// let server = McpServer::new("catalog")
    ///     .cache_hint(CacheHint::private(Duration::from_secs(5)))
    ///     .tools_cache_hint(CacheHint::public(Duration::from_secs(3600)))
    ///     .discover_cache_hint(CacheHint::public(Duration::from_secs(86_400)))
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn cache_hint(mut self, hint: CacheHint) -> Self {
        self.builder = self.builder.cache_hint(hint);
        self
    }

    /// Cache hints for every page of `tools/list` (default: [`cache_hint`](Self::cache_hint)).
    pub fn tools_cache_hint(mut self, hint: CacheHint) -> Self {
        self.builder = self.builder.tools_cache_hint(hint);
        self
    }

    /// Cache hints for every page of `prompts/list` (default: [`cache_hint`](Self::cache_hint)).
    pub fn prompts_cache_hint(mut self, hint: CacheHint) -> Self {
        self.builder = self.builder.prompts_cache_hint(hint);
        self
    }

    /// Cache hints for every page of `resources/list` and `resources/templates/list`
    /// (default: [`cache_hint`](Self::cache_hint)). A read's hint is the resource's own
    /// (`cache(…)` on `#[mcp::resource]`).
    pub fn resources_cache_hint(mut self, hint: CacheHint) -> Self {
        self.builder = self.builder.resources_cache_hint(hint);
        self
    }

    /// Cache hints for `server/discover` (default: [`cache_hint`](Self::cache_hint)): what it
    /// says changes only with a deployment, so a long public hint is usually right.
    pub fn discover_cache_hint(mut self, hint: CacheHint) -> Self {
        self.builder = self.builder.discover_cache_hint(hint);
        self
    }

    /// The longest message accepted on any transport (default 4 MiB); longer ones are answered
    /// with -32600 (over HTTP, 413).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.builder = self.builder.max_message_size(bytes);
        self
    }

    /// How many requests of one stdio (or in-memory) connection run at once (default 64). At
    /// the bound the server stops reading stdin until one is answered, so a client that
    /// writes without reading slows down instead of growing the server.
    pub fn max_requests_in_flight(mut self, requests: usize) -> Self {
        self.builder = self.builder.max_requests_in_flight(requests);
        self
    }

    /// Whether to advertise the (deprecated) logging capability (default on).
    pub fn logging(mut self, enabled: bool) -> Self {
        self.builder = self.builder.logging(enabled);
        self
    }

    /// The level `ctx.log` sends at in a 2025-11-25 session before the client chooses one with
    /// `logging/setLevel` (default [`DEFAULT_LOG_LEVEL`](crate::server::DEFAULT_LOG_LEVEL),
    /// `info`; `None`: nothing until the client asks). A 2026-07-28 request is logged to only
    /// when it carries a `logLevel` of its own. See
    /// [`ServerBuilder::default_log_level`](crate::server::ServerBuilder::default_log_level).
    ///
    /// ```
    /// use mcp::McpServer;
    /// use mcp::protocol::LoggingLevel;
    ///
    /// let server = McpServer::new("quiet").default_log_level(Some(LoggingLevel::Warning));
    /// # let _ = server;
    /// ```
    pub fn default_log_level(mut self, level: Option<LoggingLevel>) -> Self {
        self.builder = self.builder.default_log_level(level);
        self
    }

    /// Runs `hook` each time a 2025-11-25 client says its roots changed
    /// (`notifications/roots/list_changed`), with a [`Context`] of the session. See
    /// [`ServerBuilder::on_roots_list_changed`](crate::server::ServerBuilder::on_roots_list_changed).
    ///
    /// ```
    /// use mcp::McpServer;
    ///
    /// let server = McpServer::new("files").on_roots_list_changed(|ctx| async move {
    ///     tracing::info!(client = ?ctx.client_info(), "the client's roots changed");
    /// });
    /// # let _ = server;
    /// ```
    pub fn on_roots_list_changed<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.builder = self.builder.on_roots_list_changed(hook);
        self
    }

    /// Requires OAuth 2.1 bearer tokens on [`serve_http`](Self::serve_http): the endpoint
    /// becomes a resource server (see [`ResourceServer`](crate::auth::ResourceServer)).
    /// Handlers read the caller with `Context::identity`, and sealed `requestState` is bound to
    /// it. Stdio and in-memory serving ignore it: a local process takes its credentials from
    /// its environment, as the MCP spec says. The built server carries it to
    /// `HttpTransport` too (see `HttpTransport::auth`).
    ///
    /// With JWT access tokens (feature `jwt`) this is
    /// `.auth(ResourceServer::jwt(resource_url, issuer, JwtKey::hmac(secret)?)?)`; any other
    /// kind of token takes a [`TokenVerifier`](crate::auth::TokenVerifier):
    ///
    /// ```no_run
    /// use mcp::auth::{AuthError, Identity, ResourceServer, verify_fn};
    /// use mcp::server::McpServer;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let introspect = verify_fn(|token: String| async move {
    ///     // Ask the authorization server about `token` (RFC 7662)…
    ///     Err::<Identity, _>(AuthError::invalid(format!("unknown token of {} bytes", token.len())))
    /// });
    /// McpServer::new("billing")
    ///     .auth(ResourceServer::new("https://mcp.example.com/mcp", "https://auth.example.com", introspect)?)
    ///     .serve_http("0.0.0.0:8000")
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "http")]
    pub fn auth(mut self, auth: crate::auth::ResourceServer) -> Self {
        self.builder.http.auth = Some(auth);
        self
    }

    /// Serves the [Prometheus scrape](crate::telemetry::Prometheus) with
    /// [`serve_http`](Self::serve_http), at `path` (`/metrics`, say) of the same listener (see
    /// `HttpTransport::metrics_route`). No such route unless set.
    ///
    /// ```no_run
    /// use mcp::telemetry::{Prometheus, Telemetry};
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let scrape = Prometheus::new();
    /// let _telemetry = Telemetry::builder("notes").without_otlp().prometheus(&scrape).install()?;
    /// mcp::McpServer::new("notes").metrics_route("/metrics", scrape).serve_http("127.0.0.1:8000").await?;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "otel")]
    pub fn metrics_route(
        mut self,
        path: impl Into<String>,
        scrape: crate::telemetry::Prometheus,
    ) -> Self {
        self.builder.http.metrics = Some((path.into(), scrape));
        self
    }

    /// The HTTP endpoint's path (default `/mcp`).
    #[cfg(feature = "http")]
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.builder.http.path = path.into();
        self
    }

    /// The largest HTTP request body accepted; larger ones get 413 (default: the
    /// [`max_message_size`](Self::max_message_size)).
    #[cfg(feature = "http")]
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.builder.http.body_limit = Some(bytes);
        self
    }

    /// Accepts these HTTP `Host` values besides loopback ones (`name` or `name:port`).
    ///
    /// ```
    /// let server = mcp::server::McpServer::new("provisioner")
    ///     .allowed_hosts(["mcp.example.com"])
    ///     .allowed_origins(["https://app.example.com"]);
    /// # let _ = server;
    /// ```
    #[cfg(feature = "http")]
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let hosts = hosts.into_iter().map(Into::into);
        self.builder.http.allowed_hosts.extend(hosts);
        self
    }

    /// Accepts these HTTP `Origin` values besides loopback ones (`scheme://host[:port]`).
    #[cfg(feature = "http")]
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let origins = origins.into_iter().map(Into::into);
        self.builder.http.allowed_origins.extend(origins);
        self
    }

    /// Turns the HTTP `Host`/`Origin` checks off. Only for servers behind a proxy that does
    /// them.
    #[cfg(feature = "http")]
    pub fn disable_dns_rebinding_protection(mut self) -> Self {
        self.builder.http.dns_rebinding_protection = false;
        self
    }

    /// How many 2025-11-25 HTTP sessions may be open at once (default 1024). Opening one more
    /// evicts the longest idle session that is not in use; a session with a request running or
    /// its GET stream open is never evicted, and when every session is in use, `initialize` is
    /// refused with `503` and `Retry-After`.
    #[cfg(feature = "http")]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.builder.http.max_sessions = sessions;
        self
    }

    /// How many 2025-11-25 HTTP sessions one authenticated caller (see [`auth`](Self::auth))
    /// may hold at once (default 64), so that no caller can fill the table alone. One more
    /// evicts that caller's own longest idle session that is not in use, else it is refused
    /// with `503`. Without `auth` every caller is anonymous and only
    /// [`max_sessions`](Self::max_sessions) applies.
    ///
    /// ```
    /// let server = mcp::server::McpServer::new("provisioner")
    ///     .max_sessions(4096)
    ///     .max_sessions_per_owner(16);
    /// # let _ = server;
    /// ```
    #[cfg(feature = "http")]
    pub fn max_sessions_per_owner(mut self, sessions: usize) -> Self {
        self.builder.http.max_sessions_per_owner = sessions;
        self
    }

    /// How long a 2025-11-25 HTTP session may sit idle before it expires (default 30 min).
    #[cfg(feature = "http")]
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.builder.http.session_idle_timeout = timeout;
        self
    }

    /// How long [`serve_http`](Self::serve_http) lets in-flight requests finish after Ctrl-C or
    /// SIGTERM before it returns anyway (default 30 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// let server = mcp::server::McpServer::new("provisioner")
    ///     .grace_period(Duration::from_secs(10));
    /// # let _ = server;
    /// ```
    #[cfg(feature = "http")]
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.builder.http.grace_period = Some(grace);
        self
    }

    /// How long, after the signal, [`serve_http`](Self::serve_http) leaves idle keep-alive
    /// connections for their peer to close (default zero). Behind a load balancer that pools
    /// connections, set it longer than the balancer's upstream idle timeout, so a POST is never
    /// sent on a connection the server is closing (see `HttpTransport::drain`).
    ///
    /// ```
    /// use std::time::Duration;
    /// let server = mcp::server::McpServer::new("provisioner")
    ///     .drain(Duration::from_secs(3));
    /// # let _ = server;
    /// ```
    #[cfg(feature = "http")]
    pub fn drain(mut self, drain: Duration) -> Self {
        self.builder.http.drain = drain;
        self
    }

    /// How long a client has to send a request's headers, counted from the connection's
    /// start for its first request and from the first byte of each later one (default 10 s).
    /// A connection that has not sent them in time is closed, so a client trickling its
    /// headers (slowloris) holds a connection no longer than this, and a half-sent request
    /// delays shutdown no longer either.
    ///
    /// ```
    /// use std::time::Duration;
    /// let server = mcp::server::McpServer::new("provisioner")
    ///     .header_read_timeout(Duration::from_secs(5))
    ///     .body_read_timeout(Duration::from_secs(20))
    ///     .keep_alive_timeout(Duration::from_secs(120));
    /// # let _ = server;
    /// ```
    #[cfg(feature = "http")]
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.builder.http.header_read_timeout = timeout;
        self
    }

    /// How long a client has to send a request's whole body once its headers are in
    /// (default 30 s); a body still incomplete then is answered `408` and the connection
    /// closed.
    #[cfg(feature = "http")]
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.builder.http.body_read_timeout = timeout;
        self
    }

    /// How long a keep-alive connection may sit idle between requests before the server
    /// closes it (default 90 s). Behind a load balancer that pools connections, keep it longer
    /// than the balancer's own idle timeout, so the balancer closes first and never sends a
    /// request on a connection the server is closing.
    #[cfg(feature = "http")]
    pub fn keep_alive_timeout(mut self, timeout: Duration) -> Self {
        self.builder.http.keep_alive_timeout = timeout;
        self
    }

    /// How long a client may leave the response bytes the server has for it untaken (default
    /// 30 s): when the connection's buffers stay full that long, the connection is closed, and
    /// the request it carried with it, so a client that stops reading holds nothing for longer.
    #[cfg(feature = "http")]
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.builder.http.write_timeout = timeout;
        self
    }

    /// How many connections may be open at once (default 4096). A connection beyond it makes
    /// room by closing the connection idle the longest (no request in progress), so a new
    /// client is served even while others hold idle connections; only when every connection
    /// has a request in progress is the new one closed at once. The same happens when the
    /// process runs out of file descriptors first (`ulimit -n`).
    ///
    /// ```
    /// let server = mcp::server::McpServer::new("provisioner")
    ///     .max_connections(10_000)
    ///     .max_concurrent_requests(2048)
    ///     .body_budget(256 << 20);
    /// # let _ = server;
    /// ```
    #[cfg(feature = "http")]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.builder.http.max_connections = connections;
        self
    }

    /// How many JSON-RPC requests may be handled at once, over all connections (default
    /// 1024); one more is refused with `503` and `Retry-After` rather than queued. A request
    /// counts from when its body has been read until its response ends (an SSE response when
    /// its stream ends). Notifications, the client's answers to server requests and the GET
    /// streams of sessions do not count. Each connection carries one request at a time
    /// (HTTP/1.1).
    #[cfg(feature = "http")]
    pub fn max_concurrent_requests(mut self, requests: usize) -> Self {
        self.builder.http.max_concurrent_requests = requests;
        self
    }

    /// How many bytes of request bodies may be held at once, over all requests, from the
    /// first byte read until the message is parsed (default 64 MiB, and never less than the
    /// [`body_limit`](Self::body_limit)). A body that would go over it is refused with `503`
    /// and `Retry-After`, so a crowd of large uploads cannot take the memory of the process.
    #[cfg(feature = "http")]
    pub fn body_budget(mut self, bytes: usize) -> Self {
        self.builder.http.body_budget = bytes;
        self
    }

    /// Checks the registrations and every setting, and assembles the low-level [`Server`]
    /// (which carries the HTTP settings to the HTTP transport).
    pub fn build(self) -> Result<Server, BuildError> {
        let Self {
            mut builder,
            tools,
            prompts,
            resources,
            tasks,
            mounts,
            built,
        } = self;
        check(&tools, &prompts, &resources, &builder.app_state)?;
        let wants_tasks = tools.iter().any(|t| t.task != TaskSupport::Forbidden);
        let tasks = match tasks {
            Some(tasks) => Some(tasks),
            None => wants_tasks.then(Tasks::default),
        }
        .map(TaskRuntime::new);
        if let Some(runtime) = &tasks {
            builder = builder.extension(runtime.extension());
        }
        let completes_itself = builder.handlers.complete.is_some();
        let live = Arc::new(LiveTables::new(
            Tables::new(tools, prompts, resources, Versions::default()),
            completes_itself,
        ));
        builder = install(builder, &live, tasks);
        let mounts = mount::build(&builder, mounts)?;
        builder = mount::install(builder, &live, mounts);
        builder.live = Some(live);
        let server = builder.build()?;
        mount::check_clashes(&server)?;
        for hook in built.0 {
            hook(&server);
        }
        Ok(server)
    }
}
