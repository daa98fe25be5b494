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

mod param_headers;
pub(crate) mod request;
mod sse;

use std::sync::{Arc, Mutex};

use hyper::Uri;
use tokio::sync::mpsc;

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
}

/// Connects to `url` (e.g. `http://127.0.0.1:8000/mcp`); no request is sent until the client
/// sends one.
pub fn connect(url: &str) -> Result<Duplex, HttpClientError> {
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
    });
    let (in_tx, incoming) = mpsc::channel::<Frame>(CHANNEL_CAPACITY);
    let (outgoing, mut out_rx) = mpsc::channel::<String>(CHANNEL_CAPACITY);
    tokio::spawn(async move {
        while let Some(message) = out_rx.recv().await {
            let endpoint = endpoint.clone();
            let in_tx = in_tx.clone();
            // Each message in its own task: a long call must not hold up the next one.
            tokio::spawn(async move { request::post(endpoint, message, &in_tx).await });
        }
    });
    Ok(Duplex::new(incoming, outgoing))
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Each critical section is a single assignment or read.
    m.lock().unwrap_or_else(|e| e.into_inner())
}
