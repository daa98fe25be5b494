//! The claims every sealed token carries, whatever the codec: when it was minted, until when it
//! is good, which request it belongs to, which server and which principal.
//!
//! The layout is the Python SDK's envelope (`{"v":1,"iat","exp","m","t","a","s","aud"?,"p"?}`,
//! compact JSON in that order), so tokens interoperate with a Python fleet sharing the key.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::base64url;
use super::claims_reader;
use super::error::InvalidRequestState;
use super::random::fill_random;
use super::short_digest::ShortDigest;
use crate::protocol::canonical::{is_canonical, write_float, write_object, write_str, write_value};

/// A token minted more than this far in the future (clock skew between instances) is refused.
pub(crate) const MAX_FUTURE_SKEW_SECS: f64 = 60.0;
const PRINCIPAL_DOMAIN: &[u8] = b"mcp/request-state/principal:";
const SALT_LEN: usize = 8;
const DIGEST_LEN: usize = 16;
const PRINCIPAL_CLAIM_LEN: usize = base64url::encoded_len(SALT_LEN + DIGEST_LEN);

/// The request a token is bound to: method, tool or prompt name (or resource URI), and a digest
/// of the arguments (SHA-256 of their sorted-key canonical JSON). Replaying a token on anything
/// else fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestBinding {
    /// Borrowed for the methods that carry state, so a round copies no method name.
    method: Cow<'static, str>,
    target: String,
    /// Of the arguments' sorted-key canonical JSON.
    arguments: ShortDigest,
}

/// `method` as a `'static` name when it is one of the methods that carry state.
fn method_name(method: &str) -> Cow<'static, str> {
    use crate::protocol::methods::{PROMPTS_GET, RESOURCES_READ, TOOLS_CALL};
    match method {
        TOOLS_CALL => Cow::Borrowed(TOOLS_CALL),
        PROMPTS_GET => Cow::Borrowed(PROMPTS_GET),
        RESOURCES_READ => Cow::Borrowed(RESOURCES_READ),
        other => Cow::Owned(other.to_owned()),
    }
}

impl RequestBinding {
    /// Reads the binding from a carrier request's raw params (`name` and `arguments`, or `uri`
    /// for `resources/read`), for params that do not decode as the method's. `None` when they
    /// name no target; such a request cannot own state.
    pub(crate) fn from_raw_params(method: &str, params: Option<&RawValue>) -> Option<Self> {
        #[derive(Deserialize)]
        struct Shape {
            name: Option<String>,
            uri: Option<String>,
            arguments: Option<Value>,
        }
        let shape: Shape = serde_json::from_str(params?.get()).ok()?;
        if method == crate::protocol::methods::RESOURCES_READ {
            return Some(Self::new(method, shape.uri?, None));
        }
        Some(Self::new(method, shape.name?, shape.arguments.as_ref()))
    }

    /// The binding of `method` on `target` (a tool or prompt name, or a resource URI) with
    /// these arguments; absent and empty arguments bind alike.
    pub fn new(method: &str, target: impl Into<String>, arguments: Option<&Value>) -> Self {
        Self::with_arguments(method, target, |json| match arguments {
            Some(v) if !is_falsy(v) => {
                write_value(json, v, true);
                true
            }
            _ => false,
        })
    }

    /// The method it binds to.
    pub(crate) fn method(&self) -> &str {
        &self.method
    }

    /// The binding of a call whose arguments are an object, as decoded params hold them.
    pub(crate) fn with_object(
        method: &str,
        target: impl Into<String>,
        arguments: Option<&Map<String, Value>>,
    ) -> Self {
        Self::with_arguments(method, target, |json| match arguments {
            Some(map) if !map.is_empty() => {
                write_object(json, map, true);
                true
            }
            _ => false,
        })
    }

    /// The binding whose arguments `write` appends as sorted-key canonical JSON, returning
    /// `false` when there are none: those are digested as `{}` (as Python's `arguments or {}`).
    pub(crate) fn with_arguments(
        method: &str,
        target: impl Into<String>,
        write: impl FnOnce(&mut String) -> bool,
    ) -> Self {
        let mut json = String::new();
        if !write(&mut json) {
            json.clear();
            json.push_str("{}");
        }
        Self::digesting(method, target, &json)
    }

