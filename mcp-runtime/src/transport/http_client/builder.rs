//! The options of an HTTP client connection, set one by one before connecting.

use std::time::Duration;

use hyper::Uri;

use std::sync::Arc;

use super::stack::{HttpConnections, HttpStack};
use super::{Authorization, Duplex, HttpClientError};

/// An HTTP client connection to one MCP endpoint, configured before it is opened:
/// certificate roots, proxies, timeouts, HTTP/2 (feature `http2`). [`connect`](super::connect) is
/// `Builder::new(url).connect()`.
///
/// ```no_run
/// # fn run() -> Result<(), mcp::transport::http_client::HttpClientError> {
/// use std::time::Duration;
/// use mcp::transport::http_client::Builder;
///
/// let duplex = Builder::new("https://mcp.example.com/mcp")
///     .no_proxy()
///     .connect_timeout(Duration::from_secs(5))
///     .connect()?;
/// # let _ = duplex;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Builder {
    pub(super) url: String,
    /// CAs trusted besides the platform's.
    #[cfg(feature = "tls")]
    pub(super) root_certificates: Vec<rustls::pki_types::CertificateDer<'static>>,
    pub(super) connect_timeout: Option<Duration>,
    pub(super) request_timeout: Option<Duration>,
    pub(super) proxy: ProxyChoice,
    #[cfg(feature = "http2")]
    pub(super) http2_prior_knowledge: bool,
    /// Who holds the credentials, for a protected endpoint.
    pub(super) auth: Option<Arc<dyn Authorization>>,
}

/// Where the connections go through.
#[derive(Debug, Clone)]
pub(super) enum ProxyChoice {
    /// As `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` say.
    Environment,
    /// Always this proxy (a checked `http://` URL).
    Via(String),
    /// Never a proxy.
    Direct,
}

impl Builder {
    /// Options for the endpoint at `url` (`http://` or `https://`), all at their defaults:
    /// the platform's certificate roots, proxies from the environment, no timeouts, HTTP/2
    /// (feature `http2`) only where TLS negotiates it. The URL is checked by
    /// [`connect`](Self::connect).
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            #[cfg(feature = "tls")]
            root_certificates: Vec::new(),
            connect_timeout: None,
            request_timeout: None,
            proxy: ProxyChoice::Environment,
            #[cfg(feature = "http2")]
            http2_prior_knowledge: false,
            auth: None,
        }
    }

    /// Trusts the CA certificates in `pem` (one or more `CERTIFICATE` blocks) as well as the
    /// platform's roots, e.g. a private CA's. Fails if `pem` holds no certificate or one that
    /// cannot be a root. Feature `tls`.
    #[cfg(feature = "tls")]
    pub fn add_root_certificate_pem(mut self, pem: &[u8]) -> Result<Self, HttpClientError> {
        self.root_certificates
            .extend(super::tls::certificates_from_pem(pem)?);
        Ok(self)
    }

    /// Gives up opening a connection after `timeout`: the TCP connection, a proxy's tunnel
    /// and the TLS handshake together. The request that needed the connection fails.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// Gives up on a request whose response's headers have not arrived within `timeout`,
    /// counted from when it is sent (a connection it had to open included).
    ///
    /// Only the headers: once they are in, the body may take as long as it takes, so a
    /// server's SSE stream that carries progress for minutes is not cut. A server that
    /// answers with JSON sends its headers with the answer, so there this bounds the whole
    /// request.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = Some(timeout);
        self
    }

    /// Sends everything through the HTTP proxy at `url` (`http://host:port`, with
    /// `user:password@` for `Proxy-Authorization: Basic`), whatever the environment says.
    /// Fails for a URL that is not a plain `http://` one.
    pub fn proxy(mut self, url: &str) -> Result<Self, HttpClientError> {
        let refuse = |reason: &str| HttpClientError::Proxy {
            url: url.to_owned(),
            reason: reason.to_owned(),
        };
        let uri: Uri = url.parse().map_err(|_| refuse("not a URL"))?;
        if uri.scheme_str() != Some("http") {
            return Err(refuse("only http:// proxies are supported"));
        }
        if uri.host().is_none_or(str::is_empty) {
            return Err(refuse("no host"));
        }
        self.proxy = ProxyChoice::Via(url.to_owned());
        Ok(self)
    }

    /// Connects directly, whatever the environment's proxy variables say.
    pub fn no_proxy(mut self) -> Self {
        self.proxy = ProxyChoice::Direct;
        self
    }

    /// Protects the connection with `auth`'s credentials (`mcp::client::auth::OAuth`, feature
    /// `oauth`, or an application's own [`Authorization`]): every request carries them, and a
    /// `401` or a `403 insufficient_scope` lets `auth` obtain better ones (once for all the
    /// requests refused together) before the request goes again. What `auth` fetches itself
    /// (metadata, registration, tokens) goes out through this connection's certificate roots,
    /// proxies and timeouts.
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
    /// let duplex = http_client::Builder::new("https://mcp.example.com/mcp")
    ///     .auth(oauth)
    ///     .connect()?;
    /// let client = Client::builder(Implementation::new("my-agent", "1.0.0")).connect(duplex);
    /// client.list_tools(None).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn auth(mut self, auth: impl Authorization) -> Self {
        self.auth = Some(Arc::new(auth));
        self
    }

    /// Speaks HTTP/2 from the first byte, also over plain `http://` (h2c), for a server
    /// known to speak it; a server that does not fails every request. Needs the feature
    /// `http2`.
    #[cfg(feature = "http2")]
    pub fn http2_prior_knowledge(mut self) -> Self {
        self.http2_prior_knowledge = true;
        self
    }

    /// Checks the URL and sets up the connection; no request is sent until the client sends
    /// one, so an unreachable server shows in the first request's answer.
    pub fn connect(self) -> Result<Duplex, HttpClientError> {
        let uri: Uri = self
            .url
            .parse()
            .map_err(|_| HttpClientError::Url(self.url.clone()))?;
        match uri.scheme_str() {
            Some("http") => {}
            #[cfg(feature = "tls")]
            Some("https") => {}
            #[cfg(not(feature = "tls"))]
            Some("https") => return Err(HttpClientError::TlsDisabled(self.url)),
            other => return Err(HttpClientError::Scheme(other.unwrap_or("none").to_owned())),
        }
        if uri.host().is_none_or(str::is_empty) {
            return Err(HttpClientError::Url(self.url));
        }
        let stack = HttpStack::new(&self)?;
        if let Some(auth) = &self.auth {
            auth.attach(&HttpConnections(stack.clone()));
        }
        Ok(super::start(uri, stack, self.auth))
    }
}
