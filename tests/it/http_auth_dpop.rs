//! DPoP-bound access tokens (RFC 9449) at the HTTP endpoint, with real proofs: each test makes
//! P-256 keys of its own, and tokens from an HS256 authorization server are bound to one of
//! them by `cnf.jkt`. Thumbprints and token hashes are computed here, from the RFCs, not by the
//! code under test. Every check of a proof is broken once, and answered with its own challenge.

#![cfg(feature = "http")]

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode, get_current_timestamp};
use mcp::auth::{DpopNonces, DpopPolicy, DpopSettings, JwtKey, ResourceServer};
use mcp::transport::http::HttpTransport;
use mcp::{Context, McpServer};
use p256::elliptic_curve::Generate;
use p256::pkcs8::EncodePrivateKey;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;

use crate::support::http::{Reply, Running, meta};
use crate::support::log::CapturedLog;

const SECRET: &[u8] = b"a-test-only-hmac-secret-of-32-bytes+";
const ISSUER: &str = "https://auth.example.com";

/// Every algorithm a proof may use, as challenges and metadata list them.
const ALGS: &str = "ES256 ES384 EdDSA PS256 PS384 PS512 RS256 RS384 RS512";

/// Reports the caller and the key its token is bound to.
#[mcp::tool]
async fn bound_caller(ctx: Context) -> String {
    let caller = ctx
        .identity()
        .map(|i| json!({"subject": i.subject, "jkt": i.jkt}));
    json!(caller).to_string()
}

/// A client's P-256 key pair.
struct ClientKey {
    signing: EncodingKey,
    /// The public JWK, as the proof's header carries it.
    public: Value,
    /// The private scalar, base64url: what a proof must never carry.
    d: String,
}

impl ClientKey {
    fn generate() -> Self {
        let secret = p256::SecretKey::generate();
        let der = secret.to_pkcs8_der().expect("PKCS#8");
        let signing = EncodingKey::from_ec_der(der.as_bytes());
        let jwk = Jwk::from_encoding_key(&signing, Algorithm::ES256).expect("a public JWK");
        let AlgorithmParameters::EllipticCurve(ec) = jwk.algorithm else {
            panic!("an EC key")
        };
        Self {
            signing,
            public: json!({"kty": "EC", "crv": "P-256", "x": ec.x, "y": ec.y}),
            d: URL_SAFE_NO_PAD.encode(secret.to_bytes()),
        }
    }

    /// RFC 7638: SHA-256 over the required members, in lexicographic order, without spaces.
    fn thumbprint(&self) -> String {
        let members = format!(
            r#"{{"crv":"P-256","kty":"EC","x":{},"y":{}}}"#,
            self.public["x"], self.public["y"]
        );
        URL_SAFE_NO_PAD.encode(Sha256::digest(members.as_bytes()))
    }

    /// A proof signed by this key, with `header` and `claims` exactly as given.
    fn sign(&self, header: &Value, claims: &Value) -> String {
        jws(header, claims, &self.signing, Algorithm::ES256)
    }

    /// A well-formed proof header carrying this key.
    fn header(&self) -> Value {
        json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.public})
    }
}

/// A compact JWS of exactly `header` and `claims`, signed with `alg`.
fn jws(header: &Value, claims: &Value, key: &EncodingKey, alg: Algorithm) -> String {
    let encode = |part: &Value| URL_SAFE_NO_PAD.encode(part.to_string());
    let input = format!("{}.{}", encode(header), encode(claims));
    let signature = jsonwebtoken::crypto::sign(input.as_bytes(), key, alg).expect("sign");
    format!("{input}.{signature}")
}

