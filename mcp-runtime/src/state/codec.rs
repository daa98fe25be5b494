//! Turning claims bytes into an opaque token and back: the [`Codec`] seam and the built-in
//! AES-256-GCM ring.

use hkdf::Hkdf;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};
use sha2::{Digest, Sha256};

use super::base64url;
use super::error::{InvalidRequestState, KeyError};
use super::random::fill_random;
use crate::boxed::BoxError;

/// Seals claims bytes into a token a client carries, and opens tokens it sealed.
///
/// The runtime adds and checks every claim (expiry, request binding, audience, principal) itself,
/// so a codec only has to be an authenticated envelope: `unseal` must return
/// [`InvalidRequestState`] for any token it did not produce unchanged. Implement it to keep keys
/// in a KMS or an HSM; [`AesGcmCodec`] is the built-in one.
///
/// `seal` may fail (a KMS that is down); the request then ends in a bare `-32603` and the cause
/// is logged.
///
/// ```
/// use mcp::BoxError;
/// use mcp::state::{Codec, InvalidRequestState};
///
/// /// Hex "encryption" for a test double. Never do this in production.
/// struct Hex;
///
/// impl Codec for Hex {
///     fn seal(&self, plaintext: &[u8]) -> Result<String, BoxError> {
///         Ok(plaintext.iter().map(|b| format!("{b:02x}")).collect())
///     }
///
///     fn unseal(&self, token: &str) -> Result<Vec<u8>, InvalidRequestState> {
///         let bad = || InvalidRequestState::new("not hex");
///         if token.len() % 2 != 0 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
///             return Err(bad());
///         }
///         (0..token.len())
///             .step_by(2)
///             .map(|i| u8::from_str_radix(&token[i..i + 2], 16).map_err(|_| bad()))
///             .collect()
///     }
/// }
///
/// let token = Hex.seal(b"hi").unwrap();
/// assert_eq!(Hex.unseal(&token).unwrap(), b"hi");
/// ```
pub trait Codec: Send + Sync + 'static {
    /// Seals `plaintext` into a token.
    fn seal(&self, plaintext: &[u8]) -> Result<String, BoxError>;
    /// Opens a token this codec sealed; anything else is rejected.
    fn unseal(&self, token: &str) -> Result<Vec<u8>, InvalidRequestState>;
}

const PREFIX: &str = "v1.";
const KDF_INFO: &[u8] = b"mcp/request-state/v1/aes-256-gcm";
const KID_DOMAIN: &[u8] = b"mcp/request-state/v1/kid:";
const KID_LEN: usize = 4;
const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;
const HEADER_LEN: usize = KID_LEN + NONCE_LEN;
/// The shortest secret accepted, in bytes.
pub const MIN_SECRET_LEN: usize = 32;

/// The built-in codec: AES-256-GCM under a ring of keys.
///
/// Each secret (≥ 32 bytes) is stretched with HKDF-SHA256 into an AES-256 key, identified by a
/// 4-byte key id. The first key seals; every key opens tokens carrying its id, so keys rotate in
/// three steps without dropping a round: `[old, new]` on every instance, then `[new, old]`, then
/// `[new]` once the ttl has passed.
///
/// Tokens are `v1.` + unpadded base64url of `kid ‖ nonce(12) ‖ ciphertext ‖ tag(16)`, with
/// `v1.` ‖ kid as associated data: byte for byte the Python SDK's envelope, so a Rust and a
/// Python server that share a secret accept each other's tokens.
///
/// ```
/// use mcp::state::{AesGcmCodec, Codec};
///
/// let codec = AesGcmCodec::new(["0123456789abcdef0123456789abcdef"])?;
/// let token = codec.seal(b"{\"step\":1}").unwrap();
/// assert!(token.starts_with("v1.oBT0C"));
/// assert_eq!(codec.unseal(&token).unwrap(), b"{\"step\":1}");
/// # Ok::<(), mcp::state::KeyError>(())
/// ```
pub struct AesGcmCodec {
    ring: Vec<RingKey>,
}

struct RingKey {
    kid: [u8; KID_LEN],
    /// ring's AES-256-GCM: about 40% less CPU per seal and open than the RustCrypto crates
    /// on x86-64 (BENCHMARKS.md, "Sealing"), and already built for rustls by default.
    cipher: LessSafeKey,
}

impl RingKey {
    fn new(key: [u8; 32]) -> Self {
        // ring refuses only a key of the wrong length; a derived key is 32 bytes.
        let unbound = UnboundKey::new(&AES_256_GCM, &key).expect("an AES-256 key is 32 bytes");
        Self {
            kid: key_id(&key),
            cipher: LessSafeKey::new(unbound),
        }
    }
}

