//! Any string presented as a `requestState` to an AES-256-GCM key ring is rejected, never a
//! panic, and nothing but the one genuine token opens.
//!
//! Random strings mostly die at the `v1.` prefix or in base64, so most inputs are instead
//! mutations of a genuine token; the `BodyXor` mode re-encodes its mutation so that every such
//! input gets past base64 and reaches the key lookup and the GCM tag check.

#![no_main]

use std::sync::LazyLock;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use libfuzzer_sys::fuzz_target;
use mcp_runtime::auth::Identity;
use mcp_runtime::state::{RequestBinding, RequestStateSecurity, StateBoundary};
use serde_json::{Value, json};

/// A fixed clock, so the genuine token never expires during a long run and a crash replays.
const NOW: f64 = 1_800_000_000.0;
const NEW_KEY: &str = "fuzzing-secret-new-0123456789abcdef012345";
const OLD_KEY: &str = "fuzzing-secret-old-0123456789abcdef012345";
const PLAINTEXT: &str = "round-1";

fn boundary(keys: &[&str]) -> StateBoundary {
    let security = RequestStateSecurity::keys(keys)
        .expect("valid keys")
        .with_clock(|| NOW);
    StateBoundary::new(security, "fuzz").expect("a valid boundary")
}

/// The ring under test; the genuine token was sealed by its second key, so opening it takes
/// the key-id lookup past the first entry.
static RING: LazyLock<StateBoundary> = LazyLock::new(|| boundary(&[NEW_KEY, OLD_KEY]));
static BINDING: LazyLock<RequestBinding> =
    LazyLock::new(|| RequestBinding::new("tools/call", "t", Some(&json!({"a": 1}))));
static IDENTITY: LazyLock<Identity> = LazyLock::new(|| Identity {
    client_id: Some("fuzz-client".into()),
    issuer: Some("https://issuer.example".into()),
    subject: Some("user-1".into()),
    ..Identity::default()
});
static TOKEN: LazyLock<String> = LazyLock::new(|| {
    let token = boundary(&[OLD_KEY])
        .seal(PLAINTEXT, &BINDING, Some(&IDENTITY))
        .expect("sealing works");
    // Without this the oracle below would hold vacuously.
    assert_eq!(
        RING.open(&Value::String(token.clone()), &BINDING, Some(&IDENTITY))
            .as_deref(),
        Ok(PLAINTEXT)
    );
    token
});
/// The token's binary body: key id ‖ nonce ‖ ciphertext ‖ tag.
static BODY: LazyLock<Vec<u8>> = LazyLock::new(|| {
    URL_SAFE_NO_PAD
        .decode(&TOKEN["v1.".len()..])
        .expect("the genuine token is base64url")
});

fn candidate(data: &[u8]) -> Option<String> {
    let (&mode, rest) = data.split_first()?;
    let (at, rest) = match rest {
        [hi, lo, rest @ ..] => (usize::from(u16::from_be_bytes([*hi, *lo])), rest),
        _ => (0, rest),
    };
    match mode % 4 {
        // Arbitrary text.
        0 => std::str::from_utf8(rest).ok().map(str::to_owned),
        // Flip bits of the token text.
        1 => {
            let mut bytes = TOKEN.clone().into_bytes();
            let at = at % bytes.len();
            for (slot, mask) in bytes[at..].iter_mut().zip(rest) {
                *slot ^= mask;
            }
            String::from_utf8(bytes).ok()
        }
        // Flip bits of the decoded body and encode it again: always valid base64.
        2 => {
            let mut body = BODY.clone();
            let at = at % body.len();
            for (slot, mask) in body[at..].iter_mut().zip(rest) {
                *slot ^= mask;
            }
            Some(format!("v1.{}", URL_SAFE_NO_PAD.encode(&body)))
        }
        // Replace a slice of the token text, changing its length.
        _ => {
            let token = TOKEN.as_bytes();
            let start = at % (token.len() + 1);
            let cut = usize::from(mode >> 2) % (token.len() - start + 1);
            let mut bytes = token[..start].to_vec();
            bytes.extend_from_slice(rest);
            bytes.extend_from_slice(&token[start + cut..]);
            String::from_utf8(bytes).ok()
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(candidate) = candidate(data) else {
        return;
    };
    let opened = RING.open(&Value::String(candidate.clone()), &BINDING, Some(&IDENTITY));
    if let Ok(plain) = opened {
        assert_eq!(
            candidate, *TOKEN,
            "a token other than the genuine one opened"
        );
        assert_eq!(plain, PLAINTEXT);
    }
});
