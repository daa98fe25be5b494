//! Streamable HTTP on axum: one endpoint that serves the stateless 2026-07-28 wire and
//! 2025-11-25 sessions side by side.
//!
//! Each POST is routed by what it carries: a `_meta` protocol version means the stateless wire;
//! `initialize` or an `Mcp-Session-Id` header means a session. Loopback-only `Host`/`Origin`
//! checks, a body limit, timeouts for slow clients and caps on connections, requests, body
//! bytes and sessions are on by default (each a setter on [`HttpTransport`]). A session's GET
//! stream is resumable: its events carry ids, and the latest [`REPLAY_BUFFER`] of them are
//! sent again to a client that reconnects with `Last-Event-ID`.
//!
//! The common case needs none of this module: `McpServer::serve_http(addr)` serves until
//! Ctrl-C. [`HttpTransport`] is for mounting the endpoint into an application's own axum
//! router, or for serving on a listener and shutdown signal of your choosing.
//!
//! ```no_run
//! use mcp::server::McpServer;
//! use mcp::transport::http::HttpTransport;
//!
//! # fn run() -> Result<(), mcp::server::BuildError> {
//! let server = McpServer::new("demo").allowed_hosts(["mcp.example.com"]).build()?;
//! let app = axum::Router::new().merge(HttpTransport::new(server).into_router());
//! # let _ = app;
//! # Ok(())
//! # }
//! ```

mod accept;
mod activity;
mod auth_guard;
mod body;
mod connections;
mod drain;
mod endpoint;
mod get_stream;
mod guarded_body;
pub(crate) mod headers;
mod host_policy;
mod outbox;
mod overload;
mod respond;
#[cfg(feature = "otel")]
mod scrape;
mod serve;
mod sessions;
mod sse;
mod stateless;
mod tcp_connection;
mod tool_headers;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};
use tokio_util::sync::CancellationToken;

use crate::auth::ResourceServer;
use crate::server::{HttpSettings, Server};
use endpoint::Endpoint;

pub use crate::server::http_settings::{
    DEFAULT_BODY_BUDGET, DEFAULT_BODY_READ_TIMEOUT, DEFAULT_GRACE_PERIOD,
    DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_KEEP_ALIVE_TIMEOUT, DEFAULT_MAX_CONCURRENT_REQUESTS,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_LISTENS, DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_OWNER, DEFAULT_PATH, DEFAULT_SESSION_IDLE_TIMEOUT,
    DEFAULT_WRITE_TIMEOUT,
};
/// The axum this transport is built on, for mounting its router without a version clash.
pub use axum;
pub use outbox::{REPLAY_BUFFER, REPLAY_BYTES};
pub use serve::shutdown_signal;

use auth_guard::AuthGuard;
use body::BodyRules;
use endpoint::{
    Shared, on_delete, on_get, on_metadata, on_other_metadata_method, on_other_method, on_post,
};
use host_policy::HostPolicy;
use overload::RequestSlots;
use sessions::SessionTable;
use tool_headers::ToolHeaders;

/// A [`Server`] behind Streamable HTTP, ready to become an axum [`Router`].
///
/// ```
/// use mcp::protocol::Implementation;
/// use mcp::server::Server;
/// use mcp::transport::http::HttpTransport;
///
/// let server = Server::builder(Implementation::new("demo", "1.0.0")).build()?;
/// let router: axum::Router = HttpTransport::new(server)
///     .path("/api/mcp")
///     .allowed_hosts(["mcp.example.com"])
///     .allowed_origins(["https://app.example.com"])
///     .body_limit(1 << 20)
///     .body_read_timeout(std::time::Duration::from_secs(10))
///     .max_concurrent_requests(256)
///     .into_router();
/// # let _ = router;
/// # Ok::<(), mcp::server::BuildError>(())
/// ```
#[derive(Debug)]
pub struct HttpTransport {
    server: Server,
    settings: HttpSettings,
    streams_closing: CancellationToken,
}

