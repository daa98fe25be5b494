//! [`ResourceServer`]: what an MCP endpoint needs to act as an OAuth 2.1 resource server.

use std::fmt;
use std::sync::Arc;

use super::metadata::{InvalidResourceUrl, ProtectedResourceMetadata, ResourceUrl};
use super::token_cache::VerifiedTokens;
use super::{AuthError, Identity, TokenCache, TokenVerifier};

/// An MCP endpoint's authorization: which tokens it accepts, which scopes every request needs,
/// and the RFC 9728 metadata that tells clients where to get a token.
///
/// Give it to [`HttpTransport::auth`](crate::transport::http::HttpTransport::auth) or
/// [`McpServer::auth`](crate::server::McpServer::auth). Every request to the endpoint then needs
/// `Authorization: Bearer <token>`:
///
/// - no token: `401` with `WWW-Authenticate: Bearer resource_metadata="…"`;
/// - a token the verifier rejects: `401` with `error="invalid_token"`;
/// - a token without a required scope: `403` with `error="insufficient_scope"`;
/// - a verifier that cannot decide (its key server is down): `503`.
///
/// A token bound to a key ([`Identity::jkt`]) is refused as a bearer token. With
/// `ResourceServer::dpop` (features `jwt` and `http`) the endpoint takes such tokens as
/// `Authorization: DPoP <token>` with a proof of possession of the key (RFC 9449).
///
/// The metadata document is served without a token at `/.well-known/oauth-protected-resource`
/// and at the form with the endpoint's path appended (`…/oauth-protected-resource/mcp`).
/// Handlers read the verified caller with `Context::identity`, and every sealed `requestState`
/// is bound to its client id, issuer and subject.
///
/// A token the verifier accepted is remembered for a while ([`TokenCache`]), so a client that
/// sends the same token on every request has it verified once: by default for verifiers whose
/// answer depends on the token alone, as `JwtVerifier` ([`TokenVerifier::cache_by_default`]);
/// [`token_cache`](Self::token_cache) turns it on for others (and sets the revocation window)
/// and [`no_token_cache`](Self::no_token_cache) off.
///
/// ```
/// use mcp::auth::{AuthError, Identity, ResourceServer, verify_fn};
///
/// let auth = ResourceServer::new(
///     "https://mcp.example.com/mcp",
///     "https://auth.example.com",
///     verify_fn(|token: String| async move {
///         // Ask the authorization server (token introspection, RFC 7662)…
///         Err::<Identity, _>(AuthError::invalid(format!("unknown token of {} bytes", token.len())))
///     }),
/// )?
/// .require_scopes(["mcp:tools"])
/// .resource_name("Example MCP server");
/// assert_eq!(
///     auth.metadata_url(),
///     "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// # Ok::<(), mcp::auth::InvalidResourceUrl>(())
/// ```
#[derive(Clone)]
pub struct ResourceServer {
    verifier: Arc<dyn TokenVerifier>,
    /// Tokens already verified; shared by clones.
    cache: Option<Arc<VerifiedTokens>>,
    url: ResourceUrl,
    metadata: ProtectedResourceMetadata,
    required_scopes: Vec<String>,
    /// Present when the endpoint takes DPoP-bound tokens.
    #[cfg(feature = "jwt")]
    dpop: Option<super::dpop::Dpop>,
}

/// The scheme of an `Authorization` header the endpoint understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scheme {
    Bearer,
    /// RFC 9449 §7.1: a DPoP-bound token, with its proof in the `DPoP` header.
    Dpop,
}

/// What a request presents, as the transport read it.
#[derive(Debug)]
pub(crate) struct Credentials<'a> {
    /// The access token and its scheme; `None` without an `Authorization` header or with one
    /// of another scheme.
    pub token: Option<(Scheme, &'a str)>,
    /// The `DPoP` header: `Ok(None)` when there is none, `Err` when it is unusable.
    #[cfg(feature = "jwt")]
    pub proof: Result<Option<&'a str>, &'static str>,
    /// The request's method, which the proof names (`htm`).
    #[cfg(feature = "jwt")]
    pub method: &'a str,
}