    /// The binding of arguments given as JSON text (`None` or `null` for none), digested as
    /// they stand when they are an object in canonical form already, as clients that write
    /// compact JSON with sorted keys send them; `None` when they must be decoded and written
    /// again instead.
    pub(crate) fn of_canonical_text(
        method: &str,
        target: &str,
        arguments: Option<&str>,
    ) -> Option<Self> {
        let canonical = match arguments {
            None | Some("null") => "{}",
            Some(text) if text.starts_with('{') && is_canonical(text) => text,
            Some(_) => return None,
        };
        Some(Self::digesting(method, target, canonical))
    }

    fn digesting(method: &str, target: impl Into<String>, canonical: &str) -> Self {
        Self {
            method: method_name(method),
            target: target.into(),
            arguments: ShortDigest::of(canonical),
        }
    }
}

fn is_falsy(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// What goes into a token besides the handler's plaintext.
pub(crate) struct Mint<'a> {
    pub now: f64,
    pub ttl_secs: f64,
    pub binding: &'a RequestBinding,
    pub audience: Option<&'a str>,
    pub principal: Option<&'a str>,
}

/// The claims envelope as compact JSON, ready for the codec.
pub(crate) fn encode(mint: &Mint<'_>, state: &str) -> Vec<u8> {
    let mut out = String::with_capacity(160 + state.len() * 6 / 5);
    out.push_str("{\"v\":1,\"iat\":");
    write_time(&mut out, mint.now);
    out.push_str(",\"exp\":");
    write_time(&mut out, mint.now + mint.ttl_secs);
    out.push_str(",\"m\":");
    write_str(&mut out, &mint.binding.method);
    out.push_str(",\"t\":");
    write_str(&mut out, &mint.binding.target);
    out.push_str(",\"a\":");
    write_str(&mut out, mint.binding.arguments.as_str());
    out.push_str(",\"s\":");
    write_str(&mut out, state);
    if let Some(audience) = mint.audience {
        out.push_str(",\"aud\":");
        write_str(&mut out, audience);
    }
    if let Some(principal) = mint.principal {
        out.push_str(",\"p\":\"");
        // base64url needs no JSON escaping.
        let mut claim = [0u8; PRINCIPAL_CLAIM_LEN];
        out.push_str(principal_claim(principal, &mut claim));
        out.push('"');
    }
    out.push('}');
    out.into_bytes()
}

/// Unix seconds as Python's `repr(float)` writes them. Times are kept to the millisecond, which
/// the shortest round-trip form writes as at most three decimals, so the common case needs no
/// general float formatting.
fn write_time(out: &mut String, seconds: f64) {
    let millis = (seconds * 1000.0).round();
    let exact = millis / 1000.0 == seconds;
    if !(exact && (0.0..1e15).contains(&millis)) {
        return write_float(out, seconds);
    }
    let millis = millis as u64;
    // Digit by digit: `write!` and its formatting machinery cost more than the digits.
    let (whole, frac) = (millis / 1000, millis % 1000);
    // Whole seconds (below 10^12, so at most 12 digits) end at the point, at `POINT`.
    const POINT: usize = 12;
    let mut text = [0u8; POINT + 4];
    let mut at = POINT;
    let mut rest = whole;
    loop {
        at -= 1;
        text[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    text[POINT] = b'.';
    let frac = [frac / 100, frac / 10 % 10, frac % 10];
    let kept = frac
        .iter()
        .rposition(|&d| d != 0)
        .map_or(1, |last| last + 1);
    for (slot, digit) in text[POINT + 1..].iter_mut().zip(&frac[..kept]) {
        *slot = b'0' + *digit as u8;
    }
    out.push_str(std::str::from_utf8(&text[at..=POINT + kept]).expect("ASCII digits"));
}

/// What a token must match to be accepted.
pub(crate) struct Expect<'a> {
    pub now: f64,
    pub binding: &'a RequestBinding,
    pub audience: Option<&'a str>,
    pub principal: Option<&'a str>,
}

/// Checks the claims of an opened token and returns the handler's plaintext, made in the
/// token's own buffer.
pub(crate) fn verify(bytes: Vec<u8>, expect: &Expect<'_>) -> Result<String, InvalidRequestState> {
    let reject = InvalidRequestState::new;
    let state = {
        let text = std::str::from_utf8(&bytes).map_err(|_| reject("malformed"))?;
        let claims = claims_reader::read(text).ok_or_else(|| reject("malformed"))?;
        // JSON numbers are never NaN, so these comparisons cannot be dodged.
        if claims.v != 1.0 {
            return Err(reject("malformed"));
        }
        if claims.iat > expect.now + MAX_FUTURE_SKEW_SECS {
            return Err(reject("minted in the future"));
        }
        if expect.now >= claims.exp {
            return Err(reject("expired"));
        }
        let binding = expect.binding;
        let bound = claims.m.as_deref() == Some(&*binding.method)
            && claims.t.as_deref() == Some(binding.target.as_str())
            && claims.a.as_deref() == Some(binding.arguments.as_str());
        if !bound {
            return Err(reject("request binding"));
        }
        if claims.aud.as_deref() != expect.audience {
            return Err(reject("audience"));
        }
        match (claims.p.as_deref(), expect.principal) {
            (None, None) => {}
            (Some(claim), Some(principal)) => {
                if !principal_matches(claim, principal) {
                    return Err(reject("principal"));
                }
            }
            _ => return Err(reject("principal drift")),
        }
        claims.s
    };
    state.into_string(bytes).ok_or_else(|| reject("malformed"))
}

/// `base64url(salt ‖ SHA-256(domain ‖ salt ‖ principal)[..16])` with a fresh salt, so two tokens
/// of one principal do not reveal that they share it.
fn principal_claim<'a>(principal: &str, out: &'a mut [u8; PRINCIPAL_CLAIM_LEN]) -> &'a str {
    let mut raw = [0u8; SALT_LEN + DIGEST_LEN];
    fill_random(&mut raw[..SALT_LEN]);
    let (salt, digest) = raw.split_at_mut(SALT_LEN);
    digest.copy_from_slice(&principal_digest(salt, principal)[..DIGEST_LEN]);
    base64url::encode_to_slice(&raw, out)
}

