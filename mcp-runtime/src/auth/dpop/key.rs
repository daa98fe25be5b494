//! The public key a proof carries in its `jwk` header: refused when it holds private parts or
//! does not fit the proof's algorithm, and named by its RFC 7638 thumbprint, which is what a
//! bound token's `cnf.jkt` holds.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, ThumbprintHash};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::{Map, Value};

/// Members only a private (or a symmetric) key has: RFC 7518 §6.2.2 (EC), §6.3.2 (RSA), §6.4
/// (`k`), RFC 8037 §2 (OKP). A client that sends one has published its signing key.
const PRIVATE_MEMBERS: [&str; 8] = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/// The members that define a public key (those RFC 7638 hashes); the others (`alg`, `use`,
/// `kid`, …) are dropped before parsing, so an unknown value in one of them cannot get in the way.
const KEY_MEMBERS: [&str; 6] = ["kty", "crv", "x", "y", "n", "e"];

/// The smallest RSA modulus accepted, in bytes: RFC 7518 §3.3 requires 2048 bits.
const MIN_RSA_MODULUS: usize = 256;

/// Why a proof's `jwk` cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum KeyError {
    #[error("the jwk has a private member `{0}`")]
    Private(&'static str),
    #[error("the jwk is not a public key: {0}")]
    Unreadable(serde_json::Error),
    #[error("the jwk is not a key for {0:?}: {1}")]
    NotFor(Algorithm, &'static str),
    #[error("the jwk cannot be used: {0}")]
    Unusable(jsonwebtoken::errors::Error),
}

/// A proof's public key, ready to check the proof's signature.
pub(crate) struct ProofKey {
    pub key: DecodingKey,
    /// Its RFC 7638 SHA-256 thumbprint, base64url.
    pub thumbprint: String,
}

/// The key of a proof signed with `alg`.
pub(crate) fn read(mut jwk: Map<String, Value>, alg: Algorithm) -> Result<ProofKey, KeyError> {
    if let Some(member) = PRIVATE_MEMBERS.into_iter().find(|m| jwk.contains_key(*m)) {
        return Err(KeyError::Private(member));
    }
    jwk.retain(|member, _| KEY_MEMBERS.contains(&member.as_str()));
    let jwk: Jwk = serde_json::from_value(Value::Object(jwk)).map_err(KeyError::Unreadable)?;
    fits(&jwk, alg)?;
    Ok(ProofKey {
        key: DecodingKey::from_jwk(&jwk).map_err(KeyError::Unusable)?,
        thumbprint: jwk
            .thumbprint(ThumbprintHash::SHA256)
            .map_err(KeyError::Unusable)?,
    })
}

/// Whether the key's type, curve and size are those of `alg`. Besides refusing weak keys, this
/// guards the signature code: its Ed25519 verifier takes the first 32 bytes of the key without
/// checking that there are that many.
fn fits(jwk: &Jwk, alg: Algorithm) -> Result<(), KeyError> {
    let length = |b64: &str| URL_SAFE_NO_PAD.decode(b64).map_or(0, |bytes| bytes.len());
    let not_for = |why| Err(KeyError::NotFor(alg, why));
    match (&jwk.algorithm, alg) {
        (AlgorithmParameters::EllipticCurve(ec), Algorithm::ES256 | Algorithm::ES384) => {
            let (curve, size) = match alg {
                Algorithm::ES256 => (EllipticCurve::P256, 32),
                _ => (EllipticCurve::P384, 48),
            };
            if ec.curve != curve {
                return not_for("another curve");
            }
            if length(&ec.x) != size || length(&ec.y) != size {
                return not_for("coordinates of another size");
            }
            Ok(())
        }
        (AlgorithmParameters::OctetKeyPair(okp), Algorithm::EdDSA) => {
            if okp.curve != EllipticCurve::Ed25519 || length(&okp.x) != 32 {
                return not_for("not an Ed25519 public key");
            }
            Ok(())
        }
        (
            AlgorithmParameters::RSA(rsa),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512,
        ) => {
            let modulus = URL_SAFE_NO_PAD.decode(&rsa.n).unwrap_or_default();
            let significant = modulus.iter().skip_while(|b| **b == 0).count();
            if significant < MIN_RSA_MODULUS {
                return not_for("an RSA modulus under 2048 bits");
            }
            Ok(())
        }
        _ => not_for("another type of key"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    /// The example of RFC 7638 §3.1 (the RSA key of RFC 7517 Appendix A.1) and its published
    /// thumbprint.
    #[test]
    fn the_thumbprint_is_the_one_rfc_7638_publishes() {
        crate::auth::jwt::install_crypto_provider();
        let jwk = json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29"
        });
        let key = read(object(jwk), Algorithm::RS256).expect("a public RSA key");
        assert_eq!(
            key.thumbprint,
            "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        );
    }

    /// A P-256 public key (the one of RFC 7515 Appendix A.3).
    fn p256() -> Value {
        json!({
            "kty": "EC",
            "crv": "P-256",
            "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
        })
    }

    #[test]
    fn keys_with_private_parts_or_of_another_kind_are_refused() {
        crate::auth::jwt::install_crypto_provider();
        assert!(read(object(p256()), Algorithm::ES256).is_ok());
        let mut private = p256();
        private["d"] = json!("jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI");
        assert!(matches!(
            read(object(private), Algorithm::ES256),
            Err(KeyError::Private("d"))
        ));
        let cases = [
            ("P-256 for ES384", p256(), Algorithm::ES384),
            ("EC for RS256", p256(), Algorithm::RS256),
            (
                "short Ed25519",
                json!({"kty": "OKP", "crv": "Ed25519", "x": "AAAA"}),
                Algorithm::EdDSA,
            ),
            (
                "1024-bit RSA",
                json!({"kty": "RSA", "n": URL_SAFE_NO_PAD.encode([0xC5; 128]), "e": "AQAB"}),
                Algorithm::RS256,
            ),
            (
                "a secret",
                json!({"kty": "oct", "k": "c2VjcmV0"}),
                Algorithm::HS256,
            ),
        ];
        for (what, jwk, alg) in cases {
            assert!(read(object(jwk), alg).is_err(), "{what}");
        }
    }
}
