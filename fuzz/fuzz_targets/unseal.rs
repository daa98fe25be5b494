//! Any string presented as a `requestState` is rejected or opened, never a panic: the AES-GCM
//! envelope, the key ring lookup, base64 and the claims parser on whatever decrypts. Half the
//! inputs are spliced into a real token so the fuzzer reaches the cipher, not just base64.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use mcp_runtime::state::{RequestBinding, RequestStateSecurity, StateBoundary};
use serde_json::{Value, json};

static BOUNDARY: LazyLock<StateBoundary> = LazyLock::new(|| {
    let security = RequestStateSecurity::keys(["fuzzing-secret-0123456789abcdef0123456789"])
        .expect("a valid key");
    StateBoundary::new(security, "fuzz").expect("a valid boundary")
});
static BINDING: LazyLock<RequestBinding> =
    LazyLock::new(|| RequestBinding::new("tools/call", "t", Some(&json!({"a": 1}))));
static TOKEN: LazyLock<String> = LazyLock::new(|| {
    BOUNDARY
        .seal("round-1", &BINDING, None)
        .expect("sealing works")
});

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let candidate = if mode & 1 == 0 {
        String::from_utf8_lossy(rest).into_owned()
    } else {
        // Overwrite part of a genuine token with the input.
        let mut bytes = TOKEN.clone().into_bytes();
        let at = usize::from(mode >> 1) % bytes.len();
        for (slot, byte) in bytes[at..].iter_mut().zip(rest) {
            *slot = *byte;
        }
        String::from_utf8_lossy(&bytes).into_owned()
    };
    if let Ok(plain) = BOUNDARY.open(&Value::String(candidate.clone()), &BINDING, None) {
        // Only the genuine token may open.
        assert_eq!(candidate, *TOKEN);
        assert_eq!(plain, "round-1");
    }
});
