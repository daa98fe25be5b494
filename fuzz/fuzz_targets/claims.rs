//! The claims parser on bytes an attacker fully controls (as a custom codec without
//! authentication would hand it): any input is rejected or yields a plaintext, never a panic.
//! Half the inputs are near-valid envelopes with fuzzed fields.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use mcp_runtime::state::{
    BoxError, Codec, InvalidRequestState, RequestBinding, RequestStateSecurity, StateBoundary,
};
use serde_json::{Value, json};

/// Hands the token's bytes straight to the claims check.
struct PassThrough;

impl Codec for PassThrough {
    fn seal(&self, plaintext: &[u8]) -> Result<String, BoxError> {
        Ok(String::from_utf8_lossy(plaintext).into_owned())
    }

    fn unseal(&self, token: &str) -> Result<Vec<u8>, InvalidRequestState> {
        Ok(token.as_bytes().to_vec())
    }
}

static BOUNDARY: LazyLock<StateBoundary> = LazyLock::new(|| {
    StateBoundary::new(RequestStateSecurity::codec(PassThrough), "fuzz").expect("boundary")
});
static BINDING: LazyLock<RequestBinding> =
    LazyLock::new(|| RequestBinding::new("tools/call", "t", None));

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest).into_owned();
    let candidate = if mode & 1 == 0 {
        text
    } else {
        // A well-formed envelope whose fields come from the input.
        let fields: Vec<&str> = text.splitn(6, '\u{0}').collect();
        let field = |i: usize| fields.get(i).copied().unwrap_or("");
        let number = |i: usize| field(i).parse::<f64>().unwrap_or(f64::from(mode));
        json!({
            "v": if mode & 2 == 0 { json!(1) } else { json!(field(0)) },
            "iat": number(1),
            "exp": number(2),
            "m": field(3),
            "t": "t",
            "a": field(4),
            "s": field(5),
            "aud": if mode & 4 == 0 { json!("fuzz") } else { Value::Null },
            "p": if mode & 8 == 0 { Value::Null } else { json!(field(0)) },
        })
        .to_string()
    };
    let _ = BOUNDARY.open(&Value::String(candidate), &BINDING, None);
});
