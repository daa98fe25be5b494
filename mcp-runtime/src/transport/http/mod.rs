//! Streamable HTTP on axum: one endpoint that serves the stateless 2026-07-28 wire and
//! 2025-11-25 sessions side by side.
//!
//! Each POST is routed by what it carries: a `_meta` protocol version means the stateless wire;
//! `initialize` or an `Mcp-Session-Id` header means a session. Loopback-only `Host`/`Origin`
//! checks and a body limit are on by default.
//!
//! ```no_run
//! use mcp_runtime::protocol::Implementation;
//! use mcp_runtime::server::Server;
//! use mcp_runtime::transport::http::HttpTransport;
//!
//! # async fn run() -> std::io::Result<()> {
//! let server = Server::builder(Implementation::new("demo", "1.0.0")).build();
//! // Mount it into an application's own router…
//! let app = axum::Router::new().merge(HttpTransport::new(server.clone()).into_router());
//! # let _ = app;
//! // …or run it on its own until Ctrl-C.
//! mcp_runtime::transport::http::serve_http(server, "127.0.0.1:8000").await
//! # }
//! ```

mod bearer;
mod drain;
mod headers;
mod legacy_session;
mod modern;
mod respond;
mod security;
mod sse;
mod tool_headers;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio_util::sync::CancellationToken;

use crate::auth::{Identity, ResourceServer};
use crate::protocol::{Incoming, McpError, error_line};
use crate::server::Server;

/// The axum this transport is built on, for mounting its router without a version clash.
pub use axum;

use bearer::BearerGuard;
use legacy_session::SessionTable;
use respond::StatusRules;
use security::HostPolicy;
use tool_headers::ToolHeaders;

/// The default endpoint path.
pub const DEFAULT_PATH: &str = "/mcp";
/// The default number of concurrent 2025-11-25 sessions.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;
/// The default idle time after which a 2025-11-25 session expires.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// A [`Server`] behind Streamable HTTP, ready to become an axum [`Router`].
///
/// ```
/// use mcp_runtime::protocol::Implementation;
/// use mcp_runtime::server::Server;
/// use mcp_runtime::transport::http::HttpTransport;
///
/// let server = Server::builder(Implementation::new("demo", "1.0.0")).build();
/// let router: axum::Router = HttpTransport::new(server)
///     .path("/api/mcp")
///     .allowed_hosts(["mcp.example.com"])
///     .allowed_origins(["https://app.example.com"])
///     .body_limit(1 << 20)
///     .into_router();
/// # let _ = router;
/// ```
#[derive(Debug)]
pub struct HttpTransport {
    server: Server,
    path: String,
    body_limit: usize,
    hosts: HostPolicy,
    max_sessions: usize,
    session_idle_timeout: Duration,
    streams_closing: CancellationToken,
    grace_period: Option<Duration>,
    drain: Duration,
    auth: Option<ResourceServer>,
}

/// How long [`serve_http`] lets in-flight requests finish after a shutdown signal.
pub const DEFAULT_GRACE_PERIOD: Duration = Duration::from_secs(30);

impl HttpTransport {
    /// Serves `server` at [`DEFAULT_PATH`] with the default limits. The body limit starts at
    /// the server's [`max_message_size`](Server::max_message_size) (4 MiB unless set), so one
    /// knob bounds a message on every transport.
    pub fn new(server: Server) -> Self {
        Self {
            body_limit: server.max_message_size(),
            server,
            path: DEFAULT_PATH.to_owned(),
            hosts: HostPolicy::default(),
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            streams_closing: CancellationToken::new(),
            grace_period: None,
            drain: Duration::ZERO,
            auth: None,
        }
    }

