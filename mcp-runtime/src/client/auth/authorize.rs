//! The user's part of the flow: someone (a browser, a test, an automated approver) visits the
//! authorization URL, and the authorization server redirects back with a code.
//!
//! [`LoopbackAuthorize`](super::LoopbackAuthorize) opens the user's browser and receives the
//! redirect on `127.0.0.1`; [`HeadlessAuthorize`] follows the URL itself and reads the
//! redirect, for authorization servers that approve without a user (tests, conformance,
//! pre-consented clients).

use std::fmt;
use std::sync::OnceLock;

use http_body_util::Full;
use hyper::Request;
use hyper::header::LOCATION;
use url::Url;

use crate::transport::http_client::stack::HttpStack;
use crate::transport::http_client::{AuthorizationFuture, HttpConnections};

use super::AuthError;
use super::http::{connections, send};

/// Takes the user through authorization and hands back what the redirect carried.
pub trait Authorize: Send + Sync + 'static {
    /// Where the authorization server sends the user back (registered with it).
    fn redirect_uri(&self) -> &str;

    /// Has the user visit `url` and returns the redirect's parameters.
    fn authorize<'a>(
        &'a self,
        url: &'a Url,
    ) -> AuthorizationFuture<'a, Result<AuthorizationResponse, AuthError>>;

    /// The protected endpoint was connected over `connections`: an implementation that
    /// visits the authorization server itself keeps them, to go there through the same
    /// certificate roots and proxies. Nothing by default.
    fn attach(&self, connections: &HttpConnections) {
        let _ = connections;
    }
}

/// The parameters of the redirect back from the authorization server.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthorizationResponse {
    /// The authorization code.
    pub code: String,
    /// The `state` the request carried, echoed.
    pub state: Option<String>,
    /// The issuer that answered (RFC 9207), if it said.
    pub iss: Option<String>,
}

impl fmt::Debug for AuthorizationResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The code is a credential until it is exchanged.
        f.debug_struct("AuthorizationResponse")
            .field("code", &"[redacted]")
            .field("state", &self.state)
            .field("iss", &self.iss)
            .finish()
    }
}

impl AuthorizationResponse {
    /// Reads the redirect URL's query: an `error` becomes [`AuthError::Denied`], and a
    /// parameter given twice makes the response invalid.
    pub fn from_redirect(redirect: &Url) -> Result<Self, AuthError> {
        let mut code = None;
        let mut state = None;
        let mut iss = None;
        let mut error = None;
        let mut description = None;
        for (name, value) in redirect.query_pairs() {
            let slot = match name.as_ref() {
                "code" => &mut code,
                "state" => &mut state,
                "iss" => &mut iss,
                "error" => &mut error,
                "error_description" => &mut description,
                _ => continue,
            };
            if slot.replace(value.into_owned()).is_some() {
                return Err(AuthError::InvalidRedirect {
                    reason: format!("`{name}` given more than once"),
                });
            }
        }
        if let Some(error) = error {
            return Err(AuthError::Denied { error, description });
        }
        let code = code.ok_or_else(|| AuthError::InvalidRedirect {
            reason: "no `code`".to_owned(),
        })?;
        Ok(Self { code, state, iss })
    }
}

/// Visits the authorization URL without a browser: a `GET` whose redirect is read, not
/// followed. Only an authorization server that approves without asking anyone answers it
/// with the redirect.
#[derive(Debug, Clone)]
pub struct HeadlessAuthorize {
    redirect_uri: String,
    http: OnceLock<HttpStack>,
}

impl HeadlessAuthorize {
    /// Registers `redirect_uri` as where the server sends the client back; nothing listens
    /// there.
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        Self {
            redirect_uri: redirect_uri.into(),
            http: OnceLock::new(),
        }
    }
}

impl Authorize for HeadlessAuthorize {
    fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    fn attach(&self, connections: &HttpConnections) {
        let _ = self.http.set(connections.0.clone());
    }

    fn authorize<'a>(
        &'a self,
        url: &'a Url,
    ) -> AuthorizationFuture<'a, Result<AuthorizationResponse, AuthError>> {
        Box::pin(async move {
            let request = Request::get(url.as_str())
                .body(Full::default())
                .map_err(|e| AuthError::InvalidUrl {
                    url: url.to_string(),
                    reason: e.to_string(),
                })?;
            let response = send(connections(&self.http)?, request).await?;
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|l| l.to_str().ok())
                .filter(|_| response.status().is_redirection())
                .ok_or_else(|| AuthError::InvalidRedirect {
                    reason: format!(
                        "the authorization endpoint answered HTTP {} without a redirect",
                        response.status()
                    ),
                })?;
            let redirect = url.join(location).map_err(|e| AuthError::InvalidRedirect {
                reason: e.to_string(),
            })?;
            AuthorizationResponse::from_redirect(&redirect)
        })
    }
}
