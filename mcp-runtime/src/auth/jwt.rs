//! [`JwtVerifier`]: a [`TokenVerifier`] for JWT access tokens signed with a configured key.
//!
//! Signature checks are the `jsonwebtoken` crate's (RustCrypto backend, ECDSA through `ring`:
//! see `jwt_crypto`); this module chooses what to require and maps the claims to an
//! [`Identity`].

use std::collections::HashSet;
use std::fmt;
use std::time::Duration;

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use super::{AuthError, Identity, TokenVerifier, VerifyFuture};
use crate::state::MIN_SECRET_LEN;

/// A JWT signature algorithm (re-exported from `jsonwebtoken`).
pub use jsonwebtoken::Algorithm as JwtAlgorithm;

/// The clock skew tolerated on `exp` and `nbf` by default.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);

/// The key tokens are verified with, and so the family of algorithms they may be signed with.
///
/// There is no way to accept unsigned (`alg: none`) tokens, and a key of one family never
/// verifies a token of another (an RSA public key cannot be misused as an HMAC secret).
#[derive(Clone)]
pub struct JwtKey {
    key: DecodingKey,
    algorithms: Vec<Algorithm>,
}

/// Why a key or an algorithm choice is unusable.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JwtKeyError {
    /// An HMAC secret shorter than [`MIN_SECRET_LEN`] bytes.
    #[error("an HMAC secret needs at least {MIN_SECRET_LEN} bytes, this one has {0}")]
    ShortSecret(usize),
    /// The PEM does not hold a public key of the expected kind.
    #[error("not a usable {kind} public key: {source}")]
    Pem {
        /// `RSA`, `EC` or `Ed25519`.
        kind: &'static str,
        /// What the parser said.
        source: jsonwebtoken::errors::Error,
    },
    /// An algorithm the key cannot verify.
    #[error("a {family:?} key cannot verify {algorithm:?} signatures")]
    AlgorithmNotForKey {
        /// The algorithm asked for.
        algorithm: Algorithm,
        /// The key's family.
        family: jsonwebtoken::AlgorithmFamily,
    },
}

impl JwtKey {
    /// A shared HMAC secret (at least 32 bytes): HS256, HS384 and HS512.
    pub fn hmac(secret: impl AsRef<[u8]>) -> Result<Self, JwtKeyError> {
        let secret = secret.as_ref();
        if secret.len() < MIN_SECRET_LEN {
            return Err(JwtKeyError::ShortSecret(secret.len()));
        }
        let key =
            DecodingKey::from_secret(secret).map_err(|_| JwtKeyError::ShortSecret(secret.len()))?;
        Ok(Self::of(key))
    }

    /// An RSA public key in PEM (`BEGIN PUBLIC KEY` or `BEGIN RSA PUBLIC KEY`): RS256–RS512 and
    /// PS256–PS512.
    pub fn rsa_pem(pem: impl AsRef<[u8]>) -> Result<Self, JwtKeyError> {
        DecodingKey::from_rsa_pem(pem.as_ref())
            .map(Self::of)
            .map_err(|source| JwtKeyError::Pem {
                kind: "RSA",
                source,
            })
    }

    /// An ECDSA public key in PEM (P-256 or P-384): ES256 and ES384.
    pub fn ec_pem(pem: impl AsRef<[u8]>) -> Result<Self, JwtKeyError> {
        DecodingKey::from_ec_pem(pem.as_ref())
            .map(Self::of)
            .map_err(|source| JwtKeyError::Pem { kind: "EC", source })
    }

    /// An Ed25519 public key in PEM: EdDSA.
    pub fn ed_pem(pem: impl AsRef<[u8]>) -> Result<Self, JwtKeyError> {
        DecodingKey::from_ed_pem(pem.as_ref())
            .map(Self::of)
            .map_err(|source| JwtKeyError::Pem {
                kind: "Ed25519",
                source,
            })
    }

    fn of(key: DecodingKey) -> Self {
        let algorithms = key.family().algorithms().to_vec();
        Self { key, algorithms }
    }
}

impl fmt::Debug for JwtKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the key material: an HMAC key is a secret.
        f.debug_struct("JwtKey")
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
}

/// Verifies JWT access tokens: signature, `exp` (required), `nbf` (when present), `iss` and
/// `aud` (both required and checked), with a small leeway for clock skew.
///
/// The identity comes from the claims: `sub` → subject, `iss` → issuer, `client_id` (RFC 9068)
/// or else `azp` → client id, `scope` (space-separated) or `scp` (a list or a string) → scopes,
/// `exp` → expiry, `cnf.jkt` → the key a DPoP-bound token is bound to ([`Identity::jkt`]). A
/// token with a `cnf` claim but no `jkt` in it (bound to a TLS client certificate, RFC 8705) is
/// refused: its binding cannot be checked here, and taking it as a bearer token would undo it. The audience should be the MCP endpoint's canonical URL (RFC 8707), so a
/// token minted for another server is refused here; `ResourceServer::jwt` sets it so.
///
/// ```
/// use std::time::Duration;
/// use mcp::auth::{JwtAlgorithm, JwtKey, JwtVerifier};
///
/// const PUBLIC_KEY: &str = "-----BEGIN PUBLIC KEY-----
/// MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEUEFssLiLj23R4sArZaQRWOX3Bo6E
/// 5lT0QJqOCVGl0PrDBmoATB+2p6XEakirn3l/M0s94vS3zr3fqtz79Es/ew==
/// -----END PUBLIC KEY-----";
///
/// let verifier = JwtVerifier::new(
///     JwtKey::ec_pem(PUBLIC_KEY)?,
///     "https://auth.example.com",
///     "https://mcp.example.com/mcp",
/// )
/// .algorithms([JwtAlgorithm::ES256])?
/// .leeway(Duration::from_secs(10));
/// # let _ = verifier;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct JwtVerifier {
    key: DecodingKey,
    validation: Validation,
}

