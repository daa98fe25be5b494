//! The claims check on bytes an attacker fully controls, as a custom codec without
//! authentication would hand them over: any input is rejected or yields a plaintext, never a
//! panic, and a plaintext only comes out of an envelope whose every claim holds.
//!
//! `Raw` inputs are arbitrary bytes. `Envelope` inputs are near-valid claims objects: each field
//! is either the genuine value or a fuzzed one (another type, another string, a boundary
//! number), in any order, with unknown fields (which refuse it), optional `\u` escaping and
//! trailing bytes. For those the expected verdict is computed independently and must match
//! exactly, so a check that is skipped or too strict fails the run, not only a panic.

#![no_main]

#[path = "shared/json_text.rs"]
mod json_text;

use std::fmt::Write as _;
use std::sync::LazyLock;

use json_text::write_string;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use mcp_runtime::BoxError;
use mcp_runtime::auth::Identity;
use mcp_runtime::state::{
    Codec, InvalidRequestState, RequestBinding, RequestStateSecurity, StateBoundary,
};
use serde_json::{Map, Value, json};

/// A fixed clock, so the time claims have exact boundaries and a crash replays.
const NOW: f64 = 1_800_000_000.0;
/// The skew `verify` tolerates for a token minted by a host whose clock runs ahead.
const FUTURE_SKEW: f64 = 60.0;
const AUDIENCE: &str = "fuzz";
const HEX: &str = "hex:";

/// No envelope at all: the token's bytes are the claims. `hex:` lets a token carry bytes that
/// are not UTF-8, as a custom codec's output may be.
struct PassThrough;

impl Codec for PassThrough {
    fn seal(&self, plaintext: &[u8]) -> Result<String, BoxError> {
        Ok(String::from_utf8(plaintext.to_vec())?)
    }

    fn unseal(&self, token: &str) -> Result<Vec<u8>, InvalidRequestState> {
        let Some(hex) = token.strip_prefix(HEX) else {
            return Ok(token.as_bytes().to_vec());
        };
        let bad = || InvalidRequestState::new("not hex");
        if hex.len() % 2 != 0 {
            return Err(bad());
        }
        (0..hex.len())
            .step_by(2)
            .map(|i| {
                hex.get(i..i + 2)
                    .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                    .ok_or_else(bad)
            })
            .collect()
    }
}

static BOUNDARY: LazyLock<StateBoundary> = LazyLock::new(|| {
    let security = RequestStateSecurity::codec(PassThrough).with_clock(|| NOW);
    StateBoundary::new(security, AUDIENCE).expect("boundary")
});
static BINDING: LazyLock<RequestBinding> =
    LazyLock::new(|| RequestBinding::new("tools/call", "deploy", Some(&json!({"env": "prod"}))));
static IDENTITY: LazyLock<Identity> = LazyLock::new(|| Identity {
    client_id: Some("fuzz-client".into()),
    issuer: Some("https://issuer.example".into()),
    subject: Some("user-1".into()),
    ..Identity::default()
});
/// The claims of a genuine token, principal included; the fields the fuzzer leaves alone.
static GENUINE: LazyLock<Map<String, Value>> = LazyLock::new(|| {
    let token = BOUNDARY
        .seal("plain", &BINDING, Some(&IDENTITY))
        .expect("seal");
    assert_eq!(
        BOUNDARY
            .open(&Value::String(token.clone()), &BINDING, Some(&IDENTITY))
            .as_deref(),
        Ok("plain"),
        "the unmutated envelope must open, or the oracle below proves nothing"
    );
    match serde_json::from_str(&token) {
        Ok(Value::Object(claims)) => claims,
        other => panic!("a pass-through token is the claims object: {other:?}"),
    }
});

/// One claim's value in a generated envelope.
#[derive(Arbitrary, Debug, Clone)]
enum Field {
    Genuine,
    Absent,
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
    Object,
}

#[derive(Arbitrary, Debug)]
struct Envelope {
    v: Field,
    iat: Field,
    exp: Field,
    m: Field,
    t: Field,
    a: Field,
    s: Field,
    aud: Field,
    p: Field,
    /// Unknown members, which refuse the envelope; `x` keeps them clear of the claim names.
    extra: Vec<(String, Field)>,
    rotate: u8,
    escape_all: bool,
    with_identity: bool,
    trailing: String,
}

#[derive(Arbitrary, Debug)]
enum Input {
    Raw(Vec<u8>),
    Envelope(Envelope),
}

/// A claim as `verify` should see it after parsing.
#[derive(Debug, PartialEq)]
enum Seen {
    Absent,
    Null,
    Bool,
    Number(f64),
    Text(String),
    Object,
}

const NAMES: [&str; 9] = ["v", "iat", "exp", "m", "t", "a", "s", "aud", "p"];

