//! The client side of Streamable HTTP: a [`Duplex`] whose outgoing messages are POSTed to the
//! server's endpoint and whose incoming messages are the JSON or SSE answers.
//!
//! Each message goes out in its own POST (concurrently), with the headers the revision wants:
//! on 2026-07-28 `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` (values that are not plain
//! ASCII are sent as `=?base64?…?=`); on 2025-11-25 the `Mcp-Session-Id` the server handed out
//! at `initialize`. Server→client requests of a 2025 session arrive on the request's SSE stream,
//! and the [`Client`](crate::client::Client)'s answers go back as POSTs.
//!
//! [`connect`] takes the defaults; a [`Builder`] sets the rest:
//!
//! - **`https://`** (feature `tls`, on by default): rustls, with the platform's certificate
//!   roots and verifier, plus any CA added with `Builder::add_root_certificate_pem`. The roots
//!   are loaded at the first TLS handshake, so plain `http://` works on a system without them.
//!   Without the feature an `https://` URL is refused with [`HttpClientError::TlsDisabled`].
//! - **HTTP/1.1, and HTTP/2** with the feature `http2` (off by default): over TLS the server
//!   picks (ALPN); plain `http://` speaks HTTP/1.1 unless told
//!   `Builder::http2_prior_knowledge`.
//!   Connections are kept alive and reused; one the server closed meanwhile is replaced.
//! - **Proxies**: by default from `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY`
//!   (or their lower-case forms), read when the connection is set up; or one named with
//!   [`proxy`](Builder::proxy), or none with [`no_proxy`](Builder::no_proxy). `https://`
//!   goes through a proxy in a `CONNECT` tunnel (the TLS session is end to end), `http://` as
//!   absolute-form requests to the proxy. Only `http://` proxies are spoken to; credentials in
//!   a proxy's URL are sent as `Proxy-Authorization: Basic`.
//! - **Timeouts**, none unless set: the [`connect_timeout`](Builder::connect_timeout) bounds
//!   opening a connection (TCP, a proxy's tunnel, the TLS handshake); the
//!   [`request_timeout`](Builder::request_timeout) bounds the wait for a response's headers.
//!   Neither bounds a response's body, so an SSE stream may run as long as the server keeps
//!   it open.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//!
//! use mcp::client::Client;
//! use mcp::protocol::Implementation;
//! use mcp::transport::http_client;
//!
//! // The defaults: the platform's roots, the environment's proxies, no timeouts.
//! let duplex = http_client::connect("http://127.0.0.1:8000/mcp")?;
//! let client = Client::builder(Implementation::new("me", "1.0.0")).connect(duplex);
//! client.negotiate().await?;
//!
//! // A server whose certificate comes from a private CA, through a proxy.
//! let ca = std::fs::read("ca.pem")?;
//! let duplex = http_client::Builder::new("https://mcp.internal.example:8443/mcp")
//!     .add_root_certificate_pem(&ca)?
//!     .proxy("http://proxy.internal.example:3128")?
//!     .connect_timeout(Duration::from_secs(5))
//!     .request_timeout(Duration::from_secs(30))
//!     .connect()?;
//! let client = Client::builder(Implementation::new("me", "1.0.0")).connect(duplex);
//! client.negotiate().await?;
//! # Ok(())
//! # }
//! ```

mod authorized;
mod builder;
pub mod challenge;
mod connect_timeout;
#[cfg(feature = "oauth")]
pub(crate) mod fetch;
mod param_headers;
pub(crate) mod request;
mod routed;
mod sse;
pub(crate) mod stack;
#[cfg(feature = "tls")]
mod tls;

pub use authorized::{Authorization, AuthorizationFuture, Credentials, Refusal, RefusalKind};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::Uri;
use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tokio::task::AbortHandle;

use crate::protocol::{keys, notification_methods};

use super::{CHANNEL_CAPACITY, Duplex, Frame, Standing};

pub use builder::Builder;
pub use stack::HttpConnections;
use stack::HttpStack;

/// Why an HTTP client could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpClientError {
    /// Not a valid URL.
    #[error("invalid endpoint URL: {0}")]
    Url(String),
    /// A scheme other than `http` or `https`.
    #[error("only http:// and https:// endpoints are supported (got {0})")]
    Scheme(String),
    /// An `https://` URL, in a build without the `tls` feature.
    #[error("https:// needs the `tls` feature of mcp, which this build leaves out ({0})")]
    TlsDisabled(String),
    /// A CA certificate given as PEM that holds no usable certificate.
    #[error("invalid CA certificate: {0}")]
    Certificate(String),
    /// A proxy URL that cannot be used.
    #[error("invalid proxy URL {url:?}: {reason}")]
    Proxy {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// TLS could not be configured.
    #[error("cannot set up TLS: {0}")]
    Tls(String),
}

