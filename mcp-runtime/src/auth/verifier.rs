//! The hook that turns a bearer token into an [`Identity`], and how it says no.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use crate::boxed::BoxError;
use crate::identity::Identity;

/// What [`TokenVerifier::verify`] returns: a boxed future, so verifiers can be shared as
/// `Arc<dyn TokenVerifier>`.
pub type VerifyFuture<'a> = Pin<Box<dyn Future<Output = Result<Identity, AuthError>> + Send + 'a>>;

/// Checks an OAuth 2.1 access token and reports who it was issued for.
///
/// The HTTP transport calls it on every request that carries `Authorization: Bearer …`. A
/// verifier must report the same client id, issuer and subject on every token of one caller:
/// they are the principal that sealed `requestState` is bound to.
///
/// `JwtVerifier` (feature `jwt`) verifies signed JWTs; implement this
/// trait for anything else (token introspection, a session store), or wrap a closure with
/// [`verify_fn`].
///
/// ```
/// use mcp::auth::{AuthError, Identity, TokenVerifier, VerifyFuture};
///
/// /// Accepts exactly one static token (a test double).
/// struct OneToken(String);
///
/// impl TokenVerifier for OneToken {
///     fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
///         Box::pin(async move {
///             if token != self.0 {
///                 return Err(AuthError::invalid("unknown token"));
///             }
///             Ok(Identity { subject: Some("tester".into()), ..Identity::default() })
///         })
///     }
/// }
/// ```
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verifies `token` (the bearer credential, without the `Bearer ` prefix).
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a>;

    /// Whether a `ResourceServer` puts a `TokenCache` in front of this verifier unless told
    /// otherwise (`ResourceServer::token_cache`, `ResourceServer::no_token_cache`).
    ///
    /// `true` fits a verifier whose answer depends on nothing but the token and the clock, as
    /// a signature check (`JwtVerifier`): remembering the answer until the token expires then
    /// changes what it costs, not what it accepts. `false`, the default, fits one that asks
    /// the authorization server (introspection): there a cache would keep accepting a revoked
    /// token for up to its max age, a window for the application to choose.
    fn cache_by_default(&self) -> bool {
        false
    }
}

/// Why a token was not accepted.
///
/// The two cases get different answers: an invalid token is the client's problem (`401`, so it
/// fetches a new token), an unavailable verifier is the server's (`503`, so it does not throw
/// away a good token). Neither reason is sent to the client; both are logged.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The token is not acceptable: malformed, badly signed, expired, not yet valid, from
    /// another issuer, for another audience, revoked.
    #[error("invalid token: {0}")]
    Invalid(String),
    /// The verifier could not decide: its key server or introspection endpoint is down.
    #[error("token verification is unavailable: {0}")]
    Unavailable(#[source] BoxError),
}

impl AuthError {
    /// An invalid token, with the reason for the log.
    pub fn invalid(reason: impl fmt::Display) -> Self {
        Self::Invalid(reason.to_string())
    }

    /// A verifier outage, with its cause for the log.
    pub fn unavailable(cause: impl Into<BoxError>) -> Self {
        Self::Unavailable(cause.into())
    }
}

/// A [`TokenVerifier`] made from an async closure; see [`verify_fn`].
pub struct FnVerifier<F>(F);

impl<F> fmt::Debug for FnVerifier<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FnVerifier")
    }
}

/// Wraps an async closure from the token to an [`Identity`] as a [`TokenVerifier`].
///
/// ```
/// use mcp::auth::{AuthError, Identity, verify_fn};
///
/// let verifier = verify_fn(|token: String| async move {
///     match token.as_str() {
///         "alice-token" => Ok(Identity { subject: Some("alice".into()), ..Identity::default() }),
///         _ => Err(AuthError::invalid("unknown token")),
///     }
/// });
/// # let _ = verifier;
/// ```
pub fn verify_fn<F, Fut>(f: F) -> FnVerifier<F>
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Identity, AuthError>> + Send + 'static,
{
    FnVerifier(f)
}

impl<F, Fut> TokenVerifier for FnVerifier<F>
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Identity, AuthError>> + Send + 'static,
{
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin((self.0)(token.to_owned()))
    }
}

/// A shared verifier is a verifier, so one instance can serve several transports.
impl<T: TokenVerifier + ?Sized> TokenVerifier for std::sync::Arc<T> {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        (**self).verify(token)
    }

    fn cache_by_default(&self) -> bool {
        (**self).cache_by_default()
    }
}