/// `ath`: base64url(SHA-256(token)) (RFC 9449 §4.2).
fn ath(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

fn fresh_jti() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("proof-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// `object` with the members of `changes`; a member changed to `null` is removed.
fn with(mut object: Value, changes: Value) -> Value {
    if let (Some(object), Some(changes)) = (object.as_object_mut(), changes.as_object()) {
        for (name, value) in changes {
            match value {
                Value::Null => object.remove(name),
                value => object.insert(name.clone(), value.clone()),
            };
        }
    }
    object
}

/// A protected endpoint on 127.0.0.1.
struct Endpoint {
    running: Running,
    /// The resource URL: the tokens' audience and the proofs' `htu`.
    resource: String,
}

impl Endpoint {
    /// HS256 tokens from [`ISSUER`], with the resource server adjusted by `configure`.
    async fn start(configure: impl FnOnce(ResourceServer) -> ResourceServer) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let resource = format!("http://{addr}/mcp");
        let auth = ResourceServer::jwt(&resource, ISSUER, JwtKey::hmac(SECRET).expect("key"))
            .expect("valid resource URL");
        let server = McpServer::new("dpop-test")
            .tools(mcp::tools![bound_caller])
            .build()
            .expect("valid server");
        let transport = HttpTransport::new(server).auth(configure(auth));
        let running = Running::on(listener, transport);
        Self { running, resource }
    }

    /// An access token for alice, bound to the key with `jkt` when given.
    fn token(&self, jkt: Option<&str>, scope: &str) -> String {
        let mut claims = json!({"iss": ISSUER, "aud": self.resource, "sub": "alice",
                                "scope": scope, "exp": get_current_timestamp() + 300});
        if let Some(jkt) = jkt {
            claims["cnf"] = json!({"jkt": jkt});
        }
        let key = EncodingKey::from_secret(SECRET).expect("key");
        encode(&Header::new(Algorithm::HS256), &claims, &key).expect("sign")
    }

    /// A token bound to `key`.
    fn bound_token(&self, key: &ClientKey) -> String {
        self.token(Some(&key.thumbprint()), "mcp:tools")
    }

    /// The claims of a good proof for a POST to the endpoint with `token`.
    fn claims(&self, token: &str) -> Value {
        json!({"jti": fresh_jti(), "htm": "POST", "htu": self.resource,
               "iat": get_current_timestamp(), "ath": ath(token)})
    }

    /// A good proof by `key` for a POST with `token`.
    fn proof(&self, key: &ClientKey, token: &str) -> String {
        key.sign(&key.header(), &self.claims(token))
    }

    /// A `tools/call` of `bound_caller` with `authorization` and these `DPoP` headers.
    async fn call(&self, authorization: &str, proofs: &[&str]) -> Reply {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "bound_caller", "_meta": meta(json!({}))}});
        let mut request = self
            .running
            .post(body.to_string())
            .routing("tools/call", Some("bound_caller"))
            .header("authorization", authorization);
        for proof in proofs {
            request = request.also("dpop", proof);
        }
        request.send().await
    }

    fn metadata_url(&self) -> String {
        format!(
            "http://{}/.well-known/oauth-protected-resource/mcp",
            self.running.addr
        )
    }

    /// The DPoP challenge, with `error` when given.
    fn dpop_challenge(&self, error: Option<&str>) -> String {
        let error = error.map_or(String::new(), |e| format!("error=\"{e}\", "));
        format!(
            "DPoP {error}resource_metadata=\"{}\", algs=\"{ALGS}\"",
            self.metadata_url()
        )
    }

    /// The Bearer challenge, with `error` when given.
    fn bearer_challenge(&self, error: Option<&str>) -> String {
        let error = error.map_or(String::new(), |e| format!("error=\"{e}\", "));
        format!(
            "Bearer {error}resource_metadata=\"{}\"",
            self.metadata_url()
        )
    }
}

/// Every `WWW-Authenticate` header of a reply, in order.
fn challenges(reply: &Reply) -> Vec<&str> {
    reply
        .headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("www-authenticate"))
        .map(|(_, value)| value.as_str())
        .collect()
}