    /// Makes the endpoint an OAuth 2.1 resource server: every request needs a bearer token
    /// that `auth` accepts, handlers see the verified caller in their context, sealed
    /// `requestState` is bound to that caller (under the server's sealing policy, which
    /// `McpServer` turns on by default), and the RFC 9728 metadata is served (without a
    /// token) at `/.well-known/oauth-protected-resource` and at the same path followed by the
    /// resource's path. The resource URL's host and origin join the allowed ones.
    ///
    /// A 2025-11-25 session belongs to the caller that opened it: a request with another
    /// caller's token gets `404`, as if the session did not exist.
    ///
    /// ```
    /// use mcp_runtime::auth::{AuthError, Identity, ResourceServer, verify_fn};
    /// use mcp_runtime::protocol::Implementation;
    /// use mcp_runtime::server::Server;
    /// use mcp_runtime::transport::http::HttpTransport;
    ///
    /// let verifier = verify_fn(|_token: String| async {
    ///     Err::<Identity, _>(AuthError::invalid("this example accepts nobody"))
    /// });
    /// let auth = ResourceServer::new("https://mcp.example.com/mcp", "https://auth.example.com", verifier)?;
    /// let server = Server::builder(Implementation::new("demo", "1.0.0")).build();
    /// let router: axum::Router = HttpTransport::new(server).auth(auth).into_router();
    /// # let _ = router;
    /// # Ok::<(), mcp_runtime::auth::InvalidResourceUrl>(())
    /// ```
    pub fn auth(mut self, auth: ResourceServer) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Bounds graceful shutdown: once the shutdown future completes, in-flight requests get this
    /// long to finish before [`serve`](Self::serve) returns anyway (default: no bound). The
    /// [`drain`](Self::drain) counts within it.
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.grace_period = Some(grace);
        self
    }

    /// How long, after the shutdown signal, idle keep-alive connections are left open for their
    /// peer to close (default zero: closed at once).
    ///
    /// On the signal the server stops accepting at once, and every response it still sends says
    /// `Connection: close`. A load balancer that pools connections to this server may be sending
    /// a POST on an idle one at the very moment the server closes it; that request is lost, and
    /// a balancer does not retry a POST it has sent. Behind one, set this longer than the
    /// balancer's idle timeout for upstream connections (nginx: `keepalive_timeout` in the
    /// `upstream` block), so the balancer closes them first. Shutdown moves on as soon as every
    /// connection is closed.
    pub fn drain(mut self, drain: Duration) -> Self {
        self.drain = drain;
        self
    }

    /// The endpoint path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// The largest request body accepted; larger ones get 413 (default: the server's
    /// `max_message_size`, 4 MiB unless set).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// Accepts these `Host` values besides loopback ones (`name` or `name:port`).
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.hosts.hosts.extend(hosts.into_iter().map(Into::into));
        self
    }

    /// Accepts these `Origin` values besides loopback ones (`scheme://host[:port]`).
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.hosts
            .origins
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// Turns the `Host`/`Origin` checks off. Only for servers behind a proxy that does them.
    pub fn disable_dns_rebinding_protection(mut self) -> Self {
        self.hosts.enabled = false;
        self
    }

    /// How many 2025-11-25 sessions may be open at once; opening one more evicts the longest
    /// idle (default 1024).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// How long a 2025-11-25 session may sit idle before it expires (default 30 min).
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Ends the long-lived GET streams of 2025-11-25 sessions when `token` is cancelled, and
    /// from then on marks every response `Connection: close`.
    ///
    /// A graceful shutdown waits for open responses, and a GET stream never finishes on its
    /// own, so an application that mounts [`into_router`](Self::into_router) into its own
    /// server cancels this token when it starts shutting down. [`serve`](Self::serve) does this
    /// itself.
    pub fn close_streams_on(mut self, token: CancellationToken) -> Self {
        self.streams_closing = token;
        self
    }

    /// The axum router serving the endpoint; merge or nest it into an application's own.
    pub fn into_router(self) -> Router {
        let shared = Arc::new(self.shared());
        // Our own 405s (rather than axum's) so they, too, say when the connection closes.
        let endpoint = post(on_post)
            .get(on_get)
            .delete(on_delete)
            .fallback(on_other_method);
        let mut router = Router::new().route(&self.path, endpoint);
        if let Some(bearer) = &shared.bearer {
            for path in bearer.metadata_paths() {
                router = router.route(&path, get(on_metadata).fallback(on_other_metadata_method));
            }
        }
        // No tower layers: each would box every request's service and future. The handlers
        // bound the body and mark responses during shutdown themselves.
        router.with_state(shared)
    }

    /// Serves on `listener` until `shutdown` completes, then stops accepting, lets idle
    /// connections [`drain`](Self::drain) and in-flight requests finish (within the
    /// [`grace_period`](Self::grace_period), if set).
    ///
    /// ```no_run
    /// # use mcp_runtime::{protocol::Implementation, server::Server, transport::http::HttpTransport};
    /// # async fn run() -> std::io::Result<()> {
    /// let server = Server::builder(Implementation::new("demo", "1.0.0")).build();
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let stop = tokio_util::sync::CancellationToken::new();
    /// HttpTransport::new(server)
    ///     .serve(listener, stop.clone().cancelled_owned())
    ///     .await
    /// # }
    /// ```
    pub async fn serve<F>(self, listener: TcpListener, shutdown: F) -> std::io::Result<()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let closing = self.streams_closing.clone();
        let (grace, drain) = (self.grace_period, self.drain);
        // Its own token: an application cancelling `close_streams_on` only ends streams.
        let stop = CancellationToken::new();
        let listener = drain::DrainingListener::new(listener, stop.clone());
        let open = listener.open_connections();
        // axum's own graceful shutdown closes idle connections, so it starts after the drain.
        let drained = {
            let stop = stop.clone();
            async move {
                shutdown.await;
                closing.cancel();
                stop.cancel();
                let _ = tokio::time::timeout(drain, open.all_closed()).await;
            }
        };
        // The whole router is ours here, so unknown paths get a 404 that also says when the
        // connection closes. (`into_router` leaves the fallback to the application it merges
        // into: axum refuses to merge two routers that both have one.)
        let not_found = {
            let closing = self.streams_closing.clone();
            move || {
                let response = respond::empty(StatusCode::NOT_FOUND);
                std::future::ready(drain::close_when_stopping(&closing, response))
            }
        };
        let router = self.into_router().fallback(not_found);
        let serving = axum::serve(listener, router).with_graceful_shutdown(drained);
        let Some(grace) = grace else {
            return serving.await;
        };
        let deadline = async move {
            stop.cancelled().await;
            tokio::time::sleep(grace).await;
        };
        tokio::select! {
            result = serving => result,
            () = deadline => {
                tracing::warn!(?grace, "the grace period ended with requests still in flight");
                Ok(())
            }
        }
    }

    /// Binds `addr` and [serves](Self::serve) until Ctrl-C or SIGTERM, with the grace period
    /// set or else [`DEFAULT_GRACE_PERIOD`].
    ///
    /// ```no_run
    /// # use mcp_runtime::{protocol::Implementation, server::Server, transport::http::HttpTransport};
    /// # use std::time::Duration;
    /// # async fn run() -> std::io::Result<()> {
    /// let server = Server::builder(Implementation::new("demo", "1.0.0")).build();
    /// HttpTransport::new(server)
    ///     .grace_period(Duration::from_secs(10))
    ///     .drain(Duration::from_secs(3))
    ///     .serve_until_signal("127.0.0.1:8000")
    ///     .await
    /// # }
    /// ```
    pub async fn serve_until_signal(mut self, addr: impl ToSocketAddrs) -> std::io::Result<()> {
        // Installed before listening: a supervisor may signal as soon as the port is open.
        let signal = shutdown_signal();
        let listener = TcpListener::bind(addr).await?;
        self.grace_period.get_or_insert(DEFAULT_GRACE_PERIOD);
        self.serve(listener, signal).await
    }

    fn shared(&self) -> Shared {
        let bearer = self.auth.clone().map(BearerGuard::new);
        let mut hosts = self.hosts.clone();
        if let Some(bearer) = &bearer {
            let (host, origin) = bearer.own_host_and_origin();
            hosts.hosts.push(host.to_owned());
            hosts.origins.push(origin.to_owned());
        }
        Shared {
            server: self.server.clone(),
            hosts,
            bearer,
            sessions: SessionTable::new(self.max_sessions, self.session_idle_timeout),
            tool_headers: ToolHeaders::default(),
            streams_closing: self.streams_closing.clone(),
            body_limit: self.body_limit,
        }
    }
}