impl AesGcmCodec {
    /// A ring from operator secrets; the first seals. Each must be at least 32 bytes; a repeated
    /// secret is an error.
    pub fn new<I, K>(secrets: I) -> Result<Self, KeyError>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        let mut ring: Vec<RingKey> = Vec::new();
        for (index, secret) in secrets.into_iter().enumerate() {
            let secret = secret.as_ref();
            if secret.len() < MIN_SECRET_LEN {
                return Err(KeyError::TooShort {
                    index,
                    len: secret.len(),
                });
            }
            let key = derive_key(secret);
            if ring.iter().any(|k| k.kid == key_id(&key)) {
                return Err(KeyError::Duplicate { index });
            }
            ring.push(RingKey::new(key));
        }
        if ring.is_empty() {
            return Err(KeyError::Empty);
        }
        Ok(Self { ring })
    }

    /// A ring of one random key, generated for this process only.
    pub fn ephemeral() -> Self {
        let mut secret = [0u8; 32];
        fill_random(&mut secret);
        Self {
            ring: vec![RingKey::new(derive_key(&secret))],
        }
    }

    /// The id of the sealing key, hex (it is not secret; it shows which key minted a token).
    pub fn sealing_key_id(&self) -> String {
        self.ring[0]
            .kid
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

impl std::fmt::Debug for AesGcmCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kids: Vec<String> = self
            .ring
            .iter()
            .map(|k| k.kid.iter().map(|b| format!("{b:02x}")).collect())
            .collect();
        f.debug_struct("AesGcmCodec")
            .field("key_ids", &kids)
            .finish()
    }
}

impl Codec for AesGcmCodec {
    fn seal(&self, plaintext: &[u8]) -> Result<String, BoxError> {
        let key = &self.ring[0];
        let raw_len = HEADER_LEN + plaintext.len() + TAG_LEN;
        let text_len = PREFIX.len() + base64url::encoded_len(raw_len);
        // One allocation: the envelope is sealed in the spare room behind the token's text and
        // encoded from there, then cut off (it is public: the token spells it out).
        let mut token = vec![0u8; text_len + raw_len];
        let (text, raw) = token.split_at_mut(text_len);
        raw[..KID_LEN].copy_from_slice(&key.kid);
        fill_random(&mut raw[KID_LEN..HEADER_LEN]);
        let (header, body) = raw.split_at_mut(HEADER_LEN);
        let (message, tag_out) = body.split_at_mut(plaintext.len());
        message.copy_from_slice(plaintext);
        let nonce = Nonce::try_assume_unique_for_key(&header[KID_LEN..])
            .map_err(|_| "nonce length mismatch")?;
        let tag = key
            .cipher
            .seal_in_place_separate_tag(nonce, Aad::from(aad(&key.kid)), message)
            .map_err(|_| "state too long to seal")?;
        tag_out.copy_from_slice(tag.as_ref());
        let (prefix, encoded) = text.split_at_mut(PREFIX.len());
        prefix.copy_from_slice(PREFIX.as_bytes());
        base64url::encode_to_slice(raw, encoded);
        token.truncate(text_len);
        Ok(String::from_utf8(token)?)
    }

    fn unseal(&self, token: &str) -> Result<Vec<u8>, InvalidRequestState> {
        let malformed = || InvalidRequestState::new("malformed");
        let body = token.strip_prefix(PREFIX).ok_or_else(malformed)?;
        // Strict: no padding, no foreign alphabet, canonical trailing bits, so each token has
        // exactly one accepted spelling.
        let mut raw = base64url::decode(body.as_bytes()).ok_or_else(malformed)?;
        if raw.len() < HEADER_LEN + TAG_LEN {
            return Err(malformed());
        }
        let key = self
            .ring
            .iter()
            .find(|k| k.kid[..] == raw[..KID_LEN])
            .ok_or_else(|| InvalidRequestState::new("unknown key"))?;
        let nonce =
            Nonce::try_assume_unique_for_key(&raw[KID_LEN..HEADER_LEN]).map_err(|_| malformed())?;
        let aad = aad(&key.kid);
        // The plaintext is written to the front of `raw`, over the header.
        let len = key
            .cipher
            .open_within(nonce, Aad::from(aad), &mut raw, HEADER_LEN..)
            .map_err(|_| InvalidRequestState::new("seal"))?
            .len();
        raw.truncate(len);
        Ok(raw)
    }
}

