//! OAuth 2.1 for the client (feature `oauth`): what a client needs to call an MCP server that
//! answers `401` until it is shown an access token.
//!
//! An [`OAuth`] handed to
//! [`Builder::auth`](crate::transport::http_client::Builder::auth) does what the MCP
//! authorization specification asks of a client, the first time the server refuses a request:
//!
//! 1. [discovery]: the server's Protected Resource Metadata (the challenge's
//!    `resource_metadata`, else the RFC 9728 well-known locations), whose `resource` must be
//!    the server's; then its authorization server's metadata, whose `issuer` must be the one
//!    looked up;
//! 2. the client's identity there: credentials registered beforehand
//!    ([`OAuthBuilder::pre_registered`]), else a Client ID Metadata Document
//!    ([`OAuthBuilder::client_metadata_document`]) where accepted, else Dynamic Client
//!    Registration; a different authorization server means a new identity;
//! 3. the authorization code grant with PKCE (S256), `state`, the RFC 8707 `resource` and the
//!    scopes the challenge names (else those the metadata lists, else none), plus
//!    `offline_access` where offered; the user's step is an [`Authorize`] (the user's browser
//!    and a loopback redirect with [`LoopbackAuthorize`]), and the redirect's `iss` is checked
//!    (RFC 9207);
//! 4. the code exchange, authenticating as the registration says (`client_secret_basic`,
//!    `client_secret_post`, `private_key_jwt` or `none`).
//!
//! A client with no user ([`OAuth::client_credentials`]) replaces steps 2 to 4 with the client
//! credentials grant, authenticating with the [`ClientCredentials`] it was given. Where the
//! authorization server does DPoP (RFC 9449), the tokens are bound to a key the [`OAuth`]
//! makes for itself, and every token and MCP request carries a proof of it
//! ([`OAuthBuilder::dpop`]).
//!
//! Afterwards every request carries the token, which is refreshed before it expires; a
//! `403 insufficient_scope` authorizes again for the scopes asked plus those held, a bounded
//! number of times per request. Grants live in a [`TokenStore`]: [`MemoryTokenStore`] by
//! default, [`FileTokenStore`] to survive a restart. Tokens, secrets and codes never appear in
//! `Debug` output or logs.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use mcp::client::Client;
//! use mcp::client::auth::{FileTokenStore, HeadlessAuthorize, OAuth};
//! use mcp::protocol::Implementation;
//! use mcp::transport::http_client;
//!
//! let oauth = OAuth::builder(HeadlessAuthorize::new("http://127.0.0.1:8976/callback"))
//!     .client_name("my-agent")
//!     .client_metadata_document("https://agent.example.com/client-metadata.json")
//!     .token_store(FileTokenStore::new("tokens.json"))
//!     .build();
//! let duplex = http_client::Builder::new("http://127.0.0.1:8000/mcp").auth(oauth).connect()?;
//! let client = Client::builder(Implementation::new("my-agent", "1.0.0")).connect(duplex);
//! let tools = client.list_tools(None).await?;
//! # Ok(())
//! # }
//! ```
//!
//! Metadata, registration and token requests go out over the endpoint's connections: the
//! same certificate roots (`https://` with feature `tls`), proxies and timeouts as its MCP
//! requests.

mod assertion;
mod authorize;
pub mod discovery;
mod dpop;
mod flow;
mod http;
mod jws;
mod loopback;
mod oauth;
mod registration;
mod store;
mod tokens;

pub use authorize::{AuthorizationResponse, Authorize, HeadlessAuthorize};
pub use loopback::{DEFAULT_SIGN_IN_TIME, LoopbackAuthorize};
pub use oauth::{OAuth, OAuthBuilder};
pub use store::{FileTokenStore, MemoryTokenStore, StoreError, TokenStore};
pub use tokens::{ClientCredentials, Grant, Registration, TokenEndpointAuth, Tokens};
pub use url::Url;

