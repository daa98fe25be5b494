//! How a server wants to be served over Streamable HTTP: plain data the server carries from
//! [`McpServer`](super::McpServer) to the HTTP transport, so building the server never drops a
//! setting. The transport (`crate::transport::http`) reads it and may override each field.

use std::time::Duration;

use crate::auth::ResourceServer;

/// The default endpoint path.
pub const DEFAULT_PATH: &str = "/mcp";
/// The default number of concurrent 2025-11-25 sessions.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;
/// The default number of concurrent 2025-11-25 sessions of one authenticated caller.
pub const DEFAULT_MAX_SESSIONS_PER_OWNER: usize = 64;
/// The default idle time after which a 2025-11-25 session expires.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How long serving until a signal lets in-flight requests finish after it.
pub const DEFAULT_GRACE_PERIOD: Duration = Duration::from_secs(30);
/// The default time a client has to send a request's headers.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The default time a client has to send a request's body.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// The default time an idle keep-alive connection is kept open.
pub const DEFAULT_KEEP_ALIVE_TIMEOUT: Duration = Duration::from_secs(90);
/// How long a client may leave response bytes untaken by default.
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// The default number of open connections.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;
/// The default number of JSON-RPC requests handled at once.
pub const DEFAULT_MAX_CONCURRENT_REQUESTS: usize = 1024;
/// The default number of 2026-07-28 `subscriptions/listen` streams open at once.
pub const DEFAULT_MAX_LISTENS: usize = 1024;
/// The default number of request-body bytes held at once, over all requests.
pub const DEFAULT_BODY_BUDGET: usize = 64 << 20;

/// The HTTP side of a server's settings.
#[derive(Debug, Clone)]
pub(crate) struct HttpSettings {
    pub path: String,
    /// The largest request body; `None` follows the server's `max_message_size`.
    pub body_limit: Option<usize>,
    pub allowed_hosts: Vec<String>,
    pub allowed_origins: Vec<String>,
    pub dns_rebinding_protection: bool,
    pub max_sessions: usize,
    pub max_sessions_per_owner: usize,
    pub session_idle_timeout: Duration,
    /// `None`: unbounded where the caller gives the shutdown future, [`DEFAULT_GRACE_PERIOD`]
    /// where serving stops on a signal.
    pub grace_period: Option<Duration>,
    pub drain: Duration,
    pub auth: Option<ResourceServer>,
    pub header_read_timeout: Duration,
    pub body_read_timeout: Duration,
    pub keep_alive_timeout: Duration,
    pub write_timeout: Duration,
    pub max_connections: usize,
    pub max_concurrent_requests: usize,
    pub max_listens: usize,
    pub body_budget: usize,
    /// Where the Prometheus scrape is served, and what it reads; no such route without it.
    #[cfg(feature = "otel")]
    pub metrics: Option<(String, crate::telemetry::Prometheus)>,
}

impl Default for HttpSettings {
    fn default() -> Self {
        Self {
            path: DEFAULT_PATH.to_owned(),
            body_limit: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            dns_rebinding_protection: true,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_sessions_per_owner: DEFAULT_MAX_SESSIONS_PER_OWNER,
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            grace_period: None,
            drain: Duration::ZERO,
            auth: None,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            keep_alive_timeout: DEFAULT_KEEP_ALIVE_TIMEOUT,
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_concurrent_requests: DEFAULT_MAX_CONCURRENT_REQUESTS,
            max_listens: DEFAULT_MAX_LISTENS,
            body_budget: DEFAULT_BODY_BUDGET,
            #[cfg(feature = "otel")]
            metrics: None,
        }
    }
}