/// The caller `bound_caller` saw.
fn caller(reply: &Reply) -> Value {
    assert_eq!(reply.status, 200, "{reply:?}");
    let text = reply.json()["result"]["content"][0]["text"].clone();
    serde_json::from_str(text.as_str().expect("text")).expect("json")
}

async fn allowing() -> Endpoint {
    Endpoint::start(|auth| auth.dpop(DpopPolicy::Allowed)).await
}

#[tokio::test]
async fn a_bound_token_with_its_proof_is_accepted() {
    let s = allowing().await;
    let key = ClientKey::generate();
    let token = s.bound_token(&key);
    let r = s
        .call(&format!("DPoP {token}"), &[&s.proof(&key, &token)])
        .await;
    assert_eq!(
        caller(&r),
        json!({"subject": "alice", "jkt": key.thumbprint()})
    );
    assert_eq!(r.header("dpop-nonce"), None, "no nonces unless asked for");
    // A fresh proof for the next request, and the scheme in any case.
    let r = s
        .call(&format!("dpop {token}"), &[&s.proof(&key, &token)])
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    // The htu in another spelling of the same URL.
    let spelled = with(
        s.claims(&token),
        json!({"htu": s.resource.replace("http://", "HTTP://").replace("/mcp", "/./mcp?x=1")}),
    );
    let r = s
        .call(
            &format!("DPoP {token}"),
            &[&key.sign(&key.header(), &spelled)],
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
}

/// Each case breaks one check, and the log names that check: a case caught by another check
/// than its own would hide that its own is broken.
#[tokio::test(flavor = "current_thread")]
async fn each_broken_proof_is_refused_as_an_invalid_dpop_proof() {
    let (log, _guard) = CapturedLog::start();
    let s = allowing().await;
    let key = ClientKey::generate();
    let token = s.bound_token(&key);
    let now = get_current_timestamp();
    let claims = |changes: Value| with(s.claims(&token), changes);
    let signed = |changes: Value| key.sign(&key.header(), &claims(changes));
    let header = |changes: Value| with(key.header(), changes);
    let private_jwk = with(key.public.clone(), json!({"d": key.d}));
    let none = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(header(json!({"alg": "none"})).to_string()),
        URL_SAFE_NO_PAD.encode(claims(json!({})).to_string())
    );
    let secret = EncodingKey::from_secret(SECRET).expect("key");
    let symmetric_jwk = json!({"kty": "oct", "k": URL_SAFE_NO_PAD.encode(SECRET)});
    let hs256 = |header: Value| jws(&header, &claims(json!({})), &secret, Algorithm::HS256);
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        ("no proof", vec![], "without a proof"),
        (
            "two proofs",
            vec![s.proof(&key, &token), s.proof(&key, &token)],
            "sent more than once",
        ),
        ("not a JWT", vec!["not-a-jwt".to_owned()], "not a JWT"),
        (
            "wrong htm",
            vec![signed(json!({"htm": "GET"}))],
            "not for this request's method",
        ),
        (
            "wrong htu",
            vec![signed(json!({"htu": s.resource.replace("/mcp", "/other")}))],
            "not for this endpoint",
        ),
        (
            "htu of another host",
            vec![signed(json!({"htu": "https://mcp.example.com/mcp"}))],
            "not for this endpoint",
        ),
        (
            "stale iat",
            vec![signed(json!({"iat": now - 600}))],
            "outside the accepted window",
        ),
        (
            "iat in the future",
            vec![signed(json!({"iat": now + 600}))],
            "outside the accepted window",
        ),
        ("no jti", vec![signed(json!({"jti": null}))], "`jti`"),
        (
            "wrong ath",
            vec![signed(json!({"ath": ath("another-token")}))],
            "another access token",
        ),
        (
            "no ath",
            vec![signed(json!({"ath": null}))],
            "another access token",
        ),
        ("alg none", vec![none], r#"alg "none""#),
        (
            "HS256 with a symmetric jwk",
            vec![hs256(header(json!({"alg": "HS256", "jwk": symmetric_jwk})))],
            r#"alg "HS256""#,
        ),
        (
            "HS256 keyed with the public key",
            vec![hs256(header(json!({"alg": "HS256"})))],
            r#"alg "HS256""#,
        ),
        (
            "a jwk with its private part",
            vec![key.sign(&header(json!({"jwk": private_jwk})), &claims(json!({})))],
            "private member `d`",
        ),
        (
            "typ of an access token",
            vec![key.sign(&header(json!({"typ": "at+jwt"})), &claims(json!({})))],
            "typ is not dpop+jwt",
        ),
        (
            "no jwk",
            vec![key.sign(&header(json!({"jwk": null})), &claims(json!({})))],
            "no jwk",
        ),
        (
            "a signature by another key than the jwk",
            vec![ClientKey::generate().sign(&key.header(), &claims(json!({})))],
            "InvalidSignature",
        ),
    ];
    log.take();
    for (what, proofs, reason) in cases {
        let proofs: Vec<&str> = proofs.iter().map(String::as_str).collect();
        let r = s.call(&format!("DPoP {token}"), &proofs).await;
        assert_eq!(r.status, 401, "{what}: {r:?}");
        assert_eq!(
            challenges(&r),
            [
                s.dpop_challenge(Some("invalid_dpop_proof")),
                s.bearer_challenge(None)
            ],
            "{what}"
        );
        assert_eq!(r.json()["error"], "invalid_dpop_proof", "{what}");
        let logged = log.take();
        assert!(
            logged.contains(reason),
            "{what}: {reason:?} not in {logged}"
        );
    }
    // After all that, a good proof still passes.
    let r = s
        .call(&format!("DPoP {token}"), &[&s.proof(&key, &token)])
        .await;
    assert_eq!(r.status, 200, "{r:?}");
}

