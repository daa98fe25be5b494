//! The client side of Streamable HTTP: a [`Duplex`] whose outgoing messages are POSTed to the
//! server's endpoint and whose incoming messages are the JSON or SSE answers.
//!
//! Each message goes out in its own POST (concurrently), with the headers the revision wants:
//! on 2026-07-28 `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` (values that are not plain
//! ASCII are sent as `=?base64?…?=`); on 2025-11-25 the `Mcp-Session-Id` the server handed out
//! at `initialize`. Server→client requests of a 2025 session arrive on the request's SSE stream,
//! and the [`Client`](crate::client::Client)'s answers go back as POSTs.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use mcp::client::Client;
//! use mcp::protocol::Implementation;
//! use mcp::transport::http_client;
//!
//! let duplex = http_client::connect("http://127.0.0.1:8000/mcp")?;
//! let client = Client::builder(Implementation::new("me", "1.0.0")).connect(duplex);
//! client.negotiate().await?;
//! # Ok(())
//! # }
//! ```

mod authorized;
pub mod challenge;
#[cfg(feature = "oauth")]
pub(crate) mod fetch;
mod param_headers;
pub(crate) mod request;
mod sse;

pub use authorized::{Authorization, AuthorizationFuture, Credentials, Refusal, RefusalKind};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::Uri;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use crate::protocol::{keys, notification_methods};

use super::{CHANNEL_CAPACITY, Duplex, Frame};

/// An endpoint URL that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum HttpClientError {
    /// Not a valid URL.
    #[error("invalid endpoint URL: {0}")]
    Url(String),
    /// Only plain `http://` is built in; put TLS in front (a proxy) for `https://`.
    #[error("only http:// endpoints are supported (got {0})")]
    Scheme(String),
}

/// What every POST of one connection shares.
#[derive(Debug)]
pub(crate) struct Endpoint {
    pub uri: Uri,
    pub authority: String,
    /// The 2025-11-25 session, once `initialize` returned one.
    pub session: Mutex<Option<String>>,
    /// The revision negotiated by `initialize` (sent as `MCP-Protocol-Version` afterwards).
    pub legacy_version: Mutex<Option<String>>,
    /// `x-mcp-header` mappings learnt from `tools/list`.
    pub param_headers: Mutex<param_headers::ParamHeaders>,
    /// Kept-alive connections ready for the next POST.
    pub idle: Mutex<Vec<request::Sender>>,
    /// Fires once the session's standing GET stream has its answer (or gave up), so messages
    /// after `initialize` go out after it: a server may otherwise take a late standing GET
    /// for the resumption of a request's stream.
    pub standing_opened: Mutex<Option<oneshot::Receiver<()>>>,
    /// Who holds the credentials of a protected endpoint ([`connect_with_auth`]).
    pub auth: Option<Arc<dyn Authorization>>,
}

impl std::fmt::Debug for dyn Authorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Authorization")
    }
}

/// How long the messages after `initialize` wait for the standing GET stream to open.
const STANDING_STREAM_WAIT: Duration = Duration::from_secs(1);

/// Connects to `url` (e.g. `http://127.0.0.1:8000/mcp`); no request is sent until the client
/// sends one.
pub fn connect(url: &str) -> Result<Duplex, HttpClientError> {
    open_endpoint(url, None)
}

/// Connects to the protected endpoint at `url`: every request carries the access token `auth`
/// holds, and a `401` or a `403 insufficient_scope` lets it obtain one (once for all the
/// requests refused together) before the request is sent again.
///
/// ```no_run
/// # #[cfg(feature = "oauth")]
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp::client::Client;
/// use mcp::client::auth::{HeadlessAuthorize, OAuth};
/// use mcp::protocol::Implementation;
/// use mcp::transport::http_client;
///
/// let oauth = OAuth::builder(HeadlessAuthorize::new("http://127.0.0.1:8976/callback"))
///     .client_name("my-agent")
///     .build();
/// let duplex = http_client::connect_with_auth("http://127.0.0.1:8000/mcp", oauth)?;
/// let client = Client::builder(Implementation::new("my-agent", "1.0.0")).connect(duplex);
/// client.list_tools(None).await?;
/// # Ok(())
/// # }
/// ```
pub fn connect_with_auth(url: &str, auth: impl Authorization) -> Result<Duplex, HttpClientError> {
    open_endpoint(url, Some(Arc::new(auth)))
}

fn open_endpoint(
    url: &str,
    auth: Option<Arc<dyn Authorization>>,
) -> Result<Duplex, HttpClientError> {
    let uri: Uri = url
        .parse()
        .map_err(|_| HttpClientError::Url(url.to_owned()))?;
    match uri.scheme_str() {
        Some("http") => {}
        other => return Err(HttpClientError::Scheme(other.unwrap_or("none").to_owned())),
    }
    let authority = uri
        .authority()
        .map(|a| a.as_str().to_owned())
        .ok_or_else(|| HttpClientError::Url(url.to_owned()))?;
    let endpoint = Arc::new(Endpoint {
        uri,
        authority,
        session: Mutex::new(None),
        legacy_version: Mutex::new(None),
        param_headers: Mutex::default(),
        idle: Mutex::default(),
        standing_opened: Mutex::default(),
        auth,
    });
    let (in_tx, incoming) = mpsc::channel::<Frame>(CHANNEL_CAPACITY);
    let (outgoing, mut out_rx) = mpsc::channel::<String>(CHANNEL_CAPACITY);
    tokio::spawn(async move {
        let streams = Arc::new(OpenStreams::default());
        while let Some(message) = out_rx.recv().await {
            let opening = lock(&endpoint.standing_opened).take();
            if let Some(opened) = opening {
                let _ = tokio::time::timeout(STANDING_STREAM_WAIT, opened).await;
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
    Ok(Duplex::new(incoming, outgoing))
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
