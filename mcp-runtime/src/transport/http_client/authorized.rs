//! Credentials on the endpoint's requests: every POST and GET carries the access token an
//! [`Authorization`] holds (with a DPoP proof made for that request, when the token is bound
//! to a key), and a refusal (`401`, or `403` with `insufficient_scope`) lets it obtain a
//! better one before the request goes out again, a bounded number of times.

use std::future::Future;
use std::pin::Pin;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{AUTHORIZATION, HeaderName, HeaderValue, WWW_AUTHENTICATE};
use hyper::{HeaderMap, Method, Request, Response, StatusCode};

use crate::BoxError;

use super::{Endpoint, HttpConnections};

/// A future borrowed from the [`Authorization`] that made it.
pub type AuthorizationFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What an HTTP connection asks of whoever holds its credentials:
/// `mcp::client::auth::OAuth` (feature `oauth`), or an application's own.
pub trait Authorization: Send + Sync + 'static {
    /// The credentials for the request `method url` to `endpoint`, if any are held. Called
    /// before every request (every attempt of one), so it is where a token close to expiry is
    /// refreshed and where a DPoP proof for this very request is made.
    fn credentials<'a>(
        &'a self,
        endpoint: &'a str,
        method: &'a Method,
        url: &'a str,
    ) -> AuthorizationFuture<'a, Option<Credentials>>;

    /// The server refused a request to `endpoint`: obtain credentials that answer `refusal`,
    /// or say why not (the request then fails with that reason). On `Ok` the request is sent
    /// again with whatever [`credentials`](Self::credentials) returns next.
    fn refused<'a>(
        &'a self,
        endpoint: &'a str,
        refusal: Refusal<'a>,
    ) -> AuthorizationFuture<'a, Result<(), BoxError>>;

    /// The headers of an answer from `endpoint` (to a POST or a GET), refusal or not, before
    /// anything else looks at it: where a server hands out what the next request must carry
    /// (a `DPoP-Nonce`). Nothing by default.
    fn answered(&self, endpoint: &str, headers: &HeaderMap) {
        let _ = (endpoint, headers);
    }

    /// The connection it serves was opened over `connections`: keep them to fetch what
    /// authorization needs (metadata, registration, tokens) through the same certificate
    /// roots, proxies and timeouts. Called once per connection, before any request. Nothing by
    /// default.
    fn attach(&self, connections: &HttpConnections) {
        let _ = connections;
    }
}

/// What one request presents: an access token, and for a token bound to a key by DPoP
/// (RFC 9449), the proof made for this request. Neither shows in `Debug` output.
#[derive(Clone)]
pub struct Credentials {
    token: String,
    dpop_proof: Option<String>,
}

impl Credentials {
    /// `Authorization: Bearer <token>`.
    pub fn bearer(token: impl Into<String>) -> Self {
        Self {
            token: token.into(),
            dpop_proof: None,
        }
    }

    /// `Authorization: DPoP <token>` with `proof` in the `DPoP` header.
    pub fn dpop(token: impl Into<String>, proof: impl Into<String>) -> Self {
        Self {
            token: token.into(),
            dpop_proof: Some(proof.into()),
        }
    }

    /// The access token.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The DPoP proof, for a DPoP-bound token.
    pub fn dpop_proof(&self) -> Option<&str> {
        self.dpop_proof.as_deref()
    }

    /// The request headers: `Authorization`, and `DPoP` with a proof.
    fn headers(&self) -> Result<Vec<(HeaderName, HeaderValue)>, String> {
        let scheme = if self.dpop_proof.is_some() {
            "DPoP"
        } else {
            "Bearer"
        };
        let mut headers = vec![(
            AUTHORIZATION,
            sensitive(&format!("{scheme} {}", self.token), "the access token")?,
        )];
        if let Some(proof) = &self.dpop_proof {
            headers.push((
                HeaderName::from_static("dpop"),
                sensitive(proof, "the DPoP proof")?,
            ));
        }
        Ok(headers)
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("dpop", &self.dpop_proof.is_some())
            .finish_non_exhaustive()
    }
}

/// A server's refusal of a request's credentials.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct Refusal<'a> {
    /// `401`: no token, or one the server does not accept; `403`: the token lacks a scope.
    pub kind: RefusalKind,
    /// The response's `WWW-Authenticate` header, if it had one.
    pub www_authenticate: Option<&'a str>,
    /// The token the refused request carried, so concurrent requests refused for the same
    /// token run one authorization between them.
    pub presented: Option<&'a str>,
    /// How often this request was refused before (with this kind of refusal).
    pub earlier: u32,
}