impl JwtVerifier {
    /// Accepts tokens signed with `key`, issued by `issuer`, for `audience`.
    pub fn new(key: JwtKey, issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        install_crypto_provider();
        let mut validation = Validation::new(Algorithm::HS256);
        validation.algorithms = key.algorithms;
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.set_issuer(&[issuer.into()]);
        validation.set_audience(&[audience.into()]);
        validation.validate_nbf = true;
        validation.leeway = DEFAULT_LEEWAY.as_secs();
        Self {
            key: key.key,
            validation,
        }
    }

    /// Narrows the accepted algorithms (default, and for an empty list: every algorithm of the
    /// key's family).
    pub fn algorithms(
        mut self,
        algorithms: impl IntoIterator<Item = Algorithm>,
    ) -> Result<Self, JwtKeyError> {
        let family = self.key.family();
        let chosen: Vec<Algorithm> = algorithms.into_iter().collect();
        if let Some(&algorithm) = chosen.iter().find(|a| a.family() != family) {
            return Err(JwtKeyError::AlgorithmNotForKey { algorithm, family });
        }
        if !chosen.is_empty() {
            self.validation.algorithms = chosen;
        }
        Ok(self)
    }

    /// The clock skew tolerated on `exp` and `nbf` (default [`DEFAULT_LEEWAY`]).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.validation.leeway = leeway.as_secs();
        self
    }

    /// Also accepts tokens from `issuer` (an authorization server that rotated its issuer URL).
    pub fn also_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.validation
            .iss
            .get_or_insert_with(HashSet::new)
            .insert(issuer.into());
        self
    }

    fn check(&self, token: &str) -> Result<Identity, AuthError> {
        let data = jsonwebtoken::decode::<Claims>(token, &self.key, &self.validation)
            .map_err(AuthError::invalid)?;
        data.claims.into_identity()
    }
}

impl fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("algorithms", &self.validation.algorithms)
            .field("issuer", &self.validation.iss)
            .field("audience", &self.validation.aud)
            .field("leeway", &self.validation.leeway)
            .finish_non_exhaustive()
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        // A signature check takes microseconds: no need for a blocking pool.
        Box::pin(std::future::ready(self.check(token)))
    }

    /// A JWT's verdict depends on the token and the clock alone (the key is fixed), so
    /// remembering it until the token expires changes nothing but the cost.
    fn cache_by_default(&self) -> bool {
        true
    }
}

/// Installs our provider (`jwt_crypto`) as `jsonwebtoken`'s, once per process, before the
/// runtime signs or verifies anything. An application that installed a provider of its own
/// first keeps it. Not asked first whether one is installed: asking installs the provider of
/// `jsonwebtoken`'s features for good.
pub(crate) fn install_crypto_provider() {
    // Failing means a provider is installed already, which is all this needs.
    let _ = super::jwt_crypto::provider().install_default();
}

/// The claims an identity is made of; `jsonwebtoken` has already checked `exp`, `nbf`, `iss`
/// and `aud` by the time these are read.
#[derive(Deserialize)]
struct Claims {
    iss: Option<String>,
    sub: Option<String>,
    /// A NumericDate, which may have a fraction.
    exp: Option<f64>,
    client_id: Option<String>,
    azp: Option<String>,
    scope: Option<String>,
    scp: Option<Scopes>,
    cnf: Option<Confirmation>,
}

/// The `cnf` claim (RFC 7800): the key the token is bound to.
#[derive(Deserialize)]
struct Confirmation {
    /// The RFC 7638 thumbprint of a DPoP key (RFC 9449 §6.1).
    jkt: Option<String>,
}

/// `scp` as identity providers write it: a list, or a space-separated string.
#[derive(Deserialize)]
#[serde(untagged)]
enum Scopes {
    List(Vec<String>),
    Text(String),
}