#[tokio::test]
async fn a_proof_is_accepted_once() {
    let s = allowing().await;
    let key = ClientKey::generate();
    let token = s.bound_token(&key);
    let proof = s.proof(&key, &token);
    let authorization = format!("DPoP {token}");
    assert_eq!(s.call(&authorization, &[&proof]).await.status, 200);
    let replayed = s.call(&authorization, &[&proof]).await;
    assert_eq!(replayed.status, 401, "{replayed:?}");
    assert_eq!(
        challenges(&replayed)[0],
        s.dpop_challenge(Some("invalid_dpop_proof"))
    );
}

/// The endpoint remembers the token it verified (`ResourceServer::jwt` caches by default), but
/// never the proof: every later request with the same token needs a fresh proof of its own.
#[tokio::test]
async fn a_remembered_token_still_needs_a_fresh_proof_every_time() {
    let s = Endpoint::start(|auth| {
        assert!(
            auth.token_cache_settings().is_some(),
            "JWTs are cached by default"
        );
        auth.dpop(DpopPolicy::Allowed)
    })
    .await;
    let (key, thief) = (ClientKey::generate(), ClientKey::generate());
    let token = s.bound_token(&key);
    let authorization = format!("DPoP {token}");
    let first = s.proof(&key, &token);
    assert_eq!(s.call(&authorization, &[&first]).await.status, 200);
    let refusals = [
        (
            "no proof",
            s.call(&authorization, &[]).await,
            "invalid_dpop_proof",
        ),
        (
            "the first proof again",
            s.call(&authorization, &[&first]).await,
            "invalid_dpop_proof",
        ),
        (
            "a proof for another token",
            s.call(&authorization, &[&s.proof(&key, &s.bound_token(&thief))])
                .await,
            "invalid_dpop_proof",
        ),
        (
            "a proof by another key",
            s.call(&authorization, &[&s.proof(&thief, &token)]).await,
            "invalid_token",
        ),
    ];
    for (what, reply, error) in refusals {
        assert_eq!(reply.status, 401, "{what}: {reply:?}");
        assert_eq!(
            challenges(&reply)[0],
            s.dpop_challenge(Some(error)),
            "{what}"
        );
    }
    let as_bearer = s.call(&format!("Bearer {token}"), &[]).await;
    assert_eq!(as_bearer.status, 401, "{as_bearer:?}");
    let fresh = s.call(&authorization, &[&s.proof(&key, &token)]).await;
    assert_eq!(
        caller(&fresh),
        json!({"subject": "alice", "jkt": key.thumbprint()})
    );
}

