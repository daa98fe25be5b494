//! Authorization: the MCP endpoint as an OAuth 2.1 resource server.
//!
//! - `ResourceServer` (feature `http`): which tokens an endpoint accepts, which scopes it
//!   requires, and its RFC 9728 metadata; give it to the HTTP transport.
//! - [`TokenVerifier`]: the hook that checks an access token and reports the caller's
//!   [`Identity`]; `JwtVerifier` (feature `jwt`) checks signed JWTs, [`verify_fn`] wraps a
//!   closure.
//! - `TokenCache` (feature `http`): how long and how many verified tokens an endpoint
//!   remembers, so a token sent with every request is verified once.
//! - `DpopSettings` (features `http` and `jwt`): DPoP-bound tokens (RFC 9449), presented with
//!   a proof of possession of the key they are bound to.
//! - [`Identity`]: the verified caller, which handlers read from their context and every sealed
//!   `requestState` is bound to.

// DPoP proofs are JWTs, checked by the library that checks JWT access tokens, for requests
// to an HTTP endpoint.
#[cfg(all(feature = "http", feature = "jwt"))]
mod dpop;
#[cfg(feature = "jwt")]
mod jwt;
#[cfg(feature = "jwt")]
mod jwt_crypto;
// What an endpoint publishes and enforces only exists where there is an HTTP endpoint.
#[cfg(feature = "http")]
mod metadata;
#[cfg(feature = "http")]
mod resource_server;
// Only an HTTP endpoint verifies tokens, once per request.
#[cfg(feature = "http")]
mod token_cache;
mod verifier;

// The OAuth client signs its own DPoP proofs with these.
#[cfg(feature = "oauth")]
pub(crate) use dpop::token_hash;
#[cfg(all(feature = "http", feature = "jwt"))]
pub use dpop::{
    DEFAULT_DPOP_PROOF_AGE, DEFAULT_DPOP_REPLAY_CAPACITY, DpopNonces, DpopPolicy, DpopSettings,
    NonceSecretTooShort,
};
#[cfg(feature = "oauth")]
pub(crate) use jwt::install_crypto_provider;
#[cfg(feature = "jwt")]
pub use jwt::{DEFAULT_LEEWAY, JwtAlgorithm, JwtKey, JwtKeyError, JwtVerifier};
#[cfg(feature = "http")]
pub use metadata::{InvalidResourceUrl, ProtectedResourceMetadata, WELL_KNOWN_PATH};
#[cfg(feature = "http")]
pub use resource_server::ResourceServer;
#[cfg(feature = "http")]
pub(crate) use resource_server::{Admission, Credentials, Refusal, Scheme};
#[cfg(feature = "http")]
pub use token_cache::{DEFAULT_TOKEN_CACHE_CAPACITY, DEFAULT_TOKEN_CACHE_MAX_AGE, TokenCache};
pub use verifier::{AuthError, FnVerifier, TokenVerifier, VerifyFuture, verify_fn};

pub use crate::identity::Identity;
