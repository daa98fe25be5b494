//! The sealed-state boundary on the request path: every way a `requestState` can be forged,
//! altered, replayed or carried elsewhere ends in the same wire bytes, and honest rounds finish.

use std::sync::Arc;

use aes_gcm::Aes256Gcm;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use mcp_runtime::BoxError;
use mcp_runtime::auth::Identity;
use mcp_runtime::protocol::{
    CallToolResult, GetPromptResult, Implementation, InputRequiredResult, Outcome, PromptMessage,
    RawRequest, ReadResourceResult, RequestId, ResourceContents,
};
use mcp_runtime::server::{Connection, Exchange, NotificationSink, Server};
use mcp_runtime::state::{Codec, InvalidRequestState, RequestStateSecurity};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const FROZEN: &str = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid or expired requestState","data":{"reason":"invalid_request_state"}}}"#;
const INTERNAL: &str =
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#;
const KEY_OLD: &str = "old-secret-0123456789abcdef0123456789";
const KEY_NEW: &str = "new-secret-0123456789abcdef0123456789";

/// A server whose tools, prompt and resource mint state on the first round and report the
/// plaintext they were handed on the next.
fn server(name: &str, security: RequestStateSecurity) -> Server {
    fn round<T>(state: Option<String>, done: impl FnOnce(String) -> T) -> Outcome<T> {
        match state {
            None => InputRequiredResult::new().with_state("round-1").into(),
            Some(plain) => Outcome::Complete(done(plain)),
        }
    }
    Server::builder(Implementation::new(name, "1.0.0"))
        .request_state_security(security)
        .on_call_tool(|_ctx, call| async move {
            Ok(match call.name.as_str() {
                "plain" => CallToolResult::text("never mints").into(),
                _ => round(call.request_state, |s| {
                    CallToolResult::text(format!("saw {s}"))
                }),
            })
        })
        .on_get_prompt(|_ctx, get| async move {
            Ok(round(get.request_state, |s| {
                GetPromptResult::new(vec![PromptMessage::user(format!("saw {s}"))])
            }))
        })
        .on_read_resource(|_ctx, read| async move {
            Ok(round(read.request_state, |s| {
                ReadResourceResult::new(vec![ResourceContents::text(read.uri, format!("saw {s}"))])
            }))
        })
        .build()
        .expect("the server builds")
}

