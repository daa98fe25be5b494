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
    /// The key the token is bound to, for a DPoP-bound token (RFC 9449 §6): its `cnf.jkt`, the
    /// base64url SHA-256 thumbprint of the client's public key (RFC 7638).
    ///
    /// A token bound to a key is only worth something together with a proof signed by that key:
    /// the endpoint refuses it as a bearer token, and takes it as `Authorization: DPoP` only
    /// with a proof whose key has this thumbprint. It is not part of the principal that sealed
    /// `requestState` is bound to, so a client that rotates its key keeps its calls.
    pub jkt: Option<String>,
}

impl Identity {
    /// The same identity, bound to the key whose thumbprint is `jkt` (see [`jkt`](Self::jkt)):
    /// what a verifier reports for a DPoP-bound token, from the token's `cnf.jkt` claim or the
    /// `cnf` member of an introspection answer.
    ///
    /// ```
    /// use mcp::auth::{AuthError, Identity, verify_fn};
    ///
    /// let verifier = verify_fn(|token: String| async move {
    ///     // An introspection answer, say: {"active": true, "sub": "alice", "cnf": {"jkt": "…"}}
    ///     match token.as_str() {
    ///         "alice-bound" => Ok(Identity { subject: Some("alice".into()), ..Identity::default() }
    ///             .with_jkt("0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")),
    ///         _ => Err(AuthError::invalid("unknown token")),
    ///     }
    /// });
    /// # let _ = verifier;
    /// ```
    pub fn with_jkt(mut self, jkt: impl Into<String>) -> Self {
        self.jkt = Some(jkt.into());
        self
    }
}