/// A request let through.
#[derive(Debug)]
pub(crate) struct Admission {
    pub identity: Identity,
    /// The server nonce for the answer's `DPoP-Nonce` header, when proofs need one.
    pub dpop_nonce: Option<String>,
}

/// Why a request was not let through, for the transport to answer in its own terms.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// No token in a scheme the endpoint takes.
    Missing,
    /// The token, presented in this scheme, was rejected.
    Invalid(Scheme),
    /// The token lacks required scopes.
    InsufficientScope(Scheme),
    /// The DPoP proof is missing, malformed, or not for this request (`invalid_dpop_proof`).
    #[cfg(feature = "jwt")]
    InvalidProof,
    /// The DPoP proof lacks a fresh server nonce: this one (`use_dpop_nonce`).
    #[cfg(feature = "jwt")]
    NonceNeeded(String),
    /// The verifier could not decide, or a proof could not be remembered.
    Unavailable,
}

impl ResourceServer {
    /// Protects the MCP endpoint at `resource` (its canonical URL, as clients use it) with
    /// tokens that `authorization_server` issues and `verifier` checks.
    ///
    /// The verifier must check that a token was issued for `resource` (RFC 8707 audience): a
    /// token minted for another server must not be accepted here.
    pub fn new(
        resource: impl Into<String>,
        authorization_server: impl Into<String>,
        verifier: impl TokenVerifier,
    ) -> Result<Self, InvalidResourceUrl> {
        let resource = resource.into();
        let url = ResourceUrl::parse(&resource)?;
        let cache = verifier
            .cache_by_default()
            .then(|| Arc::new(VerifiedTokens::new(TokenCache::new())));
        Ok(Self {
            verifier: Arc::new(verifier),
            cache,
            url,
            metadata: ProtectedResourceMetadata {
                resource,
                authorization_servers: vec![authorization_server.into()],
                scopes_supported: Vec::new(),
                bearer_methods_supported: vec!["header".to_owned()],
                resource_name: None,
                resource_documentation: None,
                dpop_signing_alg_values_supported: Vec::new(),
                dpop_bound_access_tokens_required: false,
            },
            required_scopes: Vec::new(),
            #[cfg(feature = "jwt")]
            dpop: None,
        })
    }

    /// The common case: JWT access tokens that `issuer` signs with `key`, accepted only when
    /// their `iss` is `issuer` and their `aud` includes `resource`.
    ///
    /// ```
    /// use mcp::auth::{JwtKey, ResourceServer};
    ///
    /// let key = JwtKey::hmac(b"a-shared-secret-of-at-least-32-bytes!")?;
    /// let auth = ResourceServer::jwt("https://mcp.example.com/mcp", "https://auth.example.com", key)?;
    /// assert_eq!(auth.metadata().authorization_servers, ["https://auth.example.com"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "jwt")]
    pub fn jwt(
        resource: impl Into<String>,
        issuer: impl Into<String>,
        key: super::JwtKey,
    ) -> Result<Self, InvalidResourceUrl> {
        let resource = resource.into();
        let issuer = issuer.into();
        let verifier = super::JwtVerifier::new(key, issuer.clone(), resource.clone());
        Self::new(resource, issuer, verifier)
    }

