//! Streamable HTTP on axum: one endpoint that serves the stateless 2026-07-28 wire and
//! 2025-11-25 sessions side by side.
//!
//! Each POST is routed by what it carries: a `_meta` protocol version means the stateless wire;
//! `initialize` or an `Mcp-Session-Id` header means a session. Loopback-only `Host`/`Origin`
//! checks and a body limit are on by default.
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

mod bearer;
mod drain;
mod endpoint;
mod headers;
mod host_policy;
mod respond;
mod serve;
mod sessions;
mod sse;
mod stateless;
mod tool_headers;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};
use tokio_util::sync::CancellationToken;

use crate::auth::ResourceServer;
use crate::server::{HttpSettings, Server};

pub use crate::server::http_settings::{
    DEFAULT_GRACE_PERIOD, DEFAULT_MAX_SESSIONS, DEFAULT_PATH, DEFAULT_SESSION_IDLE_TIMEOUT,
};
/// The axum this transport is built on, for mounting its router without a version clash.
pub use axum;
pub use serve::shutdown_signal;

use bearer::BearerGuard;
use endpoint::{
    Shared, on_delete, on_get, on_metadata, on_other_metadata_method, on_other_method, on_post,
};
use host_policy::HostPolicy;
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

    /// How many 2025-11-25 sessions may be open at once; opening one more evicts the longest
    /// idle (default 1024).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.settings.max_sessions = sessions;
        self
    }

    /// How long a 2025-11-25 session may sit idle before it expires (default 30 min).
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.settings.session_idle_timeout = timeout;
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
        let mut router = Router::new().route(&self.settings.path, endpoint);
        if let Some(bearer) = &shared.bearer {
            for path in bearer.metadata_paths() {
                router = router.route(&path, get(on_metadata).fallback(on_other_metadata_method));
            }
        }
        // No tower layers: each would box every request's service and future. The handlers
        // bound the body and mark responses during shutdown themselves.
        router.with_state(shared)
    }

    fn shared(&self) -> Shared {
        let settings = &self.settings;
        let bearer = settings.auth.clone().map(BearerGuard::new);
        let mut hosts = HostPolicy {
            enabled: settings.dns_rebinding_protection,
            hosts: settings.allowed_hosts.clone(),
            origins: settings.allowed_origins.clone(),
        };
        if let Some(bearer) = &bearer {
            let (host, origin) = bearer.own_host_and_origin();
            hosts.hosts.push(host.to_owned());
            hosts.origins.push(origin.to_owned());
        }
        Shared {
            server: self.server.clone(),
            hosts,
            bearer,
            // Zero would evict every session as it opens; one is the least that works.
            sessions: SessionTable::new(
                settings.max_sessions.max(1),
                settings.session_idle_timeout,
            ),
            tool_headers: ToolHeaders::default(),
            streams_closing: self.streams_closing.clone(),
            body_limit: settings
                .body_limit
                .unwrap_or_else(|| self.server.max_message_size()),
        }
    }
}