/// What every POST of one connection shares.
#[derive(Debug)]
pub(crate) struct Endpoint {
    pub uri: Uri,
    /// The connections, their TLS and proxies.
    pub stack: HttpStack,
    /// The 2025-11-25 session, once `initialize` returned one (shared with the client's
    /// telemetry, which names it on its spans).
    pub session: Arc<Mutex<Option<String>>>,
    /// The revision negotiated by `initialize` (sent as `MCP-Protocol-Version` afterwards).
    pub legacy_version: Mutex<Option<String>>,
    /// `x-mcp-header` mappings learnt from `tools/list`.
    pub param_headers: Mutex<param_headers::ParamHeaders>,
    /// Where the session's standing GET stream stands. The first message after `initialize`
    /// waits for its answer (a server may otherwise take a late standing GET for the
    /// resumption of a request's stream), and so do the client's listens, which must not
    /// return before what they listen for has a way to arrive.
    pub standing: watch::Sender<Standing>,
    /// Who holds the credentials of a protected endpoint ([`Builder::auth`]).
    pub auth: Option<Arc<dyn Authorization>>,
}

impl std::fmt::Debug for dyn Authorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Authorization")
    }
}

/// How long the messages after `initialize` wait for the standing GET stream to open.
const STANDING_STREAM_WAIT: Duration = Duration::from_secs(1);

/// Connects to `url` (e.g. `http://127.0.0.1:8000/mcp` or `https://mcp.example.com/mcp`) with
/// the [`Builder`]'s defaults; no request is sent until the client sends one.
pub fn connect(url: &str) -> Result<Duplex, HttpClientError> {
    Builder::new(url).connect()
}

/// Starts the transport's task: each outgoing message is POSTed to `uri` through `stack`,
/// with the credentials `auth` holds.
fn start(uri: Uri, stack: HttpStack, auth: Option<Arc<dyn Authorization>>) -> Duplex {
    let session = Arc::new(Mutex::new(None));
    let (standing, standing_now) = watch::channel(Standing::Absent);
    #[cfg(feature = "otel")]
    let server = crate::telemetry::ServerPeer::http(
        uri.host().unwrap_or_default(),
        uri.port_u16()
            .unwrap_or(if uri.scheme_str() == Some("https") {
                443
            } else {
                80
            }),
        session.clone(),
    );
    let endpoint = Arc::new(Endpoint {
        uri,
        stack,
        session,
        legacy_version: Mutex::new(None),
        param_headers: Mutex::default(),
        standing,
        auth,
    });
    let (in_tx, incoming) = mpsc::channel::<Frame>(CHANNEL_CAPACITY);
    let (outgoing, mut out_rx) = mpsc::channel::<String>(CHANNEL_CAPACITY);
    tokio::spawn(async move {
        let streams = Arc::new(OpenStreams::default());
        let mut standing = endpoint.standing.subscribe();
        while let Some(message) = out_rx.recv().await {
            // Only the first message after an `initialize` waits: each later one sees no change.
            if standing.has_changed().unwrap_or(false)
                && *standing.borrow_and_update() == Standing::Opening
            {
                let answered = standing.wait_for(|now| *now != Standing::Opening);
                let _ = tokio::time::timeout(STANDING_STREAM_WAIT, answered).await;
            }
            let parsed: Value = serde_json::from_str(&message).unwrap_or(Value::Null);
            if streams.cancels(&endpoint, &parsed) {
                continue;
            }
            let modern_request = parsed.get("id").is_some()
                && parsed
                    .get("params")
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get(keys::PROTOCOL_VERSION))
                    .is_some();
            let (endpoint, in_tx) = (endpoint.clone(), in_tx.clone());
            let id = parsed
                .get("id")
                .filter(|_| modern_request)
                .map(Value::to_string);
            // Held across the spawn, so a POST that ends at once removes its entry after it
            // was made rather than before.
            let mut open = lock(&streams.0);
            // Each message in its own task: a long call must not hold up the next one.
            let post = tokio::spawn({
                let (streams, id) = (streams.clone(), id.clone());
                async move {
                    request::post(endpoint, message, parsed, &in_tx).await;
                    if let Some(id) = id {
                        lock(&streams.0).remove(&id);
                    }
                }
            });
            if let Some(id) = id {
                open.insert(id, post.abort_handle());
            }
        }
    });
    let duplex = Duplex::new(incoming, outgoing)
        .tagging_related()
        .with_standing(standing_now);
    #[cfg(feature = "otel")]
    let duplex = duplex.talking_to(server);
    duplex
}

/// The POSTs of 2026-07-28 requests still waiting for their answers, by JSON-RPC id (as JSON
/// text): cancelling one closes its response stream.
#[derive(Default)]
struct OpenStreams(Mutex<HashMap<String, AbortHandle>>);

impl OpenStreams {
    /// Whether `message` is a `notifications/cancelled` this transport carries out itself. On
    /// the 2026-07-28 wire closing the request's response stream is the cancellation and the
    /// notification is not sent over HTTP; a 2025-11-25 session POSTs it like any other.
    fn cancels(&self, endpoint: &Endpoint, message: &Value) -> bool {
        let is_cancel =
            message.get("method").and_then(Value::as_str) == Some(notification_methods::CANCELLED);
        if !is_cancel || lock(&endpoint.session).is_some() {
            return false;
        }
        let id = message.pointer("/params/requestId").map(Value::to_string);
        if let Some(post) = id.and_then(|id| lock(&self.0).remove(&id)) {
            // Dropping the POST's response (or its unanswered request) closes the connection
            // under it, which the server sees as the cancellation.
            post.abort();
        }
        true
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Each critical section is a single assignment or read.
    m.lock().unwrap_or_else(|e| e.into_inner())
}
