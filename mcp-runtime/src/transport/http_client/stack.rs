//! The connections under an HTTP client connection: one pooled hyper client (HTTP/1.1, and
//! HTTP/2 with the feature `http2`) over TLS and proxies, held to the connect and request
//! timeouts. Everything the crate sends over HTTP as a client goes through an [`HttpStack`]:
//! the endpoint's POSTs and GETs, and plain requests such as fetches of metadata documents.

use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::PROXY_AUTHORIZATION;
use hyper::{Request, Response};
use hyper_util::client::legacy::Client;
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::{TokioExecutor, TokioTimer};

use super::HttpClientError;
use super::builder::{Builder, ProxyChoice};
use super::connect_timeout::ConnectTimeout;
use super::routed::{ProxyRoute, chain};

#[cfg(feature = "tls")]
type Connector = ConnectTimeout<hyper_rustls::HttpsConnector<ProxyRoute>>;
#[cfg(not(feature = "tls"))]
type Connector = ConnectTimeout<ProxyRoute>;

/// Idle connections kept per host (HTTP/1.1; HTTP/2 needs only one).
const MAX_IDLE_PER_HOST: usize = 8;

/// The connections of an HTTP client endpoint (its certificate roots, proxies and timeouts),
/// lent to its [`Authorization`](super::Authorization) when it is connected, so that what
/// authorization fetches (metadata, registration, tokens) goes out the way the endpoint's own
/// requests do.
#[derive(Clone, Debug)]
pub struct HttpConnections(
    #[cfg_attr(
        not(feature = "oauth"),
        expect(
            dead_code,
            reason = "only the crate's OAuth client fetches through them"
        )
    )]
    pub(crate) HttpStack,
);

/// A pooled HTTP client with the options of a [`Builder`]: its CAs, proxies, timeouts. Cheap
/// to clone; the clones share the connections.
#[derive(Clone, Debug)]
pub(crate) struct HttpStack {
    client: Client<Connector, Full<Bytes>>,
    proxies: Arc<Matcher>,
    request_timeout: Option<Duration>,
}

impl HttpStack {
    /// The stack `options` describe; proxies from the environment are read now.
    pub(crate) fn new(options: &Builder) -> Result<Self, HttpClientError> {
        let proxies = Arc::new(match &options.proxy {
            ProxyChoice::Environment => Matcher::from_env(),
            ProxyChoice::Via(url) => Matcher::builder().all(url.clone()).build(),
            ProxyChoice::Direct => Matcher::builder().build(),
        });
        let route = ProxyRoute::new(proxies.clone());
        #[cfg(feature = "tls")]
        let route = super::tls::https(route, options)?;
        let connector = ConnectTimeout {
            inner: route,
            limit: options.connect_timeout,
        };
        let mut client = Client::builder(TokioExecutor::new());
        client
            .pool_max_idle_per_host(MAX_IDLE_PER_HOST)
            .pool_timer(TokioTimer::new())
            .timer(TokioTimer::new());
        #[cfg(feature = "http2")]
        client.http2_only(options.http2_prior_knowledge);
        let client = client.build(connector);
        Ok(Self {
            client,
            proxies,
            request_timeout: options.request_timeout,
        })
    }

    /// Sends `request` (its URI absolute) on a pooled connection or a new one, and returns
    /// once the response's headers are in, within the request timeout. Redirects are handed
    /// back, not followed. The error is a message for a person.
    pub(crate) async fn send(
        &self,
        mut request: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, String> {
        #[cfg(not(feature = "tls"))]
        if request.uri().scheme_str() == Some("https") {
            return Err(HttpClientError::TlsDisabled(request.uri().to_string()).to_string());
        }
        self.authorize_at_proxy(&mut request);
        let authority = request
            .uri()
            .authority()
            .map_or_else(String::new, ToString::to_string);
        let sending = self.client.request(request);
        let answer = match self.request_timeout {
            None => sending.await,
            Some(limit) => tokio::time::timeout(limit, sending).await.map_err(|_| {
                format!("no response from {authority} within the request timeout ({limit:?})")
            })?,
        };
        answer.map_err(|error| {
            let cause = std::error::Error::source(&error).map_or_else(String::new, chain);
            match error.is_connect() {
                true => format!("cannot connect to {authority}: {cause}"),
                false if cause.is_empty() => error.to_string(),
                false => cause,
            }
        })
    }

    /// An `http://` request that goes to a proxy carries the proxy's credentials itself (a
    /// tunnel for `https://` carries them in its `CONNECT` instead).
    fn authorize_at_proxy(&self, request: &mut Request<Full<Bytes>>) {
        if request.uri().scheme_str() != Some("http") {
            return;
        }
        let proxy = self.proxies.intercept(request.uri());
        if let Some(credentials) = proxy.as_ref().and_then(|p| p.basic_auth()) {
            request
                .headers_mut()
                .insert(PROXY_AUTHORIZATION, credentials.clone());
        }
    }
}
