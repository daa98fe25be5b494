//! DPoP (RFC 9449): a key pair of the client's own, made fresh for each [`OAuth`], whose
//! proofs bind the tokens it obtains to it. Every token request and every request to the MCP
//! server carries a new proof, signed for its method and URL (and for the access token it
//! goes with), plus the latest nonce the receiving server handed out.
//!
//! [`OAuth`]: super::OAuth

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use hyper::HeaderMap;
use jsonwebtoken::jwk::{Jwk, ThumbprintHash};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::elliptic_curve::Generate as _;
use p256::pkcs8::EncodePrivateKey as _;
use serde::Serialize;
use url::Url;

use crate::transport::http_client::lock;

use super::AuthError;
use super::jws;

/// The header a proof travels in, and the one a server hands out a nonce in.
pub(crate) const DPOP: &str = "dpop";
pub(crate) const DPOP_NONCE: &str = "dpop-nonce";

/// The one algorithm this client signs proofs with; servers that take DPoP take it.
pub(crate) const ALGORITHM: &str = "ES256";

/// A key pair and the nonces servers handed out for its proofs.
pub(crate) struct DpopKey {
    key: EncodingKey,
    /// The public half, as every proof's header carries it.
    jwk: Jwk,
    /// Its RFC 7638 thumbprint: the `cnf.jkt` of the tokens bound to it.
    thumbprint: String,
    /// The latest nonce of each server, by origin.
    nonces: Mutex<HashMap<String, String>>,
}

impl fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The thumbprint names the public key only.
        f.debug_struct("DpopKey")
            .field("thumbprint", &self.thumbprint)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct Proof<'a> {
    jti: String,
    htm: &'a str,
    htu: &'a str,
    iat: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    ath: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nonce: Option<String>,
}

impl DpopKey {
    /// A new P-256 key pair.
    pub(crate) fn generate() -> Result<Self, AuthError> {
        let failed = |reason: String| AuthError::Signing { reason };
        let secret = p256::SecretKey::try_generate()
            .map_err(|e| failed(format!("no randomness for a DPoP key: {e}")))?;
        let der = secret
            .to_pkcs8_der()
            .map_err(|e| failed(format!("encoding the DPoP key: {e}")))?;
        let key = EncodingKey::from_ec_der(der.as_bytes());
        crate::auth::install_crypto_provider();
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256)
            .map_err(|e| failed(format!("the DPoP key's JWK: {e}")))?;
        // The header names the algorithm already; the JWK is the bare public key.
        jwk.common.key_algorithm = None;
        let thumbprint = jwk
            .thumbprint(ThumbprintHash::SHA256)
            .map_err(|e| failed(format!("the DPoP key's thumbprint: {e}")))?;
        Ok(Self {
            key,
            jwk,
            thumbprint,
            nonces: Mutex::default(),
        })
    }

    /// The `cnf.jkt` of tokens bound to this key.
    pub(crate) fn thumbprint(&self) -> &str {
        &self.thumbprint
    }

    /// A proof for `method url`, for presenting `access_token` if there is one, with the
    /// latest nonce of the server at `url`.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
    ) -> Result<String, AuthError> {
        let mut htu = Url::parse(url).map_err(|e| AuthError::InvalidUrl {
            url: url.to_owned(),
            reason: e.to_string(),
        })?;
        // RFC 9449 §4.2: the URI without query and fragment.
        htu.set_query(None);
        htu.set_fragment(None);
        let nonce = self.nonce_of(&htu);
        let claims = Proof {
            jti: jws::unique_id(),
            htm: method,
            htu: htu.as_str(),
            iat: jws::now(),
            ath: access_token.map(crate::auth::token_hash),
            nonce,
        };
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".to_owned());
        header.jwk = Some(self.jwk.clone());
        jws::sign(&header, &claims, &self.key)
    }

    /// Keeps the nonce a response from `url` carries, if any: the server's next proofs need
    /// it (RFC 9449 §8, §9).
    pub(crate) fn observe(&self, url: &str, headers: &HeaderMap) -> bool {
        let Some(nonce) = headers.get(DPOP_NONCE).and_then(|v| v.to_str().ok()) else {
            return false;
        };
        let Ok(url) = Url::parse(url) else {
            return false;
        };
        lock(&self.nonces).insert(origin(&url), nonce.to_owned());
        true
    }

    fn nonce_of(&self, url: &Url) -> Option<String> {
        lock(&self.nonces).get(&origin(url)).cloned()
    }
}

/// Nonces are per server: an origin's nonce is never shown to another.
fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// Whether a token response says the token is bound to the proof's key (`token_type: DPoP`).
pub(crate) fn is_dpop_token_type(token_type: &str) -> bool {
    token_type.eq_ignore_ascii_case("dpop")
}
