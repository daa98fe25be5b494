//! Credentials on the endpoint's requests: every POST and GET carries the access token an
//! [`Authorization`] holds, and a refusal (`401`, or `403` with `insufficient_scope`) lets it
//! obtain a better one before the request goes out again, a bounded number of times.

use std::future::Future;
use std::pin::Pin;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{AUTHORIZATION, HeaderValue, WWW_AUTHENTICATE};
use hyper::{Request, Response, StatusCode};

use crate::BoxError;

use super::Endpoint;
use super::request::Sender;

/// A future borrowed from the [`Authorization`] that made it.
pub type AuthorizationFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What an HTTP connection asks of whoever holds its credentials:
/// `mcp::client::auth::OAuth` (feature `oauth`), or an application's own.
pub trait Authorization: Send + Sync + 'static {
    /// The access token to present to `endpoint` now, if one is held. Called before every
    /// request, so it is where a token close to expiry is refreshed.
    fn token<'a>(&'a self, endpoint: &'a str) -> AuthorizationFuture<'a, Option<String>>;

    /// The server refused a request to `endpoint`: obtain credentials that answer `refusal`,
    /// or say why not (the request then fails with that reason). On `Ok` the request is sent
    /// again with whatever [`token`](Self::token) returns next.
    fn refused<'a>(
        &'a self,
        endpoint: &'a str,
        refusal: Refusal<'a>,
    ) -> AuthorizationFuture<'a, Result<(), BoxError>>;
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
/// refusal its [`Authorization`] answers, up to the bounds above. The last response is
/// returned as it came, refusal or not.
pub(super) async fn send<F, Fut>(
    endpoint: &Endpoint,
    request: Request<Full<Bytes>>,
    send: F,
) -> Result<(Response<Incoming>, Sender), String>
where
    F: Fn(Request<Full<Bytes>>) -> Fut,
    Fut: Future<Output = Result<(Response<Incoming>, Sender), String>>,
{
    let Some(auth) = &endpoint.auth else {
        return send(request).await;
    };
    let target = endpoint.uri.to_string();
    let (mut unauthorized, mut step_ups) = (0, 0);
    loop {
        let token = auth.token(&target).await;
        let mut attempt = copy(&request);
        if let Some(token) = &token {
            attempt.headers_mut().insert(AUTHORIZATION, bearer(token)?);
        }
        let (response, sender) = send(attempt).await?;
        let challenge = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
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
            _ => return Ok((response, sender)),
        };
        let earlier = match kind {
            RefusalKind::Unauthorized => unauthorized - 1,
            RefusalKind::InsufficientScope => step_ups - 1,
        };
        let refusal = Refusal {
            kind,
            www_authenticate: challenge.as_deref(),
            presented: token.as_deref(),
            earlier,
        };
        auth.refused(&target, refusal)
            .await
            .map_err(|e| format!("authorization failed: {e}"))?;
    }
}

/// The `Authorization` header of a GET, when the endpoint has credentials.
pub(super) async fn header(endpoint: &Endpoint) -> Result<Option<HeaderValue>, String> {
    let Some(auth) = &endpoint.auth else {
        return Ok(None);
    };
    match auth.token(&endpoint.uri.to_string()).await {
        Some(token) => bearer(&token).map(Some),
        None => Ok(None),
    }
}

fn bearer(token: &str) -> Result<HeaderValue, String> {
    let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| "the access token cannot go in a header".to_owned())?;
    value.set_sensitive(true);
    Ok(value)
}

/// Whether a `403`'s challenge says the token lacks a scope (RFC 6750 §3.1).
fn asks_for_scope(www_authenticate: &str) -> bool {
    crate::transport::http_client::challenge::parse(www_authenticate)
        .iter()
        .any(|c| c.is_bearer() && c.param("error") == Some("insufficient_scope"))
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
