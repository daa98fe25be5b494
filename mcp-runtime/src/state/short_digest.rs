//! `base64url(SHA-256(text)[..16])`: how a request binding names its arguments and the answer
//! ledger names a question. Every multi-round request computes, copies and compares a few, so
//! they are 22 bytes held inline rather than strings.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use sha2::{Digest, Sha256};

use super::base64url;

/// How many bytes of the SHA-256 are kept.
const KEPT: usize = 16;
/// The length of their text.
pub(crate) const SHORT_DIGEST_LEN: usize = base64url::encoded_len(KEPT);

/// The first 16 bytes of a SHA-256, in base64url.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct ShortDigest([u8; SHORT_DIGEST_LEN]);

impl ShortDigest {
    /// The digest of `text`.
    pub fn of(text: &str) -> Self {
        let digest = Sha256::digest(text.as_bytes());
        let mut out = [0; SHORT_DIGEST_LEN];
        base64url::encode_to_slice(&digest[..KEPT], &mut out);
        Self(out)
    }

    /// The digest `text` spells, if it is the canonical base64url of 16 bytes.
    pub fn read(text: &str) -> Option<Self> {
        base64url::decode_to_slice(text.as_bytes(), &mut [0; KEPT])?;
        text.as_bytes().try_into().ok().map(Self)
    }

    pub fn as_str(&self) -> &str {
        // Only base64url, ASCII, gets in (`of` and `read`).
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl fmt::Debug for ShortDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl<'de> Deserialize<'de> for ShortDigest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = ShortDigest;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("16 bytes in base64url")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<ShortDigest, E> {
                ShortDigest::read(text)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Str(text), &self))
            }
        }
        d.deserialize_str(Text)
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    use super::*;

    #[test]
    fn it_is_the_base64url_of_the_first_16_bytes_and_reads_back_only_as_such() {
        for text in ["", "{}", r#"{"method":"roots/list"}"#, "é ✓"] {
            let digest = ShortDigest::of(text);
            let expected = URL_SAFE_NO_PAD.encode(&Sha256::digest(text.as_bytes())[..16]);
            assert_eq!(digest.as_str(), expected);
            assert_eq!(ShortDigest::read(&expected), Some(digest));
            assert_eq!(format!("{digest:?}"), format!("{expected:?}"));
        }
        let text = ShortDigest::of("x").as_str().to_owned();
        // Too short, too long, not URL-safe, and bits set past the 16 bytes (not canonical).
        let bad = [
            text[1..].to_owned(),
            format!("{text}A"),
            format!("{}+", &text[1..]),
            format!("{}B", &text[..21]),
        ];
        for bad in &bad {
            assert_eq!(ShortDigest::read(bad), None, "{bad}");
            assert!(serde_json::from_value::<ShortDigest>(bad.as_str().into()).is_err());
        }
        assert_eq!(
            serde_json::from_value::<ShortDigest>(text.clone().into()).ok(),
            ShortDigest::read(&text)
        );
    }
}
