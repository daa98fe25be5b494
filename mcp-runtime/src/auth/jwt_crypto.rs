//! The crypto provider `jsonwebtoken` runs with: RustCrypto's, except that ECDSA signatures
//! (ES256, ES384) over uncompressed keys are verified by `ring`, which the runtime builds for
//! sealing anyway. Verifying a token it has not seen is the one expensive step of an
//! OAuth-protected request, and every DPoP proof is one; ring's P-256 verification costs a
//! fraction of RustCrypto's.

use std::sync::OnceLock;

use jsonwebtoken::crypto::{CryptoProvider, JwtVerifier, rust_crypto};
use jsonwebtoken::errors::{ErrorKind, Result, new_error};
use jsonwebtoken::signature::{Error as SignatureError, Verifier};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use ring::signature::{
    ECDSA_P256_SHA256_FIXED, ECDSA_P384_SHA384_FIXED, EcdsaVerificationAlgorithm, UnparsedPublicKey,
};

/// RustCrypto's provider, with ring verifying ECDSA.
pub(crate) fn provider() -> &'static CryptoProvider {
    static PROVIDER: OnceLock<CryptoProvider> = OnceLock::new();
    PROVIDER.get_or_init(|| CryptoProvider {
        verifier_factory: verifier,
        ..rust_crypto::DEFAULT_PROVIDER.clone()
    })
}

fn verifier(algorithm: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>> {
    let by_ring = match algorithm {
        Algorithm::ES256 => &ECDSA_P256_SHA256_FIXED,
        Algorithm::ES384 => &ECDSA_P384_SHA384_FIXED,
        _ => return (rust_crypto::DEFAULT_PROVIDER.verifier_factory)(algorithm, key),
    };
    if key.family() != AlgorithmFamily::Ec {
        return Err(new_error(ErrorKind::InvalidKeyFormat));
    }
    let point = key.try_get_as_bytes()?;
    // ring reads uncompressed points only; RustCrypto reads compressed ones too.
    if point.first() != Some(&0x04) {
        return (rust_crypto::DEFAULT_PROVIDER.verifier_factory)(algorithm, key);
    }
    Ok(Box::new(RingEcdsa {
        algorithm: *algorithm,
        by_ring,
        point: point.to_vec(),
    }))
}

struct RingEcdsa {
    algorithm: Algorithm,
    by_ring: &'static EcdsaVerificationAlgorithm,
    /// The SEC1 uncompressed point.
    point: Vec<u8>,
}

impl Verifier<Vec<u8>> for RingEcdsa {
    fn verify(
        &self,
        message: &[u8],
        signature: &Vec<u8>,
    ) -> std::result::Result<(), SignatureError> {
        UnparsedPublicKey::new(self.by_ring, &self.point)
            .verify(message, signature)
            .map_err(|_| SignatureError::new())
    }
}

impl JwtVerifier for RingEcdsa {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}

#[cfg(test)]
mod tests {
    use jsonwebtoken::{EncodingKey, Header, encode};
    use ring::rand::SystemRandom;
    use ring::signature::{
        ECDSA_P256_SHA256_FIXED_SIGNING, ECDSA_P384_SHA384_FIXED_SIGNING, EcdsaKeyPair,
        EcdsaSigningAlgorithm, KeyPair,
    };
    use serde_json::json;

    use super::*;
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    /// A fresh key pair: its PKCS#8 document and its uncompressed public point.
    fn key_pair(signing: &'static EcdsaSigningAlgorithm) -> (Vec<u8>, Vec<u8>) {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(signing, &rng).expect("generated");
        let pair = EcdsaKeyPair::from_pkcs8(signing, pkcs8.as_ref(), &rng).expect("read");
        (pkcs8.as_ref().to_vec(), pair.public_key().as_ref().to_vec())
    }

    /// A token signed by RustCrypto, split into what is signed and the signature.
    fn signed(algorithm: Algorithm, pkcs8: &[u8]) -> (Vec<u8>, Vec<u8>) {
        crate::auth::jwt::install_crypto_provider();
        let key = EncodingKey::from_ec_der(pkcs8);
        let token =
            encode(&Header::new(algorithm), &json!({"sub": "alice"}), &key).expect("signed");
        let (message, signature) = token.rsplit_once('.').expect("three parts");
        let signature = URL_SAFE_NO_PAD.decode(signature).expect("base64url");
        (message.as_bytes().to_vec(), signature)
    }

    /// Every test of this crate that signs or reads a JWT installs the provider first, as the
    /// runtime does: anything else that reached `jsonwebtoken` first would fix its own.
    #[test]
    fn the_runtime_installs_this_provider() {
        crate::auth::jwt::install_crypto_provider();
        let installed = CryptoProvider::try_get_default().expect("installed");
        assert!(std::ptr::eq(installed, provider()));
    }

    #[test]
    fn ecdsa_signatures_verify_and_a_changed_byte_does_not() {
        for (algorithm, signing) in [
            (Algorithm::ES256, &ECDSA_P256_SHA256_FIXED_SIGNING),
            (Algorithm::ES384, &ECDSA_P384_SHA384_FIXED_SIGNING),
        ] {
            let (pkcs8, point) = key_pair(signing);
            let (mut message, signature) = signed(algorithm, &pkcs8);
            let check = verifier(&algorithm, &DecodingKey::from_ec_der(&point)).expect("usable");
            assert_eq!(check.algorithm(), algorithm);
            assert!(check.verify(&message, &signature).is_ok(), "{algorithm:?}");
            message[3] ^= 1;
            assert!(check.verify(&message, &signature).is_err(), "{algorithm:?}");
        }
    }

    #[test]
    fn a_compressed_key_is_left_to_rustcrypto() {
        let (pkcs8, point) = key_pair(&ECDSA_P256_SHA256_FIXED_SIGNING);
        let (message, signature) = signed(Algorithm::ES256, &pkcs8);
        // SEC1 compressed: the parity of y, then x.
        let mut compressed = vec![if point[64] & 1 == 1 { 0x03 } else { 0x02 }];
        compressed.extend_from_slice(&point[1..33]);
        let check =
            verifier(&Algorithm::ES256, &DecodingKey::from_ec_der(&compressed)).expect("usable");
        assert!(check.verify(&message, &signature).is_ok());
    }

    #[test]
    fn a_key_of_another_family_is_refused() {
        let hmac = DecodingKey::from_secret(&[7; 32]).expect("key");
        assert!(verifier(&Algorithm::ES256, &hmac).is_err());
    }
}