impl Claims {
    fn into_identity(self) -> Result<Identity, AuthError> {
        let scopes = match (self.scope, self.scp) {
            (Some(text), _) | (None, Some(Scopes::Text(text))) => {
                text.split_whitespace().map(str::to_owned).collect()
            }
            (None, Some(Scopes::List(list))) => list,
            (None, None) => Vec::new(),
        };
        let jkt = match self.cnf {
            None => None,
            Some(Confirmation { jkt: Some(jkt) }) => Some(jkt),
            Some(Confirmation { jkt: None }) => {
                return Err(AuthError::invalid(
                    "bound by a `cnf` confirmation other than a DPoP key (jkt)",
                ));
            }
        };
        Ok(Identity {
            client_id: self.client_id.or(self.azp),
            issuer: self.iss,
            subject: self.sub,
            scopes,
            // Saturating: a negative or absurd expiry has already failed validation.
            expires_at: self.exp.map(|exp| exp as u64),
            jkt,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header, encode};
    use serde_json::{Value, json};

    const SECRET: &[u8] = b"a-test-secret-of-at-least-32-bytes!!";
    const ISSUER: &str = "https://auth.example.com";
    const AUDIENCE: &str = "https://mcp.example.com/mcp";

    fn now() -> u64 {
        jsonwebtoken::get_current_timestamp()
    }

    fn sign(claims: &Value) -> String {
        install_crypto_provider();
        let key = EncodingKey::from_secret(SECRET).expect("key");
        encode(&Header::new(Algorithm::HS256), claims, &key).expect("sign")
    }

    fn verifier() -> JwtVerifier {
        JwtVerifier::new(JwtKey::hmac(SECRET).expect("key"), ISSUER, AUDIENCE)
    }

    fn claims(extra: Value) -> Value {
        let mut claims = json!({"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "exp": now() + 60});
        if let (Some(claims), Some(extra)) = (claims.as_object_mut(), extra.as_object()) {
            claims.extend(extra.clone());
        }
        claims
    }

    #[test]
    fn claims_become_the_identity() {
        let exp = now() + 60;
        let token = sign(&claims(
            json!({"client_id": "app", "scope": "read write", "exp": exp}),
        ));
        let identity = verifier().check(&token).expect("valid");
        assert_eq!(
            identity,
            Identity {
                client_id: Some("app".into()),
                issuer: Some(ISSUER.into()),
                subject: Some("alice".into()),
                scopes: vec!["read".into(), "write".into()],
                expires_at: Some(exp),
                jkt: None,
            }
        );
    }

    #[test]
    fn a_dpop_binding_is_reported_and_other_bindings_are_refused() {
        let bound = sign(&claims(json!({"cnf": {"jkt": "thumbprint"}})));
        let identity = verifier().check(&bound).expect("valid");
        assert_eq!(identity.jkt.as_deref(), Some("thumbprint"));
        let certificate = sign(&claims(json!({"cnf": {"x5t#S256": "certificate"}})));
        assert!(matches!(
            verifier().check(&certificate),
            Err(AuthError::Invalid(_))
        ));
    }

    #[test]
    fn azp_and_scp_stand_in_for_client_id_and_scope() {
        let list = sign(&claims(json!({"azp": "spa", "scp": ["a", "b"]})));
        let identity = verifier().check(&list).expect("valid");
        assert_eq!(identity.client_id.as_deref(), Some("spa"));
        assert_eq!(identity.scopes, ["a", "b"]);
        let text = sign(&claims(json!({"scp": "c d"})));
        assert_eq!(verifier().check(&text).expect("valid").scopes, ["c", "d"]);
    }

    fn without(claim: &str) -> Value {
        let mut claims = claims(json!({}));
        if let Some(object) = claims.as_object_mut() {
            object.remove(claim);
        }
        claims
    }

    #[test]
    fn required_claims_and_time_window_are_enforced() {
        for (what, claims) in [
            ("no exp", without("exp")),
            ("no aud", without("aud")),
            ("no iss", without("iss")),
            ("expired", claims(json!({"exp": now() - 120}))),
            ("not yet valid", claims(json!({"nbf": now() + 120}))),
            (
                "other audience",
                claims(json!({"aud": "https://other.example.com/mcp"})),
            ),
            (
                "other issuer",
                claims(json!({"iss": "https://evil.example.com"})),
            ),
        ] {
            let error = verifier().check(&sign(&claims));
            assert!(matches!(error, Err(AuthError::Invalid(_))), "{what}");
        }
        let within_leeway = claims(json!({"exp": now() - 5, "nbf": now() + 5}));
        assert!(verifier().check(&sign(&within_leeway)).is_ok());
        let audience_list = claims(json!({"aud": ["https://other.example.com", AUDIENCE]}));
        assert!(verifier().check(&sign(&audience_list)).is_ok());
    }

    #[test]
    fn keys_and_algorithms_are_checked_up_front() {
        assert!(matches!(
            JwtKey::hmac(b"short"),
            Err(JwtKeyError::ShortSecret(5))
        ));
        assert!(matches!(
            JwtKey::rsa_pem("not a pem"),
            Err(JwtKeyError::Pem { .. })
        ));
        assert!(matches!(
            verifier().algorithms([Algorithm::RS256]),
            Err(JwtKeyError::AlgorithmNotForKey { .. })
        ));
        let hs512_only = verifier().algorithms([Algorithm::HS512]).expect("HMAC");
        assert!(matches!(
            hs512_only.check(&sign(&claims(json!({})))),
            Err(AuthError::Invalid(_))
        ));
    }
}