/// Serves `server` at `http://addr/mcp` with the defaults until Ctrl-C or SIGTERM, then lets
/// in-flight requests finish (for up to [`DEFAULT_GRACE_PERIOD`]).
///
/// ```no_run
/// # use mcp_runtime::{protocol::Implementation, server::Server};
/// # async fn run() -> std::io::Result<()> {
/// let server = Server::builder(Implementation::new("demo", "1.0.0")).build();
/// mcp_runtime::transport::http::serve_http(server, "127.0.0.1:8000").await
/// # }
/// ```
pub async fn serve_http(server: Server, addr: impl ToSocketAddrs) -> std::io::Result<()> {
    HttpTransport::new(server).serve_until_signal(addr).await
}

/// Completes on Ctrl-C (SIGINT) or, on Unix, SIGTERM: what process supervisors send. The
/// handlers are installed when this is called, not when the future is first polled, so a signal
/// that arrives while the server is still starting is not lost (nor fatal).
#[cfg(unix)]
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{Signal, SignalKind, signal};
    let install = |kind: SignalKind, name: &'static str| {
        signal(kind)
            .inspect_err(|e| tracing::error!(error = %e, "cannot listen for {name}"))
            .ok()
    };
    let terminate = install(SignalKind::terminate(), "SIGTERM");
    let interrupt = install(SignalKind::interrupt(), "SIGINT");
    async move {
        let wait = |signal: Option<Signal>| async move {
            match signal {
                Some(mut signal) => {
                    signal.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = wait(interrupt) => {}
            () = wait(terminate) => {}
        }
    }
}

/// Completes on Ctrl-C.
#[cfg(not(unix))]
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    }
}