impl HttpTransport {
    /// Serves `server` with the HTTP settings it was built with (an
    /// [`McpServer`](crate::server::McpServer)'s `auth`, `allowed_hosts`, `grace_period`, …),
    /// else the defaults: [`DEFAULT_PATH`], loopback hosts only, and a body limit of the
    /// server's [`max_message_size`](Server::max_message_size) (4 MiB unless set), so one knob
    /// bounds a message on every transport. Each setter below overrides one of them.
    pub fn new(server: Server) -> Self {
        Self {
            settings: server.http_settings().clone(),
            server,
            streams_closing: CancellationToken::new(),
        }
    }

    /// Makes the endpoint an OAuth 2.1 resource server: every request needs an access token
    /// that `auth` accepts (a bearer token, or a DPoP-bound one with its proof when `auth`
    /// takes those), handlers see the verified caller in their context, sealed
    /// `requestState` is bound to that caller (under the server's sealing policy, which
    /// `McpServer` turns on by default), and the RFC 9728 metadata is served (without a
    /// token) at `/.well-known/oauth-protected-resource` and at the same path followed by the
    /// resource's path. The resource URL's host and origin join the allowed ones.
    ///
    /// A 2025-11-25 session belongs to the caller that opened it: a request with another
    /// caller's token gets `404`, as if the session did not exist.
    ///
    /// ```
    /// use mcp::auth::{AuthError, Identity, ResourceServer, verify_fn};
    /// use mcp::protocol::Implementation;
    /// use mcp::server::Server;
    /// use mcp::transport::http::HttpTransport;
    ///
    /// let verifier = verify_fn(|_token: String| async {
    ///     Err::<Identity, _>(AuthError::invalid("this example accepts nobody"))
    /// });
    /// let auth = ResourceServer::new("https://mcp.example.com/mcp", "https://auth.example.com", verifier)?;
    /// let server = Server::builder(Implementation::new("demo", "1.0.0")).build()?;
    /// let router: axum::Router = HttpTransport::new(server).auth(auth).into_router();
    /// # let _ = router;
    /// # Ok::<(), mcp::Error>(())
    /// ```
    pub fn auth(mut self, auth: ResourceServer) -> Self {
        self.settings.auth = Some(auth);
        self
    }