fn principal_matches(claim: &str, principal: &str) -> bool {
    // Decoded on the stack: only an encoding of exactly salt ‖ digest fills it.
    let mut raw = [0u8; SALT_LEN + DIGEST_LEN];
    if base64url::decode_to_slice(claim.as_bytes(), &mut raw).is_none() {
        return false;
    }
    let (salt, digest) = raw.split_at(SALT_LEN);
    let expected = principal_digest(salt, principal);
    bool::from(expected[..DIGEST_LEN].ct_eq(digest))
}

fn principal_digest(salt: &[u8], principal: &str) -> [u8; 32] {
    Sha256::new()
        .chain_update(PRINCIPAL_DOMAIN)
        .chain_update(salt)
        .chain_update(principal.as_bytes())
        .finalize()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn binding() -> RequestBinding {
        RequestBinding::new("tools/call", "provision", Some(&json!({"name": "orders"})))
    }

    fn expect<'a>(binding: &'a RequestBinding, now: f64) -> Expect<'a> {
        Expect {
            now,
            binding,
            audience: Some("svc"),
            principal: None,
        }
    }

    #[test]
    fn resource_arguments_digest_is_the_python_constant() {
        let b = RequestBinding::new("resources/read", "x://y", None);
        assert_eq!(b.arguments.as_str(), "RBNvo1WzZ4oRRq0W9-hkng");
        let empty = RequestBinding::new("tools/call", "t", Some(&json!({})));
        assert_eq!(empty.arguments, b.arguments);
    }

    #[test]
    fn arguments_digest_ignores_key_order_and_how_the_arguments_are_held() {
        let a = RequestBinding::new("tools/call", "t", Some(&json!({"a": 1, "b": [2]})));
        let sent: Map<String, Value> =
            serde_json::from_str(r#"{"b":[2],"a":1}"#).expect("an object");
        assert_eq!(
            a,
            RequestBinding::with_object("tools/call", "t", Some(&sent))
        );
        let empty = RequestBinding::with_object("tools/call", "t", Some(&Map::new()));
        assert_eq!(empty, RequestBinding::new("tools/call", "t", None));
        let other = json!({"a": 2, "b": [2]});
        assert_ne!(
            a,
            RequestBinding::with_object("tools/call", "t", other.as_object())
        );
    }

    #[test]
    fn the_envelope_keeps_python_key_order() {
        let b = binding();
        let mint = Mint {
            now: 1796235646.978,
            ttl_secs: 600.0,
            binding: &b,
            audience: Some("mrtr-demo"),
            principal: None,
        };
        let text = String::from_utf8(encode(&mint, "s\u{e9}")).expect("ascii");
        assert_eq!(
            text,
            format!(
                r#"{{"v":1,"iat":1796235646.978,"exp":1796236246.978,"m":"tools/call","t":"provision","a":"{}","s":"s\u00e9","aud":"mrtr-demo"}}"#,
                b.arguments.as_str()
            )
        );
    }

    #[test]
    fn claims_round_trip_and_each_mismatch_has_its_reason() {
        let b = binding();
        let mint = Mint {
            now: 1000.0,
            ttl_secs: 600.0,
            binding: &b,
            audience: Some("svc"),
            principal: Some("alice"),
        };
        let bytes = encode(&mint, "plain");
        let mut ok = expect(&b, 1000.0);
        ok.principal = Some("alice");
        assert_eq!(verify(bytes.clone(), &ok).expect("valid"), "plain");

        let reason = |e: Expect<'_>| {
            verify(bytes.clone(), &e)
                .expect_err("rejected")
                .reason()
                .to_owned()
        };
        let mut e = expect(&b, 1600.0);
        e.principal = Some("alice");
        assert_eq!(reason(e), "expired");
        let mut e = expect(&b, 939.0);
        e.principal = Some("alice");
        assert_eq!(reason(e), "minted in the future");
        let other = RequestBinding::new("tools/call", "provision", None);
        let mut e = expect(&other, 1000.0);
        e.principal = Some("alice");
        assert_eq!(reason(e), "request binding");
        let mut e = expect(&b, 1000.0);
        e.principal = Some("alice");
        e.audience = None;
        assert_eq!(reason(e), "audience");
        let mut e = expect(&b, 1000.0);
        e.principal = Some("bob");
        assert_eq!(reason(e), "principal");
        assert_eq!(reason(expect(&b, 1000.0)), "principal drift");
    }

    #[test]
    fn times_are_written_as_python_floats() {
        let write = |t: f64| {
            let mut s = String::new();
            write_time(&mut s, t);
            s
        };
        for (t, expected) in [
            (1796235646.978, "1796235646.978"),
            (1796235646.5, "1796235646.5"),
            (1796235646.05, "1796235646.05"),
            (1796235646.0, "1796235646.0"),
            (1796235646.001, "1796235646.001"),
            (1796235646.1234, "1796235646.1234"),
            (0.5, "0.5"),
        ] {
            assert_eq!(write(t), expected, "{t}");
        }
    }

    #[test]
    fn two_mints_for_one_principal_differ() {
        let claim =
            |principal| principal_claim(principal, &mut [0; PRINCIPAL_CLAIM_LEN]).to_owned();
        let alice = claim("alice");
        assert_ne!(alice, claim("alice"));
        assert!(principal_matches(&alice, "alice"));
        assert!(!principal_matches(&alice, "bob"));
        assert!(!principal_matches(&alice[1..], "alice"));
    }

    #[test]
    fn a_positional_array_is_not_an_envelope() {
        // The envelope is an object, as the Python SDK reads it; a serde-derived reader would
        // also have taken the claims as an array, field by field.
        let b = binding();
        let array = format!(
            r#"[1,1000,1600,"tools/call","provision","{}","plain","svc",null]"#,
            b.arguments.as_str()
        );
        let err = verify(array.into_bytes(), &expect(&b, 1000.0)).expect_err("rejected");
        assert_eq!(err.reason(), "malformed");
        let object = format!(
            r#" {{"v":1,"iat":1000,"exp":1600,"m":"tools/call","t":"provision","a":"{}","s":"plain","aud":"svc"}}"#,
            b.arguments.as_str()
        );
        assert_eq!(
            verify(object.into_bytes(), &expect(&b, 1000.0)).as_deref(),
            Ok("plain")
        );
    }

    #[test]
    fn non_envelopes_are_malformed() {
        let b = binding();
        for bytes in [
            &b"not json"[..],
            b"{}",
            br#"{"v":2,"iat":1,"exp":9e9,"s":""}"#,
            b"[1]",
        ] {
            let err = verify(bytes.to_vec(), &expect(&b, 1000.0)).expect_err("rejected");
            assert_eq!(err.reason(), "malformed");
        }
    }
}
