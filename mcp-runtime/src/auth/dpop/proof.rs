//! One DPoP proof (RFC 9449 §4.2) checked as far as it can be without the access token
//! (§4.3): its header (`typ`, `alg`, `jwk`), its signature by that `jwk`, and its `htm`, `htu`
//! and `iat`. What ties it to the token (`ath`, `cnf.jkt`) and to earlier proofs (`jti`) is
//! checked by the caller.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, Validation};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::htu;
use super::key::{self, KeyError};

/// A proof of the largest key accepted (RSA 8192) takes about 3 KiB; a longer one is not
/// decoded at all.
const MAX_PROOF_LEN: usize = 8 * 1024;

/// The `typ` of a proof (RFC 9449 §4.2), which keeps another JWT from passing for one.
const PROOF_TYPE: &str = "dpop+jwt";

/// What a proof must be to be accepted here.
#[derive(Debug, Clone)]
pub(crate) struct ProofRules {
    /// The signature algorithms accepted: asymmetric ones only.
    pub algorithms: &'static [(&'static str, Algorithm)],
    /// The normal form of the endpoint's URL, which `htu` must have.
    pub htu: String,
    /// How long after its `iat` a proof is accepted.
    pub max_age: Duration,
    /// The clock skew tolerated on `iat`, both ways.
    pub leeway: Duration,
}

/// A proof that passed every check of its own.
#[derive(Debug)]
pub(crate) struct Proof {
    /// The RFC 7638 thumbprint of the key that signed it.
    pub thumbprint: String,
    pub jti: String,
    /// The hash of the access token it was made for.
    pub ath: Option<String>,
    /// The server nonce it carries.
    pub nonce: Option<String>,
}

/// Why a proof is refused; for the log only, the client learns `invalid_dpop_proof`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProofError {
    #[error("the proof is not a JWT: {0}")]
    Malformed(String),
    #[error("the proof's typ is not dpop+jwt")]
    Type,
    #[error("the proof's alg {0:?} is not an accepted asymmetric algorithm")]
    Algorithm(String),
    #[error("the proof has no jwk")]
    NoKey,
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error("the proof's signature or claims are invalid: {0}")]
    Signature(jsonwebtoken::errors::Error),
    #[error("the proof is for {0}, not for this request's method")]
    Method(String),
    #[error("the proof is for {0:?}, not for this endpoint")]
    Url(String),
    #[error("the proof was issued at {0}, outside the accepted window")]
    Time(f64),
}

/// The header members a proof is judged by. `jwk` stays raw JSON, so that private members can be
/// seen: a typed JWK would drop them silently.
#[derive(Deserialize)]
struct ProofHeader {
    typ: Option<String>,
    alg: String,
    jwk: Option<Map<String, Value>>,
}

/// The claims of RFC 9449 §4.2; a missing required one fails deserialization.
#[derive(Deserialize)]
struct ProofClaims {
    jti: String,
    htm: String,
    htu: String,
    /// A NumericDate, which may have a fraction.
    iat: f64,
    ath: Option<String>,
    nonce: Option<String>,
}

impl ProofRules {
    /// Checks `proof` for a request with `method`, at `now` (Unix seconds).
    pub fn check(&self, proof: &str, method: &str, now: f64) -> Result<Proof, ProofError> {
        if proof.len() > MAX_PROOF_LEN {
            return Err(ProofError::Malformed(format!("{} bytes", proof.len())));
        }
        let header = read_header(proof)?;
        if !header
            .typ
            .is_some_and(|typ| typ.eq_ignore_ascii_case(PROOF_TYPE))
        {
            return Err(ProofError::Type);
        }
        let Some(&(_, alg)) = self.algorithms.iter().find(|(name, _)| *name == header.alg) else {
            return Err(ProofError::Algorithm(header.alg));
        };
        let key = key::read(header.jwk.ok_or(ProofError::NoKey)?, alg)?;
        let claims = jsonwebtoken::decode::<ProofClaims>(proof, &key.key, &validation(alg))
            .map_err(ProofError::Signature)?
            .claims;
        if claims.jti.is_empty() {
            return Err(ProofError::Malformed("an empty jti".to_owned()));
        }
        if claims.htm != method {
            return Err(ProofError::Method(claims.htm));
        }
        if htu::of_htu(&claims.htu).as_deref() != Some(self.htu.as_str()) {
            return Err(ProofError::Url(claims.htu));
        }
        let age = now - claims.iat;
        let oldest = self.max_age.saturating_add(self.leeway).as_secs_f64();
        if !(-self.leeway.as_secs_f64()..=oldest).contains(&age) {
            return Err(ProofError::Time(claims.iat));
        }
        Ok(Proof {
            thumbprint: key.thumbprint,
            jti: claims.jti,
            ath: claims.ath,
            nonce: claims.nonce,
        })
    }
}

fn read_header(proof: &str) -> Result<ProofHeader, ProofError> {
    let mut parts = proof.split('.');
    let (Some(header), Some(_), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ProofError::Malformed("not three parts".to_owned()));
    };
    let header = URL_SAFE_NO_PAD
        .decode(header)
        .map_err(|e| ProofError::Malformed(e.to_string()))?;
    serde_json::from_slice(&header).map_err(|e| ProofError::Malformed(e.to_string()))
}

/// Signature only: a proof has no `exp`, `nbf` or `aud` to check; its own claims are checked
/// above.
fn validation(alg: Algorithm) -> Validation {
    let mut validation = Validation::new(alg);
    validation.required_spec_claims.clear();
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation
}