/// Why the client could not obtain an access token.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// A request to an OAuth endpoint or metadata location failed.
    #[error("request to {url} failed: {reason}")]
    Http {
        /// The URL requested.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// A URL from configuration or metadata is not usable.
    #[error("invalid URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A metadata document is not what it should be.
    #[error("the document at {url} is not valid metadata: {reason}")]
    Document {
        /// Where it was fetched.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No Protected Resource Metadata was found.
    #[error("no protected resource metadata found (tried {})", tried.join(", "))]
    NoResourceMetadata {
        /// The locations tried.
        tried: Vec<String>,
    },
    /// The Protected Resource Metadata is for another resource: the client does not proceed.
    #[error("the protected resource metadata is for {resource}, not for {server}")]
    ResourceMismatch {
        /// The metadata's `resource`.
        resource: String,
        /// The server's URL.
        server: String,
    },
    /// The Protected Resource Metadata names no authorization server.
    #[error("the protected resource metadata names no authorization server")]
    NoAuthorizationServer,
    /// No metadata was found for the authorization server.
    #[error("no metadata found for the authorization server {issuer} (tried {})", tried.join(", "))]
    NoServerMetadata {
        /// The issuer looked up.
        issuer: String,
        /// The locations tried.
        tried: Vec<String>,
    },
    /// The authorization server's metadata lacks an endpoint the flow needs.
    #[error("the metadata of {issuer} lacks the authorization or token endpoint")]
    IncompleteMetadata {
        /// The issuer.
        issuer: String,
    },
    /// An issuer (in metadata, or the redirect's `iss`) is not the authorization server's.
    #[error("issuer mismatch: expected {expected:?}, got {found:?}")]
    IssuerMismatch {
        /// The issuer identifier looked up.
        expected: String,
        /// The one received.
        found: String,
    },
    /// The server advertises `iss` on authorization responses but this one had none.
    #[error("the authorization response of {issuer} lacks the `iss` it advertises")]
    MissingIssuer {
        /// The issuer.
        issuer: String,
    },
    /// The authorization server does not support PKCE with S256.
    #[error("the authorization server {issuer} does not support PKCE (S256)")]
    PkceUnsupported {
        /// The issuer.
        issuer: String,
    },
    /// No way to identify the client at this authorization server.
    #[error(
        "no client identity for {issuer}: no pre-registered credentials, no client metadata \
         document it accepts, and no registration endpoint"
    )]
    NoClientIdentity {
        /// The issuer.
        issuer: String,
    },
    /// Dynamic Client Registration failed.
    #[error("client registration failed: {reason}")]
    Registration {
        /// Why.
        reason: String,
    },
    /// The user or the authorization server refused (`error` on the redirect).
    #[error("authorization denied: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Denied {
        /// The OAuth error code.
        error: String,
        /// Its description, if given.
        description: Option<String>,
    },
    /// The redirect back from the authorization server cannot be used.
    #[error("invalid authorization response: {reason}")]
    InvalidRedirect {
        /// Why.
        reason: String,
    },
    /// The redirect's `state` is not the request's: possibly a forged response.
    #[error("the authorization response's state does not match the request")]
    StateMismatch,
    /// The token endpoint refused the request.
    #[error("the token endpoint refused: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    TokenRefused {
        /// The OAuth error code.
        error: String,
        /// Its description, if given.
        description: Option<String>,
    },
    /// The exchange with the token endpoint failed.
    #[error("token request failed: {reason}")]
    TokenExchange {
        /// Why.
        reason: String,
    },
    /// The user-facing step failed in its own way.
    #[error("authorization step failed: {0}")]
    Authorize(#[source] crate::BoxError),
    /// The key of `private_key_jwt` cannot be used.
    #[error("unusable client key: {reason}")]
    InvalidKey {
        /// Why.
        reason: String,
    },
    /// A JWT the client signs (a DPoP proof, a client assertion) could not be made.
    #[error("signing failed: {reason}")]
    Signing {
        /// Why.
        reason: String,
    },
}
