//! The verified identity of a caller.
//!
//! A transport that authenticates requests (an OAuth 2.1 bearer token over HTTP) attaches an
//! [`Identity`] to every request it lets through. Handlers read it from the request context, and
//! the request-state boundary binds every sealed `requestState` to it.

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