#[tokio::test]
async fn a_proof_by_another_key_than_the_tokens_is_an_invalid_token() {
    let s = allowing().await;
    let (bound_to, other) = (ClientKey::generate(), ClientKey::generate());
    let token = s.bound_token(&bound_to);
    // A well-formed proof, by a key the token is not bound to (a thief's).
    let r = s
        .call(&format!("DPoP {token}"), &[&s.proof(&other, &token)])
        .await;
    assert_eq!(r.status, 401, "{r:?}");
    assert_eq!(
        challenges(&r),
        [
            s.dpop_challenge(Some("invalid_token")),
            s.bearer_challenge(None)
        ]
    );
    // An unbound token is no DPoP token either.
    let unbound = s.token(None, "mcp:tools");
    let r = s
        .call(&format!("DPoP {unbound}"), &[&s.proof(&other, &unbound)])
        .await;
    assert_eq!(r.status, 401, "{r:?}");
    assert_eq!(challenges(&r)[0], s.dpop_challenge(Some("invalid_token")));
}

#[tokio::test]
async fn a_bound_token_is_refused_as_a_bearer_token() {
    let key = ClientKey::generate();
    // Where DPoP is taken, the challenges say so.
    let s = allowing().await;
    let r = s
        .call(&format!("Bearer {}", s.bound_token(&key)), &[])
        .await;
    assert_eq!(r.status, 401, "{r:?}");
    assert_eq!(
        challenges(&r),
        [
            s.bearer_challenge(Some("invalid_token")),
            s.dpop_challenge(None)
        ]
    );
    // An endpoint that knows nothing of DPoP refuses it all the same, and a proof changes
    // nothing.
    let s = Endpoint::start(|auth| auth).await;
    let token = s.bound_token(&key);
    let r = s
        .call(&format!("Bearer {token}"), &[&s.proof(&key, &token)])
        .await;
    assert_eq!(r.status, 401, "{r:?}");
    assert_eq!(challenges(&r), [s.bearer_challenge(Some("invalid_token"))]);
    // Nor does it take the DPoP scheme: that is no token it knows.
    let r = s
        .call(&format!("DPoP {token}"), &[&s.proof(&key, &token)])
        .await;
    assert_eq!(r.status, 401, "{r:?}");
    assert_eq!(challenges(&r), [s.bearer_challenge(None)]);
}

#[tokio::test]
async fn unbound_bearer_tokens_pass_where_dpop_is_allowed_and_not_where_it_is_required() {
    let allowed = allowing().await;
    let r = allowed
        .call(&format!("Bearer {}", allowed.token(None, "mcp:tools")), &[])
        .await;
    assert_eq!(caller(&r), json!({"subject": "alice", "jkt": null}));

    let required = Endpoint::start(|auth| auth.dpop(DpopPolicy::Required)).await;
    let r = required
        .call(
            &format!("Bearer {}", required.token(None, "mcp:tools")),
            &[],
        )
        .await;
    assert_eq!(r.status, 401, "{r:?}");
    assert_eq!(challenges(&r), [required.dpop_challenge(None)]);
    let key = ClientKey::generate();
    let token = required.bound_token(&key);
    let r = required
        .call(&format!("DPoP {token}"), &[&required.proof(&key, &token)])
        .await;
    assert_eq!(r.status, 200, "{r:?}");
}