/// What every request handler shares.
#[derive(Debug)]
struct Shared {
    server: Server,
    hosts: HostPolicy,
    /// Present when the endpoint requires bearer tokens.
    bearer: Option<BearerGuard>,
    sessions: SessionTable,
    tool_headers: ToolHeaders,
    streams_closing: CancellationToken,
    body_limit: usize,
}

impl Shared {
    /// The verified caller (`None` when the endpoint takes no tokens), or the refusal.
    async fn authenticate(&self, headers: &HeaderMap) -> Result<Option<Arc<Identity>>, Response> {
        match &self.bearer {
            Some(bearer) => bearer.authenticate(headers).await.map(Some),
            None => Ok(None),
        }
    }

    async fn header_bindings(&self, tool: &str) -> tool_headers::Bindings {
        self.tool_headers.bindings(&self.server, tool).await
    }

    /// Every response leaves through here: once shutdown has begun it says the connection
    /// closes after it.
    fn finish(&self, response: Response) -> Response {
        drain::close_when_stopping(&self.streams_closing, response)
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.sessions.close_all();
    }
}

fn forbidden(headers: &HeaderMap, hosts: &HostPolicy) -> Option<Response> {
    let reason = hosts.check(headers).err()?;
    tracing::warn!(%reason, "rejected a request (DNS-rebinding protection)");
    let error = McpError::invalid_request("Forbidden: Host or Origin not allowed");
    Some(respond::json_with_status(
        error_line(None, &error),
        StatusCode::FORBIDDEN,
    ))
}

async fn on_post(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let response = post_response(&shared, &parts.headers, body).await;
    shared.finish(response)
}