fn derive_key(secret: &[u8]) -> [u8; 32] {
    let mut key = [0u8; 32];
    // 32 bytes is far below HKDF-SHA256's 255 × 32 output limit.
    let _ = Hkdf::<Sha256>::new(None, secret).expand(KDF_INFO, &mut key);
    key
}

fn key_id(key: &[u8; 32]) -> [u8; KID_LEN] {
    let digest = Sha256::new()
        .chain_update(KID_DOMAIN)
        .chain_update(key)
        .finalize();
    let mut kid = [0u8; KID_LEN];
    kid.copy_from_slice(&digest[..KID_LEN]);
    kid
}

fn aad(kid: &[u8; KID_LEN]) -> [u8; 3 + KID_LEN] {
    let mut aad = [0u8; 3 + KID_LEN];
    aad[..3].copy_from_slice(PREFIX.as_bytes());
    aad[3..].copy_from_slice(kid);
    aad
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn derivation_matches_the_python_sdk_vector() {
        let key = derive_key(SECRET.as_bytes());
        assert_eq!(
            hex(&key),
            "8b279fbfa7aa79b48cf824b4f015d8a4cbe44cb986958e1f8467c9090662dca2"
        );
        assert_eq!(hex(&key_id(&key)), "a014f40b");
    }

    #[test]
    fn tokens_start_with_the_vector_prefix_and_round_trip() {
        let codec = AesGcmCodec::new([SECRET]).expect("valid ring");
        let token = codec.seal(b"hello").expect("seal");
        assert!(token.starts_with("v1.oBT0C"), "{token}");
        assert_eq!(codec.unseal(&token).expect("unseal"), b"hello");
        let other = codec.seal(b"hello").expect("seal");
        assert_ne!(token, other, "every token has a fresh nonce");
    }

    /// The envelope is AES-256-GCM as another implementation (the `aes-gcm` crate) reads and
    /// writes it, both ways: a round trip alone would not notice a wrong AAD or layout.
    #[test]
    fn tokens_are_the_envelope_another_aes_gcm_reads_and_writes() {
        use aes_gcm::aead::{Aead, KeyInit, Payload};

        let codec = AesGcmCodec::new([SECRET]).expect("valid ring");
        let key = derive_key(SECRET.as_bytes());
        let other = aes_gcm::Aes256Gcm::new_from_slice(&key).expect("a 32-byte key");
        let kid = key_id(&key);
        let aad = [PREFIX.as_bytes(), &kid].concat();

        let token = codec.seal(b"{\"step\":1}").expect("seal");
        let raw = URL_SAFE_NO_PAD
            .decode(token.strip_prefix(PREFIX).expect("the prefix"))
            .expect("base64url");
        let (header, body) = raw.split_at(HEADER_LEN);
        assert_eq!(header[..KID_LEN], kid);
        let nonce: [u8; NONCE_LEN] = header[KID_LEN..].try_into().expect("a 12-byte nonce");
        let opened = other
            .decrypt(
                &nonce.into(),
                Payload {
                    msg: body,
                    aad: &aad,
                },
            )
            .expect("the other implementation opens our token");
        assert_eq!(opened, b"{\"step\":1}");

        let nonce = [9u8; NONCE_LEN];
        let body = other
            .encrypt(
                &nonce.into(),
                Payload {
                    msg: b"theirs",
                    aad: &aad,
                },
            )
            .expect("encrypt");
        let theirs = [kid.as_slice(), &nonce, &body].concat();
        let token = format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(theirs));
        assert_eq!(codec.unseal(&token).expect("ours opens theirs"), b"theirs");
    }

    #[test]
    fn an_empty_plaintext_round_trips() {
        let codec = AesGcmCodec::ephemeral();
        let token = codec.seal(b"").expect("seal");
        assert_eq!(codec.unseal(&token).expect("unseal"), b"");
    }

    #[test]
    fn ring_construction_errors_say_what_is_wrong() {
        assert_eq!(
            AesGcmCodec::new(["short"]).err(),
            Some(KeyError::TooShort { index: 0, len: 5 })
        );
        assert_eq!(
            AesGcmCodec::new([SECRET, SECRET]).err(),
            Some(KeyError::Duplicate { index: 1 })
        );
        assert_eq!(
            AesGcmCodec::new(Vec::<&str>::new()).err(),
            Some(KeyError::Empty)
        );
        let message = KeyError::TooShort { index: 0, len: 5 }.to_string();
        assert!(message.contains("openssl rand -hex 32"), "{message}");
    }
}