#[tokio::test]
async fn the_metadata_advertises_dpop() {
    for (policy, required) in [(DpopPolicy::Allowed, false), (DpopPolicy::Required, true)] {
        let s = Endpoint::start(|auth| auth.dpop(policy)).await;
        let r = s
            .running
            .method("GET")
            .path("/.well-known/oauth-protected-resource/mcp")
            .send()
            .await;
        let document = r.json();
        let algs: Vec<&str> = ALGS.split(' ').collect();
        assert_eq!(document["dpop_signing_alg_values_supported"], json!(algs));
        assert_eq!(
            document.get("dpop_bound_access_tokens_required"),
            required.then_some(&json!(true)),
            "{policy:?}"
        );
    }
}

#[tokio::test]
async fn scopes_are_still_required_of_dpop_tokens() {
    let s = Endpoint::start(|auth| {
        auth.dpop(DpopPolicy::Required)
            .require_scopes(["mcp:admin"])
    })
    .await;
    let key = ClientKey::generate();
    let token = s.bound_token(&key);
    let r = s
        .call(&format!("DPoP {token}"), &[&s.proof(&key, &token)])
        .await;
    assert_eq!(r.status, 403, "{r:?}");
    let metadata = s.metadata_url();
    assert_eq!(
        challenges(&r),
        [format!(
            "DPoP error=\"insufficient_scope\", scope=\"mcp:admin\", \
             resource_metadata=\"{metadata}\", algs=\"{ALGS}\""
        )]
    );
}

#[tokio::test]
async fn the_proof_names_the_method_of_every_request() {
    let s = Endpoint::start(|auth| auth.dpop(DpopPolicy::Required)).await;
    let key = ClientKey::generate();
    let token = s.bound_token(&key);
    let delete = |htm: &str| {
        let proof = key.sign(&key.header(), &with(s.claims(&token), json!({"htm": htm})));
        s.running
            .method("DELETE")
            .header("mcp-session-id", "0123456789abcdef0123456789abcdef")
            .header("authorization", &format!("DPoP {token}"))
            .header("dpop", &proof)
            .send()
    };
    // Let through, to a session that does not exist.
    assert_eq!(delete("DELETE").await.status, 404);
    let r = delete("POST").await;
    assert_eq!(r.status, 401, "{r:?}");
    assert_eq!(
        challenges(&r),
        [s.dpop_challenge(Some("invalid_dpop_proof"))]
    );
}

#[tokio::test]
async fn a_server_nonce_is_asked_for_and_then_accepted() {
    let s = Endpoint::start(|auth| {
        auth.dpop(
            DpopSettings::new(DpopPolicy::Required)
                .nonces(DpopNonces::new(Duration::from_secs(60))),
        )
    })
    .await;
    let key = ClientKey::generate();
    let token = s.bound_token(&key);
    let authorization = format!("DPoP {token}");
    let r = s.call(&authorization, &[&s.proof(&key, &token)]).await;
    assert_eq!(r.status, 401, "{r:?}");
    assert_eq!(challenges(&r), [s.dpop_challenge(Some("use_dpop_nonce"))]);
    assert_eq!(r.json()["error"], "use_dpop_nonce");
    let nonce = r.header("dpop-nonce").expect("a nonce").to_owned();

    let with_nonce = |nonce: &str| {
        key.sign(
            &key.header(),
            &with(s.claims(&token), json!({"nonce": nonce})),
        )
    };
    let r = s.call(&authorization, &[&with_nonce(&nonce)]).await;
    assert_eq!(r.status, 200, "{r:?}");
    // The answer hands out the current nonce, for the next proof.
    let next = r.header("dpop-nonce").expect("a nonce").to_owned();
    assert_eq!(
        s.call(&authorization, &[&with_nonce(&next)]).await.status,
        200
    );

    let r = s.call(&authorization, &[&with_nonce("forged")]).await;
    assert_eq!(r.status, 401, "{r:?}");
    assert_eq!(challenges(&r), [s.dpop_challenge(Some("use_dpop_nonce"))]);
}