    /// Takes DPoP-bound tokens (RFC 9449): `Authorization: DPoP <token>` with a proof in the
    /// `DPoP` header, signed by the key the token is bound to (the verifier reports its
    /// thumbprint as [`Identity::jkt`]; `JwtVerifier` reads it from the `cnf.jkt` claim).
    ///
    /// A proof is accepted when its `typ` is `dpop+jwt`, its `alg` asymmetric, its `jwk` a
    /// public key that verifies its signature and whose thumbprint the token is bound to, its
    /// `htm` the request's method, its `htu` the resource URL (compared in normal form; see
    /// [`DpopSettings::endpoint_url`](super::DpopSettings::endpoint_url)), its `iat` recent,
    /// its `ath` the hash of the token, and its `jti` not seen before.
    ///
    /// - no proof, or a proof that fails a check: `401` with
    ///   `WWW-Authenticate: DPoP error="invalid_dpop_proof", …, algs="ES256 …"`;
    /// - an unbound token, or a proof by another key than the token's: `error="invalid_token"`;
    /// - a proof without a fresh nonce, when nonces are on: `error="use_dpop_nonce"` and a
    ///   `DPoP-Nonce` header;
    /// - a full replay cache: `503`.
    ///
    /// Challenges offer every scheme the endpoint takes, the one the request used first. The
    /// metadata lists the proof algorithms (`dpop_signing_alg_values_supported`) and, under
    /// [`DpopPolicy::Required`](super::DpopPolicy::Required), says
    /// `dpop_bound_access_tokens_required`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp::auth::{DpopPolicy, DpopSettings, JwtKey, ResourceServer};
    ///
    /// # const PUBLIC_KEY: &str = "-----BEGIN PUBLIC KEY-----
    /// # MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEUEFssLiLj23R4sArZaQRWOX3Bo6E
    /// # 5lT0QJqOCVGl0PrDBmoATB+2p6XEakirn3l/M0s94vS3zr3fqtz79Es/ew==
    /// # -----END PUBLIC KEY-----";
    /// let key = JwtKey::ec_pem(PUBLIC_KEY)?;
    /// // Bound tokens with their proofs, and still unbound bearer tokens.
    /// let both = ResourceServer::jwt("https://mcp.example.com/mcp", "https://auth.example.com", key.clone())?
    ///     .dpop(DpopPolicy::Allowed);
    /// assert!(!both.metadata().dpop_bound_access_tokens_required);
    ///
    /// // Bound tokens only, with younger proofs.
    /// let bound = ResourceServer::jwt("https://mcp.example.com/mcp", "https://auth.example.com", key)?
    ///     .dpop(DpopSettings::new(DpopPolicy::Required).max_proof_age(Duration::from_secs(30)));
    /// assert!(bound.metadata().dpop_bound_access_tokens_required);
    /// assert!(bound.metadata().dpop_signing_alg_values_supported.contains(&"ES256".to_owned()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "jwt")]
    pub fn dpop(mut self, settings: impl Into<super::DpopSettings>) -> Self {
        let dpop = super::dpop::Dpop::new(settings.into(), &self.url);
        self.metadata.dpop_signing_alg_values_supported =
            dpop.algorithm_names().map(str::to_owned).collect();
        self.metadata.dpop_bound_access_tokens_required = dpop.requires_bound_tokens();
        self.dpop = Some(dpop);
        self
    }

    /// Remembers verified tokens as `settings` say, whatever the verifier: each is let through
    /// without asking the verifier again until it expires or `settings`' max age has passed.
    /// For a verifier that asks the authorization server, that max age is how late a
    /// revocation is noticed.
    pub fn token_cache(mut self, settings: TokenCache) -> Self {
        self.cache = Some(Arc::new(VerifiedTokens::new(settings)));
        self
    }