impl std::fmt::Debug for Refusal<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a credential: it never goes into logs.
        f.debug_struct("Refusal")
            .field("kind", &self.kind)
            .field("www_authenticate", &self.www_authenticate)
            .field("earlier", &self.earlier)
            .finish_non_exhaustive()
    }
}

/// Why a server refused a request's credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// `401 Unauthorized`.
    Unauthorized,
    /// `403 Forbidden` with `error="insufficient_scope"`: a step-up authorization may help.
    InsufficientScope,
}

/// Authorizations one request may run after `401`s: the first may only refresh a token the
/// server no longer takes, so a second one gets a new grant.
const MAX_AUTHORIZATIONS: u32 = 2;

/// Step-ups one request may run after `403 insufficient_scope`; a server that asks for ever
/// must not hold the client in a loop of authorizations.
const MAX_STEP_UPS: u32 = 2;

/// Sends `request` through `send` with the endpoint's credentials, and again after each
/// refusal its [`Authorization`] answers, up to the bounds above, or once more with a fresh
/// proof when a DPoP server asks for its nonce. The last response is returned as it came,
/// refusal or not.
pub(super) async fn send(
    endpoint: &Endpoint,
    request: Request<Full<Bytes>>,
) -> Result<Response<Incoming>, String> {
    let Some(auth) = &endpoint.auth else {
        return endpoint.stack.send(request).await;
    };
    let target = endpoint.uri.to_string();
    let (mut unauthorized, mut step_ups, mut nonce_retried) = (0, 0, false);
    loop {
        let credentials = auth.credentials(&target, request.method(), &target).await;
        let mut attempt = copy(&request);
        if let Some(credentials) = &credentials {
            attempt.headers_mut().extend(credentials.headers()?);
        }
        let response = endpoint.stack.send(attempt).await?;
        auth.answered(&target, response.headers());
        let challenge = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        // RFC 9449 §9: the server wants its nonce in the proof, and has just handed it out
        // (to `answered`); that is no refusal of the token.
        if response.status() == StatusCode::UNAUTHORIZED
            && !nonce_retried
            && credentials.as_ref().is_some_and(|c| c.dpop_proof.is_some())
            && challenge.as_deref().is_some_and(asks_for_nonce)
        {
            nonce_retried = true;
            continue;
        }
        let kind = match response.status() {
            StatusCode::UNAUTHORIZED if unauthorized < MAX_AUTHORIZATIONS => {
                unauthorized += 1;
                RefusalKind::Unauthorized
            }
            StatusCode::FORBIDDEN
                if step_ups < MAX_STEP_UPS && challenge.as_deref().is_some_and(asks_for_scope) =>
            {
                step_ups += 1;
                RefusalKind::InsufficientScope
            }
            _ => return Ok(response),
        };
        let earlier = match kind {
            RefusalKind::Unauthorized => unauthorized - 1,
            RefusalKind::InsufficientScope => step_ups - 1,
        };
        let refusal = Refusal {
            kind,
            www_authenticate: challenge.as_deref(),
            presented: credentials.as_ref().map(Credentials::token),
            earlier,
        };
        auth.refused(&target, refusal)
            .await
            .map_err(|e| format!("authorization failed: {e}"))?;
    }
}

fn sensitive(value: &str, what: &str) -> Result<HeaderValue, String> {
    let mut value =
        HeaderValue::from_str(value).map_err(|_| format!("{what} cannot go in a header"))?;
    value.set_sensitive(true);
    Ok(value)
}

/// Whether a `403`'s challenge says the token lacks a scope (RFC 6750 §3.1, RFC 9449 §7.1).
fn asks_for_scope(www_authenticate: &str) -> bool {
    crate::transport::http_client::challenge::parse(www_authenticate)
        .iter()
        .any(|c| (c.is_bearer() || c.is_dpop()) && c.param("error") == Some("insufficient_scope"))
}

/// Whether a `401`'s challenge asks for a DPoP nonce (RFC 9449 §9).
fn asks_for_nonce(www_authenticate: &str) -> bool {
    crate::transport::http_client::challenge::parse(www_authenticate)
        .iter()
        .any(|c| c.is_dpop() && c.param("error") == Some("use_dpop_nonce"))
}

/// The same request again: a hyper request is sent by value, and the body is cheap to clone.
fn copy(request: &Request<Full<Bytes>>) -> Request<Full<Bytes>> {
    let mut copy = Request::new(request.body().clone());
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.version_mut() = request.version();
    *copy.headers_mut() = request.headers().clone();
    copy
}
