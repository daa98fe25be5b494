//! Authorization: the MCP endpoint as an OAuth 2.1 resource server.
//!
//! - `ResourceServer` (feature `http`): which tokens an endpoint accepts, which scopes it
//!   requires, and its RFC 9728 metadata; give it to the HTTP transport.
//! - [`TokenVerifier`]: the hook that checks a bearer token and reports the caller's
//!   [`Identity`]; `JwtVerifier` (feature `jwt`) checks signed JWTs, [`verify_fn`] wraps a
//!   closure.
//! - [`Identity`]: the verified caller, which handlers read from their context and every sealed
//!   `requestState` is bound to.

#[cfg(feature = "jwt")]
mod jwt;
// What an endpoint publishes and enforces only exists where there is an HTTP endpoint.
#[cfg(feature = "http")]
mod metadata;
#[cfg(feature = "http")]
mod resource_server;
mod verifier;

#[cfg(feature = "jwt")]
pub use jwt::{DEFAULT_LEEWAY, JwtAlgorithm, JwtKey, JwtKeyError, JwtVerifier};
#[cfg(feature = "http")]
pub use metadata::{InvalidResourceUrl, ProtectedResourceMetadata, WELL_KNOWN_PATH};
#[cfg(feature = "http")]
pub(crate) use resource_server::Refusal;
#[cfg(feature = "http")]
pub use resource_server::ResourceServer;
pub use verifier::{AuthError, FnVerifier, TokenVerifier, VerifyFuture, verify_fn};

/// Who a request comes from, as established by a token verifier.
///
/// Every part is optional because verifiers differ in what they report; a verifier must report
/// the same parts on every request of one caller, or sealed state minted on one request will not
/// verify on the next.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// The OAuth client the token was issued to.
    pub client_id: Option<String>,
    /// The token's issuer (`iss`).
    pub issuer: Option<String>,
    /// The end user the token speaks for (`sub`).
    pub subject: Option<String>,
    /// Granted scopes.
    pub scopes: Vec<String>,
    /// Expiry of the token, in Unix seconds.
    pub expires_at: Option<u64>,
}
