//! Sealing and opening a 200-byte `requestState` with every claim: audience, a principal bound
//! from a verified identity, and the request binding (method, tool, arguments digest).
//! Compare with the Python SDK: `scripts/bench_sealing.sh` runs both.
//!
//! Timed in the thread's CPU time, not the wall clock (`support/cpu_time.rs`), so a busy
//! machine does not inflate the figures; on a quiet one the two agree.

#[path = "support/cpu_time.rs"]
mod cpu_time;

use std::hint::black_box;

use cpu_time::ThreadCpuTime;
use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::auth::Identity;
use mcp_runtime::state::{AesGcmCodec, Codec, RequestBinding, RequestStateSecurity, StateBoundary};
use serde_json::{Value, json};

/// The state and call the Python comparison uses too (`scripts/bench_python_request_state.py`).
pub const STATE_LEN: usize = 200;

fn setup() -> (StateBoundary, RequestBinding, Identity, String) {
    let security = RequestStateSecurity::keys(["benchmark-secret-0123456789abcdef0123456789"])
        .expect("a valid key");
    let boundary = StateBoundary::new(security, "bench").expect("a valid boundary");
    let binding = RequestBinding::new(
        "tools/call",
        "provision",
        Some(&json!({"name": "orders", "region": "eu-west-1"})),
    );
    let identity = Identity {
        client_id: Some("bench-client".into()),
        issuer: Some("https://issuer.example".into()),
        subject: Some("user-42".into()),
        ..Identity::default()
    };
    let state = "s".repeat(STATE_LEN);
    (boundary, binding, identity, state)
}

fn sealing(c: &mut Criterion<ThreadCpuTime>) {
    let (boundary, binding, identity, state) = setup();
    let token = boundary
        .seal(&state, &binding, Some(&identity))
        .expect("seal");
    let token_value = Value::String(token.clone());
    assert_eq!(
        boundary.open(&token_value, &binding, Some(&identity)).ok(),
        Some(state.clone())
    );

    c.bench_function("seal_200b_all_claims", |b| {
        b.iter(|| boundary.seal(black_box(&state), &binding, Some(&identity)))
    });
    // Opening must succeed inside the loop too: a rejection is cheaper than an open, and a
    // benchmark that quietly timed rejections would flatter us.
    c.bench_function("open_200b_all_claims", |b| {
        b.iter(|| {
            boundary
                .open(black_box(&token_value), &binding, Some(&identity))
                .expect("open")
        })
    });
    c.bench_function("seal_and_open_200b_all_claims", |b| {
        b.iter(|| {
            let token = boundary
                .seal(black_box(&state), &binding, Some(&identity))
                .expect("seal");
            boundary
                .open(&Value::String(token), &binding, Some(&identity))
                .expect("open")
        })
    });
}

/// The AES-256-GCM envelope alone on a claims-sized payload, to split the cost of a round
/// between the cipher and the claims.
fn codec(c: &mut Criterion<ThreadCpuTime>) {
    let codec = AesGcmCodec::new(["benchmark-secret-0123456789abcdef0123456789"]).expect("key");
    let (boundary, binding, identity, state) = setup();
    // The codec's real input: the claims a seal would hand it.
    let claims_len = boundary
        .seal(&state, &binding, Some(&identity))
        .map(|token| (token.len() - "v1.".len()) * 3 / 4 - 4 - 12 - 16)
        .expect("seal");
    let payload = vec![b'c'; claims_len];
    c.bench_function("aes_gcm_codec_seal_and_unseal_claims_sized", |b| {
        b.iter(|| {
            let token = codec.seal(black_box(&payload)).expect("seal");
            let opened = codec.unseal(&token).expect("unseal");
            assert_eq!(opened.len(), payload.len());
            opened
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = sealing, codec
}
criterion_main!(benches);
