//! The verified caller of a request: what a token verifier reports, what handlers read and what
//! sealed `requestState` is bound to. Public as [`crate::auth::Identity`].

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
