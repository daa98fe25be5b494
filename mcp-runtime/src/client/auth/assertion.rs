//! `private_key_jwt` (RFC 7523 §2.2): the client proves who it is to the token endpoint with a
//! short-lived JWT signed by a key the authorization server knows the public half of.

use std::fmt;

use jsonwebtoken::{Algorithm, AlgorithmFamily, EncodingKey, Header};
use serde::Serialize;

use super::AuthError;
use super::jws;

/// The `client_assertion_type` of a JWT assertion.
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How long an assertion is good for: it is made for one token request, sent at once.
const LIFETIME_SECS: u64 = 300;

/// A private key and the algorithm it signs assertions with.
#[derive(Clone)]
pub(crate) struct AssertionKey {
    key: EncodingKey,
    algorithm: Algorithm,
}

impl fmt::Debug for AssertionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The key is a credential: only its algorithm shows.
        f.debug_struct("AssertionKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct Claims<'a> {
    iss: &'a str,
    sub: &'a str,
    aud: &'a str,
    jti: String,
    iat: u64,
    exp: u64,
}

impl AssertionKey {
    /// The PEM private key `pem` (PKCS#8, or SEC1/PKCS#1) for `algorithm`, an asymmetric one:
    /// a shared secret would be `client_secret_jwt`, which this client does not do.
    pub(crate) fn from_pem(pem: &[u8], algorithm: Algorithm) -> Result<Self, AuthError> {
        let key = match algorithm.family() {
            AlgorithmFamily::Ec => EncodingKey::from_ec_pem(pem),
            AlgorithmFamily::Rsa => EncodingKey::from_rsa_pem(pem),
            AlgorithmFamily::Ed => EncodingKey::from_ed_pem(pem),
            AlgorithmFamily::Hmac => {
                return Err(AuthError::InvalidKey {
                    reason: format!("{algorithm:?} is symmetric; private_key_jwt needs a key pair"),
                });
            }
        }
        .map_err(|e| AuthError::InvalidKey {
            reason: e.to_string(),
        })?;
        Ok(Self { key, algorithm })
    }

    /// An assertion that `client_id` is calling the authorization server `issuer`: its
    /// issuer identifier is the audience (draft-ietf-oauth-rfc7523bis), not the endpoint.
    pub(crate) fn assertion(&self, client_id: &str, issuer: &str) -> Result<String, AuthError> {
        let iat = jws::now();
        let claims = Claims {
            iss: client_id,
            sub: client_id,
            aud: issuer,
            jti: jws::unique_id(),
            iat,
            exp: iat + LIFETIME_SECS,
        };
        jws::sign(&Header::new(self.algorithm), &claims, &self.key)
    }
}
