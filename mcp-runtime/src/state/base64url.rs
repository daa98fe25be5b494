//! Unpadded base64url (RFC 4648 §5), strict: every byte string has exactly one accepted
//! spelling.
//!
//! Decoding refuses padding, the standard alphabet's `+` and `/`, any other byte, a length that
//! leaves one character over (`len % 4 == 1` encodes no whole byte), and a last character whose
//! unused low bits are not zero. So a token cannot be re-spelled into a second accepted form.
//!
//! The work is `base64-simd`'s (SSE4.1/AVX2 where the CPU has them, chosen at run time): a
//! sealed token is some 600 characters each way per round, and the scalar loops of the `base64`
//! crate, or of our own, cost about 6 instructions per character (BENCHMARKS.md, "Sealing").

use base64_simd::{Out, URL_SAFE_NO_PAD};

/// The length of the encoding of `len` bytes.
pub(crate) const fn encoded_len(len: usize) -> usize {
    len / 3 * 4 + [0, 2, 3][len % 3]
}

/// The number of bytes `len` characters decode to, or `None` for a length no encoding has.
pub(crate) const fn decoded_len(len: usize) -> Option<usize> {
    match len % 4 {
        1 => None,
        rest => Some(len / 4 * 3 + [0, 0, 1, 2][rest]),
    }
}

/// Writes the encoding of `bytes` to `out`, which is exactly `encoded_len(bytes.len())` long,
/// and returns it as text.
pub(crate) fn encode_to_slice<'a>(bytes: &[u8], out: &'a mut [u8]) -> &'a str {
    debug_assert_eq!(out.len(), encoded_len(bytes.len()));
    URL_SAFE_NO_PAD.encode_as_str(bytes, Out::from_slice(out))
}

/// Decodes `text`, or `None` if it is not the one canonical encoding of some bytes.
pub(crate) fn decode(text: &[u8]) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode_to_vec(text).ok()
}

/// Decodes `text` into `out`, which must be exactly `decoded_len(text.len())` long; `None` if
/// it is not (or `text` is not a canonical encoding). `out` may be partly written on failure.
pub(crate) fn decode_to_slice(text: &[u8], out: &mut [u8]) -> Option<()> {
    if decoded_len(text.len()) != Some(out.len()) {
        return None;
    }
    URL_SAFE_NO_PAD
        .decode(text, Out::from_slice(out))
        .ok()
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    /// A reference the code under test does not share: the `base64` crate, which is strict in
    /// the same way (no padding, canonical trailing bits).
    fn reference(text: &[u8]) -> Option<Vec<u8>> {
        URL_SAFE_NO_PAD.decode(text).ok()
    }

    /// The encoding of `bytes` as a string, through the code under test.
    fn encode(bytes: &[u8]) -> String {
        let mut out = vec![0; encoded_len(bytes.len())];
        encode_to_slice(bytes, &mut out).to_owned()
    }

    #[test]
    fn the_rfc_4648_vectors_round_trip() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), encoded);
            assert_eq!(
                decode(encoded.as_bytes()).as_deref(),
                Some(plain.as_bytes())
            );
        }
    }

    #[test]
    fn every_length_and_byte_round_trips_as_the_reference_encodes() {
        let bytes: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for len in 0..bytes.len() {
            for start in [0, 1, 2] {
                let input = &bytes[start..(start + len).min(bytes.len())];
                let text = encode(input);
                assert_eq!(text, URL_SAFE_NO_PAD.encode(input), "len {len}");
                assert_eq!(text.len(), encoded_len(input.len()));
                assert_eq!(decode(text.as_bytes()).as_deref(), Some(input), "len {len}");
            }
        }
    }

    #[test]
    fn every_non_canonical_spelling_is_refused() {
        for text in [
            "Zg==",     // padding
            "Zm8=",     // padding
            "Zh",       // unused bits set in the last of two characters
            "Zm9",      // unused bits set in the last of three characters
            "Z",        // one character is no byte
            "Zm9vY",    // nor is a group's fifth
            "+/8A",     // the standard alphabet
            "Zm 9v",    // whitespace
            "Zm9v\n",   // a line break
            "Zm9v\0AA", // NUL
            "Zm9vYmF\u{e9}",
        ] {
            assert_eq!(decode(text.as_bytes()), None, "{text:?}");
            assert_eq!(reference(text.as_bytes()), None, "reference on {text:?}");
        }
    }

    #[test]
    fn any_one_character_changed_decodes_as_the_reference_says() {
        let valid = encode(b"sealed bytes of some length");
        for at in 0..valid.len() {
            for byte in 0..=255u8 {
                let mut text = valid.clone().into_bytes();
                text[at] = byte;
                assert_eq!(decode(&text), reference(&text), "{byte:#04x} at {at}");
            }
        }
    }

    #[test]
    fn a_slice_of_the_wrong_length_is_refused() {
        let mut out = [0u8; 4];
        assert_eq!(decode_to_slice(b"Zm9v", &mut out), None);
        assert_eq!(decode_to_slice(b"Zm9v", &mut out[..3]), Some(()));
        assert_eq!(&out[..3], b"foo");
    }
}