fn keys(secrets: &[&str]) -> RequestStateSecurity {
    RequestStateSecurity::keys(secrets).expect("valid keys")
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn tool(name: &str, args: Value, state: Option<Value>) -> (&'static str, Value) {
    let mut params = json!({"name": name, "arguments": args, "_meta": meta()});
    if let Some(state) = state {
        params["requestState"] = state;
    }
    ("tools/call", params)
}

fn prompt(name: &str, state: Option<Value>) -> (&'static str, Value) {
    let mut params = json!({"name": name, "arguments": {"env": "prod"}, "_meta": meta()});
    if let Some(state) = state {
        params["requestState"] = state;
    }
    ("prompts/get", params)
}

fn resource(uri: &str, state: Option<Value>) -> (&'static str, Value) {
    let mut params = json!({"uri": uri, "_meta": meta()});
    if let Some(state) = state {
        params["requestState"] = state;
    }
    ("resources/read", params)
}

/// Sends one request as `who` and returns the response line exactly as written.
async fn send(server: &Server, request: (&str, Value), who: Option<&Identity>) -> String {
    let (method, params) = request;
    let raw = RawRequest {
        id: RequestId::Number(1),
        method: method.to_owned(),
        params: Some(RawValue::from_string(params.to_string()).expect("json")),
    };
    let (tx, _rx) = tokio::sync::mpsc::channel(16);
    let exchange = Exchange::new(
        Arc::new(Connection::new()),
        NotificationSink::new(tx),
        CancellationToken::new(),
    )
    .with_identity(who.cloned().map(Arc::new));
    server
        .answer(raw, exchange)
        .await
        .expect("not cancelled")
        .into_line()
}

/// The first round: returns the sealed token.
async fn mint(server: &Server, request: (&str, Value), who: Option<&Identity>) -> String {
    let line = send(server, request, who).await;
    let reply: Value = serde_json::from_str(&line).expect("json");
    assert_eq!(reply["result"]["resultType"], "input_required", "{line}");
    let token = reply["result"]["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();
    assert_ne!(token, "round-1", "the plaintext never reaches the client");
    assert!(!token.contains("round"), "{token}");
    token
}

/// The second round must finish with the plaintext handed to the handler.
async fn assert_resumes(server: &Server, request: (&str, Value), who: Option<&Identity>) {
    let line = send(server, request, who).await;
    assert!(line.contains("saw round-1"), "expected to resume: {line}");
    assert!(line.contains(r#""resultType":"complete""#), "{line}");
}

async fn assert_frozen(server: &Server, request: (&str, Value), who: Option<&Identity>) {
    let line = send(server, request, who).await;
    assert_eq!(line, FROZEN);
}

fn alice() -> Identity {
    Identity {
        client_id: Some("app".into()),
        issuer: Some("https://issuer.example".into()),
        subject: Some("alice".into()),
        ..Identity::default()
    }
}

fn bob() -> Identity {
    Identity {
        subject: Some("bob".into()),
        ..alice()
    }
}

#[tokio::test]
async fn honest_rounds_finish_on_every_carrier() {
    let s = server("svc", RequestStateSecurity::ephemeral());
    let args = json!({"name": "orders"});
    let token = mint(&s, tool("step", args.clone(), None), None).await;
    assert_resumes(&s, tool("step", args, Some(token.into())), None).await;

    let token = mint(&s, prompt("brief", None), None).await;
    assert_resumes(&s, prompt("brief", Some(token.into())), None).await;

    let token = mint(&s, resource("deploy://prod/confirm", None), None).await;
    assert_resumes(
        &s,
        resource("deploy://prod/confirm", Some(token.into())),
        None,
    )
    .await;
}

#[tokio::test]
async fn every_single_bit_flip_is_rejected() {
    let s = server("svc", RequestStateSecurity::ephemeral());
    let args = json!({"name": "orders"});
    let token = mint(&s, tool("step", args.clone(), None), None).await;
    let body = token.strip_prefix("v1.").expect("v1 envelope");
    let raw = URL_SAFE_NO_PAD.decode(body).expect("base64url");
    let mut tried = 0;
    for byte in 0..raw.len() {
        for bit in 0..8 {
            let mut flipped = raw.clone();
            flipped[byte] ^= 1 << bit;
            let forged = format!("v1.{}", URL_SAFE_NO_PAD.encode(&flipped));
            assert_frozen(&s, tool("step", args.clone(), Some(forged.into())), None).await;
            tried += 1;
        }
    }
    // The envelope prefix too, bit by bit, wherever the result is still printable ASCII.
    for at in 0..3 {
        for bit in 0..7 {
            let mut bytes = token.clone().into_bytes();
            bytes[at] ^= 1 << bit;
            if let Ok(forged) = String::from_utf8(bytes) {
                assert_frozen(&s, tool("step", args.clone(), Some(forged.into())), None).await;
                tried += 1;
            }
        }
    }
    assert!(tried > 8 * 32, "covered the whole token: {tried} flips");
    assert_resumes(&s, tool("step", args, Some(token.into())), None).await;
}

#[tokio::test]
async fn every_alias_and_mangling_of_a_token_is_rejected() {
    let s = server("svc", RequestStateSecurity::ephemeral());
    let args = json!({"name": "orders"});
    // Keep minting until the token uses both url-safe characters, so the standard alphabet
    // spelling really differs.
    let mut token = mint(&s, tool("step", args.clone(), None), None).await;
    while !(token.contains('-') || token.contains('_')) {
        token = mint(&s, tool("step", args.clone(), None), None).await;
    }
    let raw = URL_SAFE_NO_PAD.decode(&token[3..]).expect("base64url body");
    let standard = format!("v1.{}", STANDARD_NO_PAD.encode(&raw));
    assert_ne!(standard, token);
    let mangled = [
        format!("{token}-TAMPERED"),
        format!("{token}="),
        format!("{token}=="),
        standard,
        token[..token.len() - 1].to_owned(),
        token[..token.len() - 4].to_owned(),
        token[..40].to_owned(),
        "v1.".to_owned(),
        String::new(),
        token[3..].to_owned(),
        format!("v2.{}", &token[3..]),
        token.to_uppercase(),
        format!(" {token}"),
        "hello".to_owned(),
        "round-1".to_owned(),
    ];
    for forged in mangled {
        assert_frozen(&s, tool("step", args.clone(), Some(forged.into())), None).await;
    }
    assert_resumes(&s, tool("step", args, Some(token.into())), None).await;
}

#[tokio::test]
async fn non_string_state_is_rejected_and_null_is_absent() {
    let s = server("svc", RequestStateSecurity::ephemeral());
    let args = json!({"name": "orders"});
    for bad in [json!(123), json!(true), json!({"s": "x"}), json!(["v1.x"])] {
        assert_frozen(&s, tool("step", args.clone(), Some(bad)), None).await;
    }
    // `null` means no state: the first round again.
    mint(&s, tool("step", args, Some(Value::Null)), None).await;
}

#[tokio::test]
async fn a_handler_that_never_mints_still_gets_its_state_checked() {
    let s = server("svc", RequestStateSecurity::ephemeral());
    let token = mint(&s, tool("step", json!({}), None), None).await;
    assert_frozen(&s, tool("plain", json!({}), Some(json!("hello"))), None).await;
    assert_frozen(&s, tool("plain", json!({}), Some(token.into())), None).await;
    let line = send(&s, tool("plain", json!({}), None), None).await;
    assert!(line.contains("never mints"), "{line}");
}

#[tokio::test]
async fn a_bad_state_is_reported_before_bad_params() {
    let s = server("svc", RequestStateSecurity::ephemeral());
    let (method, mut params) = tool("step", json!({}), Some(json!("forged")));
    params["inputResponses"] = json!(5);
    assert_frozen(&s, (method, params), None).await;
}

#[tokio::test]
async fn state_on_other_methods_is_never_inspected() {
    let s = server("svc", RequestStateSecurity::ephemeral());
    let params = json!({"_meta": meta(), "requestState": "anything"});
    let line = send(&s, ("tools/list", params), None).await;
    assert!(!line.contains("requestState"), "{line}");
}

#[tokio::test]
async fn a_token_replayed_on_another_request_is_rejected() {
    let s = server("svc", RequestStateSecurity::ephemeral());
    let args = json!({"name": "orders"});
    let token = mint(&s, tool("step", args.clone(), None), None).await;
    let t = || Some(Value::from(token.clone()));
    // Another tool, other arguments, no arguments, another method with the same name.
    assert_frozen(&s, tool("step2", args.clone(), t()), None).await;
    assert_frozen(&s, tool("step", json!({"name": "users"}), t()), None).await;
    assert_frozen(
        &s,
        tool("step", json!({"name": "orders", "x": 1}), t()),
        None,
    )
    .await;
    assert_frozen(&s, tool("step", json!({}), t()), None).await;
    assert_frozen(&s, prompt("step", t()), None).await;
    assert_frozen(&s, resource("step", t()), None).await;

    let uri_token = mint(&s, resource("deploy://prod/confirm", None), None).await;
    let u = || Some(Value::from(uri_token.clone()));
    assert_frozen(&s, resource("deploy://staging/confirm", u()), None).await;
    assert_frozen(&s, tool("deploy://prod/confirm", json!({}), u()), None).await;

    // Key order in the arguments does not matter; the identical request replays fine.
    let two = json!({"a": 1, "b": {"y": [1.5, "é"], "x": null}});
    let token = mint(&s, tool("step", two, None), None).await;
    let reordered = json!({"b": {"x": null, "y": [1.5, "é"]}, "a": 1});
    assert_resumes(
        &s,
        tool("step", reordered.clone(), Some(token.clone().into())),
        None,
    )
    .await;
    assert_resumes(&s, tool("step", reordered, Some(token.into())), None).await;
}

#[tokio::test]
async fn tokens_do_not_cross_servers_keys_or_audiences() {
    let args = json!({"name": "orders"});
    let a = server("svc-a", keys(&[KEY_OLD]));
    let token = mint(&a, tool("step", args.clone(), None), None).await;
    let t = || Some(Value::from(token.clone()));
    // Same key, another name: the audience differs.
    assert_frozen(
        &server("svc-b", keys(&[KEY_OLD])),
        tool("step", args.clone(), t()),
        None,
    )
    .await;
    // Another name but the same explicit audience: accepted.
    let b = server("svc-b", keys(&[KEY_OLD]).audience("svc-a"));
    assert_resumes(&b, tool("step", args.clone(), t()), None).await;
    // Another key: unknown key id.
    assert_frozen(
        &server("svc-a", keys(&[KEY_NEW])),
        tool("step", args.clone(), t()),
        None,
    )
    .await;
    // Every process has its own default key.
    let e1 = server("svc", RequestStateSecurity::ephemeral());
    let e2 = server("svc", RequestStateSecurity::ephemeral());
    let token = mint(&e1, tool("step", args.clone(), None), None).await;
    assert_frozen(&e2, tool("step", args, Some(token.into())), None).await;
}

#[tokio::test]
async fn expiry_and_future_minting_are_enforced() {
    let args = json!({"name": "orders"});
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock after 1970")
            .as_secs_f64()
    };
    let minted_at =
        |offset: f64| server("svc", keys(&[KEY_OLD]).with_clock(move || now() + offset));
    let checker = server("svc", keys(&[KEY_OLD]));
    let cases = [
        (-601.0, false), // past the 600 s default ttl
        (-590.0, true),  // just inside it
        (59.0, true),    // from a clock up to 60 s ahead
        (61.0, false),   // minted in the future
    ];
    for (offset, accepted) in cases {
        let token = mint(&minted_at(offset), tool("step", args.clone(), None), None).await;
        let retry = tool("step", args.clone(), Some(token.into()));
        if accepted {
            assert_resumes(&checker, retry, None).await;
        } else {
            assert_frozen(&checker, retry, None).await;
        }
    }
    let short = server(
        "svc",
        keys(&[KEY_OLD])
            .ttl(std::time::Duration::from_secs(5))
            .with_clock(move || now() - 6.0),
    );
    let token = mint(&short, tool("step", args.clone(), None), None).await;
    assert_frozen(&checker, tool("step", args, Some(token.into())), None).await;
}

#[tokio::test]
async fn tokens_are_bound_to_the_verified_principal() {
    let s = server("svc", RequestStateSecurity::ephemeral());
    let args = json!({"name": "orders"});
    let (alice, bob) = (alice(), bob());
    let token = mint(&s, tool("step", args.clone(), None), Some(&alice)).await;
    let t = || Some(Value::from(token.clone()));
    assert_frozen(&s, tool("step", args.clone(), t()), Some(&bob)).await;
    assert_frozen(&s, tool("step", args.clone(), t()), None).await;
    let other_client = Identity {
        client_id: Some("other".into()),
        ..alice.clone()
    };
    assert_frozen(&s, tool("step", args.clone(), t()), Some(&other_client)).await;
    assert_resumes(&s, tool("step", args.clone(), t()), Some(&alice)).await;

    // Minted without a principal, presented with one.
    let anonymous = mint(&s, tool("step", args.clone(), None), None).await;
    assert_frozen(
        &s,
        tool("step", args.clone(), Some(anonymous.into())),
        Some(&alice),
    )
    .await;

    // Binding switched off: any caller may finish.
    let unbound = server("svc", RequestStateSecurity::ephemeral().without_principal());
    let token = mint(&unbound, tool("step", args.clone(), None), Some(&alice)).await;
    assert_resumes(&unbound, tool("step", args, Some(token.into())), Some(&bob)).await;
}

#[tokio::test]
async fn a_custom_principal_hook_decides_and_its_failures_are_sanitized() {
    let args = json!({"name": "orders"});
    let tenant = |i: Option<&Identity>| -> Result<Option<String>, BoxError> {
        match i.and_then(|i| i.subject.as_deref()) {
            Some("broken") => Err("directory unavailable: secret=hunter2".into()),
            other => Ok(other.map(|s| format!("tenant-of-{s}"))),
        }
    };
    let s = server(
        "svc",
        RequestStateSecurity::ephemeral().bind_principal(tenant),
    );
    let broken = Identity {
        subject: Some("broken".into()),
        ..alice()
    };
    let line = send(&s, tool("step", args.clone(), None), Some(&broken)).await;
    assert_eq!(line, INTERNAL);
    let token = mint(&s, tool("step", args.clone(), None), Some(&alice())).await;
    assert_frozen(
        &s,
        tool("step", args.clone(), Some(token.clone().into())),
        Some(&broken),
    )
    .await;
    assert_resumes(&s, tool("step", args, Some(token.into())), Some(&alice())).await;
}

#[tokio::test]
async fn keys_rotate_in_three_phases_without_dropping_a_round() {
    let args = json!({"name": "orders"});
    let phases = [
        server("svc", keys(&[KEY_OLD])),
        server("svc", keys(&[KEY_OLD, KEY_NEW])),
        server("svc", keys(&[KEY_NEW, KEY_OLD])),
        server("svc", keys(&[KEY_NEW])),
    ];
    let mut tokens = Vec::new();
    for phase in &phases {
        tokens.push(mint(phase, tool("step", args.clone(), None), None).await);
    }
    // A token minted in each phase finishes in the same and the next phase; a token sealed
    // under the retired key fails only once the old key is gone.
    for (minted, token) in tokens.iter().enumerate() {
        for (at, phase) in phases.iter().enumerate() {
            let retry = tool("step", args.clone(), Some(token.clone().into()));
            let sealed_with_old = minted <= 1;
            let ring_has_old = at <= 2;
            let ring_has_new = at >= 1;
            let accepted = if sealed_with_old {
                ring_has_old
            } else {
                ring_has_new
            };
            if accepted {
                assert_resumes(phase, retry, None).await;
            } else {
                assert_frozen(phase, retry, None).await;
            }
        }
    }
}

/// A KMS-style envelope: `kms1.` + lowercase hex of nonce ‖ AES-GCM(ciphertext ‖ tag), with
/// the prefix as associated data; only the canonical spelling is accepted.
struct Kms1 {
    cipher: Aes256Gcm,
}

impl Kms1 {
    fn new() -> Self {
        Self {
            cipher: Aes256Gcm::new_from_slice(&[7u8; 32]).expect("32-byte key"),
        }
    }
}

impl Codec for Kms1 {
    fn seal(&self, plaintext: &[u8]) -> Result<String, BoxError> {
        let mut nonce = [0u8; 12];
        getrandom::fill(&mut nonce).map_err(|e| e.to_string())?;
        let body = self
            .cipher
            .encrypt(
                &nonce.into(),
                Payload {
                    msg: plaintext,
                    aad: b"kms1.",
                },
            )
            .map_err(|_| "encrypt failed")?;
        let hex: String = nonce
            .iter()
            .chain(&body)
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(format!("kms1.{hex}"))
    }

    fn unseal(&self, token: &str) -> Result<Vec<u8>, InvalidRequestState> {
        let bad = || InvalidRequestState::new("kms1: not a token of ours");
        let hex = token.strip_prefix("kms1.").ok_or_else(bad)?;
        let canonical =
            hex.len() % 2 == 0 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if !canonical || hex.len() < 2 * (12 + 16) {
            return Err(bad());
        }
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16))
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        let (nonce, body) = bytes.split_at(12);
        let nonce: [u8; 12] = nonce.try_into().map_err(|_| bad())?;
        self.cipher
            .decrypt(
                &nonce.into(),
                Payload {
                    msg: body,
                    aad: b"kms1.",
                },
            )
            .map_err(|_| bad())
    }
}

#[tokio::test]
async fn a_custom_codec_keeps_every_claim() {
    let args = json!({"name": "orders"});
    let s = server("svc", RequestStateSecurity::codec(Kms1::new()));
    let token = mint(&s, tool("step", args.clone(), None), None).await;
    assert!(token.starts_with("kms1."), "{token}");
    let t = || Some(Value::from(token.clone()));
    assert_frozen(&s, tool("step", json!({"name": "users"}), t()), None).await;
    assert_frozen(&s, tool("step2", args.clone(), t()), None).await;
    assert_frozen(&s, prompt("step", t()), None).await;
    assert_frozen(
        &s,
        tool("step", args.clone(), Some(token.to_uppercase().into())),
        None,
    )
    .await;
    assert_frozen(
        &s,
        tool("step", args.clone(), Some(format!("{token}0").into())),
        None,
    )
    .await;
    assert_frozen(&s, tool("step", args.clone(), t()), Some(&alice())).await;
    let other = server("other", RequestStateSecurity::codec(Kms1::new()));
    assert_frozen(&other, tool("step", args.clone(), t()), None).await;
    // Claims are checked even for bytes the codec authenticates: a sealed non-envelope fails.
    let raw = Kms1::new().seal(b"{\"s\":\"round-1\"}").expect("seal");
    assert_frozen(&s, tool("step", args.clone(), Some(raw.into())), None).await;
    assert_resumes(&s, tool("step", args, t()), None).await;
}

struct Failing;

impl Codec for Failing {
    fn seal(&self, _: &[u8]) -> Result<String, BoxError> {
        Err("kms unreachable at 10.0.0.7 with key arn:secret".into())
    }

    fn unseal(&self, _: &str) -> Result<Vec<u8>, InvalidRequestState> {
        Err(InvalidRequestState::new("kms unreachable"))
    }
}

#[tokio::test]
async fn a_codec_that_fails_to_seal_is_a_bare_internal_error() {
    let s = server("svc", RequestStateSecurity::codec(Failing));
    let line = send(&s, tool("step", json!({}), None), None).await;
    assert_eq!(line, INTERNAL);
    assert_frozen(&s, tool("step", json!({}), Some(json!("v1.x"))), None).await;
}

#[test]
fn policies_that_cannot_work_are_refused_when_the_server_is_built() {
    let nameless = || Server::builder(Implementation::new("", "1.0.0"));
    let err = nameless()
        .request_state_security(keys(&[KEY_OLD]))
        .build()
        .expect_err("shared keys need an audience");
    assert!(err.to_string().contains("audience"), "{err}");
    assert!(
        nameless()
            .request_state_security(keys(&[KEY_OLD]).audience("svc"))
            .build()
            .is_ok()
    );
    assert!(
        nameless()
            .request_state_security(RequestStateSecurity::ephemeral())
            .build()
            .is_ok()
    );
    assert!(RequestStateSecurity::keys(["too short"]).is_err());
    assert!(RequestStateSecurity::keys([KEY_OLD, KEY_OLD]).is_err());
    let zero_ttl = keys(&[KEY_OLD]).ttl(std::time::Duration::ZERO);
    let err = Server::builder(Implementation::new("svc", "1.0.0"))
        .request_state_security(zero_ttl)
        .build()
        .expect_err("a zero ttl is refused");
    assert!(err.to_string().contains("ttl"), "{err}");
}

/// Tokens interoperate with the Python SDK (`mcp==2.3.0`, in `.venv`, created by
/// `scripts/python-venv.sh`) when both servers share a secret and a name.
mod python_interop {
    use std::path::PathBuf;
    use std::process::Command;
    use std::sync::OnceLock;

    use super::*;

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// The venv's interpreter, creating the venv on first use.
    fn python() -> &'static PathBuf {
        static PYTHON: OnceLock<PathBuf> = OnceLock::new();
        PYTHON.get_or_init(|| {
            let status = Command::new(root().join("scripts/python-venv.sh"))
                .status()
                .expect("run scripts/python-venv.sh");
            assert!(status.success(), "scripts/python-venv.sh failed");
            root().join(".venv/bin/python")
        })
    }

    fn run_python(args: &[&str]) -> String {
        let output = Command::new(python())
            .arg(root().join("scripts/python_request_state.py"))
            .args(args)
            .output()
            .expect("run the Python SDK");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout)
            .expect("utf-8")
            .trim()
            .to_owned()
    }

    /// Arguments whose canonical form exercises escaping, float formatting and key order.
    fn tricky_args() -> Value {
        json!({"name": "ordérs ✓ 😀", "z": [1e16, 0.0001, 1.5, -0.0, {"b": null, "a": true}],
               "n": 12345678901234_i64})
    }

    #[tokio::test]
    async fn a_python_minted_token_resumes_on_our_server() {
        let args = tricky_args();
        let token = run_python(&["mint", SECRET, "svc", &args.to_string()]);
        assert!(token.starts_with("v1.oBT0C"), "{token}");
        let ours = server("svc", keys(&[SECRET]));
        let line = send(
            &ours,
            tool("step", args.clone(), Some(token.clone().into())),
            None,
        )
        .await;
        assert!(line.contains("saw py-round-1"), "{line}");
        // And every claim still holds: other arguments, another audience.
        assert_frozen(
            &ours,
            tool("step", json!({"name": "x"}), Some(token.clone().into())),
            None,
        )
        .await;
        let elsewhere = server("other", keys(&[SECRET]));
        assert_frozen(&elsewhere, tool("step", args, Some(token.into())), None).await;
    }

    #[tokio::test]
    async fn our_token_resumes_on_a_python_server() {
        let args = tricky_args();
        let ours = server("svc", keys(&[SECRET]));
        let token = mint(&ours, tool("step", args.clone(), None), None).await;
        let text = run_python(&["resume", SECRET, "svc", &args.to_string(), &token]);
        assert_eq!(text, "saw round-1");
        let other = json!({"name": "someone else"}).to_string();
        let text = run_python(&["resume", SECRET, "svc", &other, &token]);
        assert_eq!(text, "error: Invalid or expired requestState");
    }
}