    /// Verifies every token on every request, even for a verifier that is cached by default.
    ///
    /// ```
    /// use mcp::auth::{JwtKey, ResourceServer};
    ///
    /// let key = JwtKey::hmac(b"a-shared-secret-of-at-least-32-bytes!")?;
    /// let cached = ResourceServer::jwt("https://mcp.example.com/mcp", "https://auth.example.com", key)?;
    /// assert!(cached.token_cache_settings().is_some());
    /// assert!(cached.no_token_cache().token_cache_settings().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn no_token_cache(mut self) -> Self {
        self.cache = None;
        self
    }

    /// How verified tokens are remembered; `None` when every request verifies its token.
    pub fn token_cache_settings(&self) -> Option<TokenCache> {
        self.cache.as_ref().map(|cache| cache.settings())
    }

    /// Lists another authorization server in the metadata.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.metadata.authorization_servers.push(issuer.into());
        self
    }

    /// Scopes every request needs; a token without all of them gets `403 insufficient_scope`.
    /// They are also advertised in the metadata and in the `401` challenge, so clients ask for
    /// them up front.
    pub fn require_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for scope in scopes.into_iter().map(Into::into) {
            self.advertise(&scope);
            self.required_scopes.push(scope);
        }
        self
    }

    /// Scopes advertised in the metadata (`scopes_supported`) besides the required ones.
    pub fn scopes_supported<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for scope in scopes.into_iter().map(Into::into) {
            self.advertise(&scope);
        }
        self
    }

    /// A human-readable name of the resource, for consent screens (`resource_name`).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.metadata.resource_name = Some(name.into());
        self
    }

    /// A documentation page for developers (`resource_documentation`).
    pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
        self.metadata.resource_documentation = Some(url.into());
        self
    }

    /// The RFC 9728 document served at the well-known paths.
    pub fn metadata(&self) -> &ProtectedResourceMetadata {
        &self.metadata
    }

    /// The absolute URL of the metadata document: the well-known prefix inserted before the
    /// resource's path (RFC 9728 §3.1), as sent in `WWW-Authenticate`.
    pub fn metadata_url(&self) -> String {
        self.url.metadata_url()
    }

    /// The scopes every request needs.
    pub fn required_scopes(&self) -> &[String] {
        &self.required_scopes
    }

    pub(crate) fn resource_url(&self) -> &ResourceUrl {
        &self.url
    }

    /// Whether the endpoint takes unbound tokens as `Authorization: Bearer`.
    pub(crate) fn takes_bearer(&self) -> bool {
        #[cfg(feature = "jwt")]
        if let Some(dpop) = &self.dpop {
            return dpop.takes_bearer();
        }
        true
    }

    /// The `algs` of the endpoint's DPoP challenge, when it takes DPoP-bound tokens.
    pub(crate) fn dpop_algs(&self) -> Option<String> {
        #[cfg(feature = "jwt")]
        if let Some(dpop) = &self.dpop {
            return Some(dpop.algorithm_names().collect::<Vec<_>>().join(" "));
        }
        None
    }

    fn advertise(&mut self, scope: &str) {
        if !self.metadata.scopes_supported.iter().any(|s| s == scope) {
            self.metadata.scopes_supported.push(scope.to_owned());
        }
    }

    /// Checks the credentials of a request: the token in a scheme the endpoint takes, its
    /// proof for the DPoP scheme, the required scopes. Reasons are logged here; the caller only
    /// learns the kind of refusal.
    pub(crate) async fn authenticate(
        &self,
        credentials: Credentials<'_>,
    ) -> Result<Admission, Refusal> {
        match credentials.token {
            None => {
                tracing::debug!("refused a request without an access token");
                Err(Refusal::Missing)
            }
            Some((Scheme::Bearer, _)) if !self.takes_bearer() => {
                tracing::debug!(
                    "refused a bearer token: this endpoint takes DPoP-bound tokens only"
                );
                Err(Refusal::Missing)
            }
            Some((Scheme::Bearer, token)) => {
                let identity = self.verify(token, Scheme::Bearer).await?;
                if identity.jkt.is_some() {
                    tracing::info!("refused a DPoP-bound token presented as a bearer token");
                    return Err(Refusal::Invalid(Scheme::Bearer));
                }
                let identity = self.check_scopes(identity, Scheme::Bearer)?;
                Ok(Admission {
                    identity,
                    dpop_nonce: None,
                })
            }
            #[cfg(feature = "jwt")]
            Some((Scheme::Dpop, token)) => self.authenticate_dpop(token, &credentials).await,
            #[cfg(not(feature = "jwt"))]
            Some((Scheme::Dpop, _)) => {
                tracing::debug!("refused a DPoP token: DPoP needs the `jwt` feature");
                Err(Refusal::Missing)
            }
        }
    }

    /// The DPoP scheme: the proof alone, then the token, then what binds them.
    #[cfg(feature = "jwt")]
    async fn authenticate_dpop(
        &self,
        token: &str,
        credentials: &Credentials<'_>,
    ) -> Result<Admission, Refusal> {
        let Some(dpop) = &self.dpop else {
            tracing::debug!("refused a DPoP token: this endpoint takes bearer tokens only");
            return Err(Refusal::Missing);
        };
        let proof = dpop.check_proof(credentials.proof, credentials.method)?;
        let identity = self.verify(token, Scheme::Dpop).await?;
        dpop.check_binding(&proof, token, &identity)?;
        let identity = self.check_scopes(identity, Scheme::Dpop)?;
        Ok(Admission {
            identity,
            dpop_nonce: dpop.fresh_nonce(),
        })
    }

    /// The token's verification, from the cache when it has the token. Only this is cached:
    /// the scopes, and for DPoP the proof and its binding to the token, are checked on every
    /// request by the callers.
    async fn verify(&self, token: &str, scheme: Scheme) -> Result<Identity, Refusal> {
        let verified = match &self.cache {
            Some(cache) => cache.verify(self.verifier.as_ref(), token).await,
            None => self.verifier.verify(token).await,
        };
        match verified {
            Ok(identity) => Ok(identity),
            Err(AuthError::Invalid(reason)) => {
                tracing::info!(%reason, ?scheme, "refused an invalid access token");
                Err(Refusal::Invalid(scheme))
            }
            Err(AuthError::Unavailable(cause)) => {
                tracing::error!(error = %cause, "cannot verify access tokens");
                Err(Refusal::Unavailable)
            }
        }
    }

    fn check_scopes(&self, identity: Identity, scheme: Scheme) -> Result<Identity, Refusal> {
        let missing: Vec<&str> = self
            .required_scopes
            .iter()
            .filter(|required| !identity.scopes.contains(required))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            tracing::info!(
                subject = identity.subject.as_deref().unwrap_or_default(),
                ?missing,
                "refused a token without the required scopes"
            );
            return Err(Refusal::InsufficientScope(scheme));
        }
        Ok(identity)
    }
}