    /// Bounds graceful shutdown: once the shutdown future completes, in-flight requests get this
    /// long to finish before [`serve`](Self::serve) returns anyway (default: no bound). The
    /// [`drain`](Self::drain) counts within it.
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.settings.grace_period = Some(grace);
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
        self.settings.drain = drain;
        self
    }

    /// The endpoint path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.settings.path = path.into();
        self
    }

    /// The largest request body accepted; larger ones get 413 (default: the server's
    /// `max_message_size`, 4 MiB unless set).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.settings.body_limit = Some(bytes);
        self
    }

    /// Accepts these `Host` values besides loopback ones (`name` or `name:port`).
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let hosts = hosts.into_iter().map(Into::into);
        self.settings.allowed_hosts.extend(hosts);
        self
    }

    /// Accepts these `Origin` values besides loopback ones (`scheme://host[:port]`).
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let origins = origins.into_iter().map(Into::into);
        self.settings.allowed_origins.extend(origins);
        self
    }

    /// Turns the `Host`/`Origin` checks off. Only for servers behind a proxy that does them.
    pub fn disable_dns_rebinding_protection(mut self) -> Self {
        self.settings.dns_rebinding_protection = false;
        self
    }

    /// How many 2025-11-25 sessions may be open at once (default 1024). Opening one more
    /// evicts the longest idle session that is not in use (no request running, no GET stream
    /// open); when every session is in use, `initialize` gets `503` with `Retry-After`.
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.settings.max_sessions = sessions;
        self
    }

    /// How many 2025-11-25 sessions one authenticated caller may hold at once (default 64).
    /// One more evicts that caller's own longest idle session that is not in use, else it is
    /// refused with `503`. Without [`auth`](Self::auth) only [`max_sessions`](Self::max_sessions)
    /// applies.
    pub fn max_sessions_per_owner(mut self, sessions: usize) -> Self {
        self.settings.max_sessions_per_owner = sessions;
        self
    }

    /// How long a 2025-11-25 session may sit idle before it expires (default 30 min).
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.settings.session_idle_timeout = timeout;
        self
    }

    /// How long a client has to send a request's headers, counted from the connection's
    /// start for its first request and from the first byte of each later one (default
    /// [`DEFAULT_HEADER_READ_TIMEOUT`], 10 s); then the connection is closed. Applies to
    /// [`serve`](Self::serve); an application serving [`into_router`](Self::into_router)
    /// itself sets its own.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.settings.header_read_timeout = timeout;
        self
    }

    /// How long a client has to send a request's whole body once its headers are in (default
    /// [`DEFAULT_BODY_READ_TIMEOUT`], 30 s); a body still incomplete then is answered `408`.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.settings.body_read_timeout = timeout;
        self
    }

    /// How long a keep-alive connection may sit idle between requests before it is closed
    /// (default [`DEFAULT_KEEP_ALIVE_TIMEOUT`], 90 s). Behind a load balancer that pools
    /// connections, keep it longer than the balancer's idle timeout. Applies to
    /// [`serve`](Self::serve).
    pub fn keep_alive_timeout(mut self, timeout: Duration) -> Self {
        self.settings.keep_alive_timeout = timeout;
        self
    }

    /// How long a client may leave the response bytes the server has for it untaken (default
    /// [`DEFAULT_WRITE_TIMEOUT`], 30 s): when the connection's buffers stay full that long, the
    /// connection is closed, and the request it carried with it. A client that stops reading
    /// holds no connection and no request slot for longer. Applies to [`serve`](Self::serve).
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.settings.write_timeout = timeout;
        self
    }

    /// How many connections may be open at once (default [`DEFAULT_MAX_CONNECTIONS`], 4096).
    /// A connection beyond it, or one the process has no file descriptor for, makes room by
    /// closing the connection idle the longest; only when every connection has a request in
    /// progress is the new one closed at once. Applies to [`serve`](Self::serve).
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.settings.max_connections = connections;
        self
    }

    /// How many JSON-RPC requests may be handled at once, over all connections (default
    /// [`DEFAULT_MAX_CONCURRENT_REQUESTS`], 1024); one more gets `503` with `Retry-After`.
    /// A request counts from when its body has been read until its response ends;
    /// notifications, answers to the server's requests, session GET streams and
    /// `subscriptions/listen` streams (see [`max_listens`](Self::max_listens)) do not count.
    pub fn max_concurrent_requests(mut self, requests: usize) -> Self {
        self.settings.max_concurrent_requests = requests;
        self
    }

    /// How many 2026-07-28 `subscriptions/listen` streams may be open at once, over all
    /// connections (default [`DEFAULT_MAX_LISTENS`], 1024); one more gets `503` with
    /// `Retry-After`. A listen stays open for as long as the client listens, so listens have
    /// their own bound rather than taking places among the
    /// [`max_concurrent_requests`](Self::max_concurrent_requests), where enough of them would
    /// starve every request; each holds one connection and bounded queues.
    pub fn max_listens(mut self, listens: usize) -> Self {
        self.settings.max_listens = listens;
        self
    }

    /// How many bytes of request bodies may be held at once, over all requests, from the
    /// first byte read until the message is parsed (default [`DEFAULT_BODY_BUDGET`], 64 MiB,
    /// and never less than the [`body_limit`](Self::body_limit)); a body that would go over it
    /// gets `503` with `Retry-After`.
    pub fn body_budget(mut self, bytes: usize) -> Self {
        self.settings.body_budget = bytes;
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

    /// Serves the [Prometheus scrape](crate::telemetry::Prometheus) at `path` (`/metrics`,
    /// say) beside the endpoint, from [`serve`](Self::serve) and
    /// [`into_router`](Self::into_router) alike. No such route unless set.
    ///
    /// `path` is a route of its own: one that does not start with `/`, or is the endpoint's
    /// or a metadata document's path, is not served (an error is logged when the router is
    /// built).
    ///
    /// The route answers `GET` with the text exposition format 0.0.4 to anyone who reaches
    /// it: neither the endpoint's [`auth`](Self::auth) nor its `Host` checks apply (a
    /// Prometheus server scrapes by address, with no token). Metrics name tools and methods,
    /// not arguments; to keep them private, serve them on a listener of their own instead,
    /// from a handler that answers [`Prometheus::render`](crate::telemetry::Prometheus::render).
    ///
    /// ```
    /// use mcp::server::McpServer;
    /// use mcp::telemetry::Prometheus;
    /// use mcp::transport::http::HttpTransport;
    ///
    /// let scrape = Prometheus::new();
    /// // ... give `scrape` to `Telemetry::builder(..).prometheus(&scrape)` and install it ...
    /// let router: axum::Router = HttpTransport::new(McpServer::new("notes").build()?)
    ///     .metrics_route("/metrics", scrape)
    ///     .into_router();
    /// # let _ = router;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    #[cfg(feature = "otel")]
    pub fn metrics_route(
        mut self,
        path: impl Into<String>,
        scrape: crate::telemetry::Prometheus,
    ) -> Self {
        self.settings.metrics = Some((path.into(), scrape));
        self
    }

    /// The axum router serving the endpoint; merge or nest it into an application's own.
    pub fn into_router(self) -> Router {
        self.into_parts().0
    }

    /// The router, and the endpoint that [`serve`](Self::serve) calls without it for a POST to
    /// its path.
    fn into_parts(self) -> (Router, Endpoint) {
        let shared = Arc::new(self.shared());
        let path = &self.settings.path;
        let direct = Endpoint {
            shared: shared.clone(),
            // A path with captures or wildcards (`{…}`) is the router's to match.
            path: (!path.contains(['{', '}'])).then(|| path.as_str().into()),
        };
        // Our own 405s (rather than axum's) so they, too, say when the connection closes.
        let endpoint = post(on_post)
            .get(on_get)
            .delete(on_delete)
            .fallback(on_other_method);
        let mut router = Router::new().route(&self.settings.path, endpoint);
        if let Some(auth) = &shared.auth {
            for path in auth.metadata_paths() {
                router = router.route(&path, get(on_metadata).fallback(on_other_metadata_method));
            }
        }
        #[cfg(feature = "otel")]
        if let Some((path, scrape)) = &self.settings.metrics {
            let taken = *path == self.settings.path
                || shared
                    .auth
                    .as_ref()
                    .is_some_and(|auth| auth.metadata_paths().contains(path));
            if !path.starts_with('/') || taken {
                // axum would panic on it; the endpoint itself still serves.
                tracing::error!(
                    path = %path,
                    "the metrics route is not served: its path must start with `/` and be \
                     neither the MCP endpoint's nor a metadata document's"
                );
            } else {
                router = router.route(path, scrape::scrape_route(scrape.clone()));
            }
        }
        // No tower layers: each would box every request's service and future. The handlers
        // bound the body and mark responses during shutdown themselves.
        (router.with_state(shared), direct)
    }

    fn shared(&self) -> Shared {
        let settings = &self.settings;
        let auth = settings.auth.clone().map(AuthGuard::new);
        let mut hosts = HostPolicy {
            enabled: settings.dns_rebinding_protection,
            hosts: settings.allowed_hosts.clone(),
            origins: settings.allowed_origins.clone(),
        };
        if let Some(auth) = &auth {
            let (host, origin) = auth.own_host_and_origin();
            hosts.hosts.push(host.to_owned());
            hosts.origins.push(origin.to_owned());
        }
        Shared {
            server: self.server.clone(),
            hosts,
            auth,
            sessions: SessionTable::new(
                settings.max_sessions,
                settings.max_sessions_per_owner,
                settings.session_idle_timeout,
            ),
            tool_headers: ToolHeaders::default(),
            streams_closing: Arc::new(self.streams_closing.clone()),
            bodies: BodyRules::new(
                settings
                    .body_limit
                    .unwrap_or_else(|| self.server.max_message_size()),
                settings.body_read_timeout,
                settings.body_budget,
            ),
            requests: RequestSlots::new(settings.max_concurrent_requests),
            listens: RequestSlots::new(settings.max_listens),
        }
    }
}