/// Writes `field` (if present) and returns what a JSON parser reads back; `None` when the
/// text is not JSON at all.
fn write_field(out: &mut String, name: &str, field: &Field, escape_all: bool) -> Option<Seen> {
    let genuine = GENUINE.get(name).cloned().unwrap_or(Value::Null);
    let field = match (field, &genuine) {
        (Field::Genuine, Value::String(s)) => Field::Text(s.clone()),
        (Field::Genuine, Value::Number(_)) => {
            // Written exactly as minted, e.g. `1800000000.0`.
            let text = genuine.to_string();
            out.push_str(&text);
            return Some(Seen::Number(text.parse().ok()?));
        }
        (Field::Genuine, _) => Field::Null,
        (other, _) => other.clone(),
    };
    Some(match field {
        Field::Genuine => unreachable!("resolved above"),
        Field::Absent => unreachable!("the caller skips absent fields"),
        Field::Null => {
            out.push_str("null");
            Seen::Null
        }
        Field::Bool(b) => {
            out.push_str(if b { "true" } else { "false" });
            Seen::Bool
        }
        Field::Int(i) => {
            let _ = write!(out, "{i}");
            Seen::Number(i as f64)
        }
        Field::Float(f) => {
            // `{:?}` writes NaN and inf, which are not JSON: those envelopes must be refused.
            let text = format!("{f:?}");
            out.push_str(&text);
            // JSON or not as serde_json judges; the value as correctly rounded, which is how
            // the claims reader reads it (serde_json without `float_roundtrip` may land one ulp
            // away).
            serde_json::from_str::<f64>(&text).ok()?;
            Seen::Number(text.parse().ok()?)
        }
        Field::Text(s) => {
            write_string(out, &s, escape_all);
            Seen::Text(s)
        }
        Field::Object => {
            out.push_str(r#"{"k":[1,"2"]}"#);
            Seen::Object
        }
    })
}

/// The verdict the claims check must reach: `Some(plaintext)` to accept.
fn expected(seen: &[Seen; 9], with_identity: bool) -> Option<String> {
    let [v, iat, exp, m, t, a, s, aud, p] = seen;
    let genuine_text = |name: &str| GENUINE[name].as_str().map(str::to_owned);
    let is_genuine = |seen: &Seen, name: &str| matches!(seen, Seen::Text(x) if Some(x.clone()) == genuine_text(name));
    let accepted = *v == Seen::Number(1.0)
        && matches!(iat, Seen::Number(x) if *x <= NOW + FUTURE_SKEW)
        && matches!(exp, Seen::Number(x) if NOW < *x)
        && is_genuine(m, "m")
        && is_genuine(t, "t")
        && is_genuine(a, "a")
        && *aud == Seen::Text(AUDIENCE.into())
        && if with_identity {
            // Another valid salted digest of this principal would need a SHA-256 preimage.
            is_genuine(p, "p")
        } else {
            matches!(p, Seen::Absent | Seen::Null)
        };
    match s {
        Seen::Text(plain) if accepted => Some(plain.clone()),
        _ => None,
    }
}

fn check_envelope(envelope: &Envelope) {
    let fields = [
        &envelope.v,
        &envelope.iat,
        &envelope.exp,
        &envelope.m,
        &envelope.t,
        &envelope.a,
        &envelope.s,
        &envelope.aud,
        &envelope.p,
    ];
    let mut seen = [const { Seen::Absent }; 9];
    // (key, field, index into `seen` or none for an unknown member)
    let mut members: Vec<(String, &Field, Option<usize>)> = Vec::new();
    for (i, (name, field)) in NAMES.iter().zip(fields).enumerate() {
        if !matches!(field, Field::Absent) {
            members.push(((*name).to_owned(), field, Some(i)));
        }
    }
    for (key, field) in &envelope.extra {
        // An unknown member has no genuine value to fall back to, and must be present.
        if !matches!(field, Field::Genuine | Field::Absent) {
            members.push((format!("x{key}"), field, None));
        }
    }
    if !members.is_empty() {
        let by = usize::from(envelope.rotate) % members.len();
        members.rotate_left(by);
    }

    let mut text = String::from("{");
    let mut json = true;
    for (n, (key, field, slot)) in members.iter().enumerate() {
        if n > 0 {
            text.push(',');
        }
        write_string(&mut text, key, envelope.escape_all);
        text.push(':');
        let name = slot.map_or("", |i| NAMES[i]);
        match write_field(&mut text, name, field, envelope.escape_all) {
            Some(value) => {
                if let Some(i) = slot {
                    seen[*i] = value;
                }
            }
            None => json = false,
        }
    }
    text.push('}');
    text.push_str(&envelope.trailing);
    json &= envelope
        .trailing
        .chars()
        .all(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));

    let identity = envelope.with_identity.then_some(&*IDENTITY);
    let got = BOUNDARY
        .open(&Value::String(text.clone()), &BINDING, identity)
        .ok();
    let unknown = members.iter().any(|(_, _, slot)| slot.is_none());
    let want = if json && !unknown {
        expected(&seen, envelope.with_identity)
    } else {
        None
    };
    assert_eq!(got, want, "verdict on {text}");
}

/// Raw bytes have no generated oracle; an accepted one must still carry every genuine claim.
fn check_raw(bytes: &[u8]) {
    let token = match std::str::from_utf8(bytes) {
        Ok(text) if !text.starts_with(HEX) => text.to_owned(),
        _ => bytes.iter().fold(HEX.to_owned(), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        }),
    };
    let Ok(plain) = BOUNDARY.open(&Value::String(token), &BINDING, None) else {
        return;
    };
    let claims: Map<String, Value> =
        serde_json::from_slice(bytes).expect("accepted claims are JSON");
    let number = |name: &str| claims.get(name).and_then(Value::as_f64);
    assert_eq!(number("v"), Some(1.0));
    assert!(number("iat").is_some_and(|iat| iat <= NOW + FUTURE_SKEW));
    assert!(number("exp").is_some_and(|exp| NOW < exp));
    for name in ["m", "t", "a"] {
        assert_eq!(claims.get(name), GENUINE.get(name), "claim {name}");
    }
    assert_eq!(claims.get("aud"), Some(&json!(AUDIENCE)));
    assert!(matches!(claims.get("p"), None | Some(Value::Null)));
    assert_eq!(claims.get("s"), Some(&Value::String(plain)));
}

fuzz_target!(|input: Input| {
    match input {
        Input::Raw(bytes) => check_raw(&bytes),
        Input::Envelope(envelope) => check_envelope(&envelope),
    }
});