async fn post_response(shared: &Shared, headers: &HeaderMap, body: Body) -> Response {
    let identity = match guard(shared, headers).await {
        Ok(identity) => identity,
        Err(refused) => return refused,
    };
    // A declared non-JSON body is refused; a missing Content-Type is tolerated because the
    // body is parsed as JSON either way and some minimal clients omit it.
    if let Some(content_type) = headers.get(header::CONTENT_TYPE) {
        let is_json = content_type
            .to_str()
            .ok()
            .and_then(|v| v.split(';').next())
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
        if !is_json {
            return respond::empty(StatusCode::UNSUPPORTED_MEDIA_TYPE);
        }
    }
    // The spec has clients list both types; one that lists only one is still served (in that
    // form), and only a client that takes neither cannot be answered at all.
    let sse_allowed = headers::accepts(headers, "text/event-stream");
    if !sse_allowed && !headers::accepts(headers, "application/json") {
        return respond::empty(StatusCode::NOT_ACCEPTABLE);
    }
    let body = match read_body(body, shared.body_limit).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        let error = McpError::parse_error("The body is not UTF-8");
        return respond::error(None, &error, StatusRules::Modern);
    };
    let message = match Incoming::parse(text) {
        Ok(message) => message,
        Err(rejected) => {
            return respond::error(rejected.id.as_ref(), &rejected.error, StatusRules::Modern);
        }
    };
    let classified = match modern::classify(shared, headers, &message).await {
        Ok(classified) => classified,
        Err(error) => {
            let id = match &message {
                Incoming::Request(r) => Some(&r.id),
                _ => None,
            };
            return respond::error(id, &error, StatusRules::Modern);
        }
    };
    // `_meta` wins over a session header: a 2026-07-28 client ignores sessions, and so do we
    // for its requests.
    if !classified.modern && legacy_session::wants_session(headers, &message) {
        legacy_session::handle_post(shared, headers, message, identity, sse_allowed).await
    } else {
        let job = modern::Envelope {
            identity,
            head: classified.head,
            sse_allowed,
        };
        modern::handle(shared, message, job).await
    }
}

/// The whole body, or the refusal: `413` past `limit` (told by `Content-Length` before
/// anything is read, when the client sends one), `400` when the client stops sending.
async fn read_body(body: Body, limit: usize) -> Result<Bytes, Response> {
    use http_body_util::{BodyExt, LengthLimitError, Limited};
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => {
            let error = McpError::invalid_request(format!(
                "The request body is larger than this endpoint's limit of {limit} bytes"
            ));
            Err(respond::json_with_status(
                error_line(None, &error),
                StatusCode::PAYLOAD_TOO_LARGE,
            ))
        }
        Err(error) => {
            tracing::debug!(%error, "a request body could not be read");
            Err(respond::empty(StatusCode::BAD_REQUEST))
        }
    }
}

/// Any other method on the endpoint.
async fn on_other_method(State(shared): State<Arc<Shared>>) -> Response {
    shared.finish(method_not_allowed("GET, HEAD, POST, DELETE"))
}

/// Any other method on a metadata document.
async fn on_other_metadata_method(State(shared): State<Arc<Shared>>) -> Response {
    shared.finish(method_not_allowed("GET, HEAD"))
}

fn method_not_allowed(allow: &'static str) -> Response {
    let mut response = respond::empty(StatusCode::METHOD_NOT_ALLOWED);
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

async fn on_get(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let response = match guard(&shared, &headers).await {
        Ok(identity) => legacy_session::handle_get(&shared, &headers, identity.as_deref()),
        Err(refused) => refused,
    };
    shared.finish(response)
}

async fn on_delete(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let response = match guard(&shared, &headers).await {
        Ok(identity) => legacy_session::handle_delete(&shared, &headers, identity.as_deref()),
        Err(refused) => refused,
    };
    shared.finish(response)
}

/// The `Host`/`Origin` rules, then the bearer token.
async fn guard(shared: &Shared, headers: &HeaderMap) -> Result<Option<Arc<Identity>>, Response> {
    if let Some(response) = forbidden(headers, &shared.hosts) {
        return Err(response);
    }
    shared.authenticate(headers).await
}

/// The RFC 9728 document; no token needed, but the `Host`/`Origin` rules hold as for the
/// endpoint itself.
async fn on_metadata(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let response = match (forbidden(&headers, &shared.hosts), &shared.bearer) {
        (Some(refused), _) => refused,
        (None, Some(bearer)) => bearer.metadata(),
        // Only routed when there is a guard; a 404 is still the honest answer without one.
        (None, None) => respond::empty(StatusCode::NOT_FOUND),
    };
    shared.finish(response)
}