impl fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("ResourceServer");
        debug
            .field("metadata", &self.metadata)
            .field("required_scopes", &self.required_scopes)
            .field("token_cache", &self.token_cache_settings());
        #[cfg(feature = "jwt")]
        debug.field("dpop", &self.dpop);
        debug.finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::verify_fn;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn server() -> ResourceServer {
        let verifier = verify_fn(|token: String| async move {
            match token.as_str() {
                "reader" => Ok(Identity {
                    scopes: vec!["read".into()],
                    ..Identity::default()
                }),
                "writer" => Ok(Identity {
                    scopes: vec!["read".into(), "write".into()],
                    ..Identity::default()
                }),
                "outage" => Err(AuthError::unavailable("the key server is down")),
                _ => Err(AuthError::invalid("unknown")),
            }
        });
        ResourceServer::new(
            "https://mcp.example.com/mcp",
            "https://as.example.com",
            verifier,
        )
        .expect("valid URL")
        .scopes_supported(["read", "admin"])
        .require_scopes(["read", "write"])
    }

    fn presenting(scheme: Scheme, token: Option<&str>) -> Credentials<'_> {
        Credentials {
            token: token.map(|token| (scheme, token)),
            #[cfg(feature = "jwt")]
            proof: Ok(None),
            #[cfg(feature = "jwt")]
            method: "POST",
        }
    }

    async fn bearer(server: &ResourceServer, token: Option<&str>) -> Result<Admission, Refusal> {
        server.authenticate(presenting(Scheme::Bearer, token)).await
    }

    #[tokio::test]
    async fn each_kind_of_refusal_is_told_apart() {
        let server = server();
        assert!(matches!(bearer(&server, None).await, Err(Refusal::Missing)));
        assert!(matches!(
            bearer(&server, Some("forged")).await,
            Err(Refusal::Invalid(Scheme::Bearer))
        ));
        assert!(matches!(
            bearer(&server, Some("reader")).await,
            Err(Refusal::InsufficientScope(Scheme::Bearer))
        ));
        assert!(matches!(
            bearer(&server, Some("outage")).await,
            Err(Refusal::Unavailable)
        ));
        assert!(bearer(&server, Some("writer")).await.is_ok());
    }

    #[tokio::test]
    async fn a_bound_token_is_no_bearer_token_and_dpop_is_off_by_default() {
        let verifier = verify_fn(|_token: String| async {
            Ok(Identity::default().with_jkt("0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"))
        });
        let server = ResourceServer::new(
            "https://mcp.example.com/mcp",
            "https://as.example.com",
            verifier,
        )
        .expect("valid URL");
        assert!(matches!(
            bearer(&server, Some("bound")).await,
            Err(Refusal::Invalid(Scheme::Bearer))
        ));
        // Without `dpop`, the DPoP scheme is one the endpoint does not take: as if no token.
        assert!(matches!(
            server
                .authenticate(presenting(Scheme::Dpop, Some("bound")))
                .await,
            Err(Refusal::Missing)
        ));
        assert_eq!(server.dpop_algs(), None);
        assert!(server.takes_bearer());
    }

    /// A verifier that counts its calls; every token is a reader's.
    fn counting() -> (Arc<AtomicUsize>, impl TokenVerifier) {
        let calls = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&calls);
        let verifier = verify_fn(move |_token: String| {
            counter.fetch_add(1, Ordering::SeqCst);
            async {
                Ok(Identity {
                    scopes: vec!["read".into()],
                    ..Identity::default()
                })
            }
        });
        (calls, verifier)
    }

    fn protecting(verifier: impl TokenVerifier) -> ResourceServer {
        ResourceServer::new(
            "https://mcp.example.com/mcp",
            "https://as.example.com",
            verifier,
        )
        .expect("valid URL")
    }

    #[tokio::test]
    async fn other_verifiers_are_cached_only_when_asked_and_scopes_are_checked_each_time() {
        let (calls, verifier) = counting();
        let uncached = protecting(verifier);
        assert_eq!(uncached.token_cache_settings(), None);
        for _ in 0..2 {
            assert!(bearer(&uncached, Some("t")).await.is_ok());
        }
        assert_eq!(calls.load(Ordering::SeqCst), 2);

        let (calls, verifier) = counting();
        let cached = protecting(verifier)
            .token_cache(TokenCache::new())
            .require_scopes(["write"]);
        for _ in 0..3 {
            assert!(matches!(
                bearer(&cached, Some("t")).await,
                Err(Refusal::InsufficientScope(Scheme::Bearer))
            ));
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // Clones (one per transport) share what was verified.
        assert!(bearer(&cached.clone(), Some("t")).await.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        let (calls, verifier) = counting();
        let off = protecting(verifier)
            .token_cache(TokenCache::new())
            .no_token_cache();
        for _ in 0..2 {
            assert!(bearer(&off, Some("t")).await.is_ok());
        }
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[cfg(feature = "jwt")]
    #[test]
    fn jwt_verifiers_are_cached_by_default() {
        let key = || crate::auth::JwtKey::hmac([7u8; 32]).expect("key");
        let jwt = ResourceServer::jwt(
            "https://mcp.example.com/mcp",
            "https://as.example.com",
            key(),
        )
        .expect("valid URL");
        assert_eq!(jwt.token_cache_settings(), Some(TokenCache::new()));
        let verifier = crate::auth::JwtVerifier::new(key(), "https://as.example.com", "aud");
        let shared = protecting(Arc::new(verifier));
        assert_eq!(shared.token_cache_settings(), Some(TokenCache::new()));
    }

    #[test]
    fn required_scopes_are_advertised_once() {
        assert_eq!(
            server().metadata().scopes_supported,
            ["read", "admin", "write"]
        );
    }
}