/// Collects every event's fields as text, for checking what reaches the log.
#[derive(Clone, Default)]
struct LogCapture(Arc<std::sync::Mutex<Vec<String>>>);

impl tracing::Subscriber for LogCapture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Fields(String);
        impl tracing::field::Visit for Fields {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.push_str(&format!(" {}={:?}", field.name(), value));
            }
        }
        let mut fields = Fields(format!("{}", event.metadata().level()));
        event.record(&mut fields);
        self.0.lock().expect("log lock").push(fields.0);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn the_log_names_the_cause_at_warn_and_never_a_secret() {
    let capture = LogCapture::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let token = tracing::subscriber::with_default(capture.clone(), || {
        runtime.block_on(async {
            let s = server("svc", keys(&[KEY_OLD]));
            let args = json!({"name": "orders"});
            let token = mint(&s, tool("step", args, None), None).await;
            let t = Some(Value::from(token.clone()));
            assert_frozen(&s, tool("step", json!({"name": "other"}), t.clone()), None).await;
            assert_frozen(
                &s,
                tool("step", json!({"name": "orders"}), Some(json!(7))),
                None,
            )
            .await;
            token
        })
    });
    let lines = capture.0.lock().expect("log lock").clone();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with("WARN") && lines[0].contains("request binding"),
        "{lines:?}"
    );
    assert!(lines[1].contains("non-string requestState"), "{lines:?}");
    for line in &lines {
        for secret in [token.as_str(), KEY_OLD, "round-1"] {
            assert!(!line.contains(secret), "{line} leaks {secret}");
        }
    }
}
