//! The HTTP endpoint as an OAuth 2.1 resource server, with real signed JWTs (HS256 and ES256):
//! the 401/403/503 answers and their challenges, the RFC 9728 metadata, the verified identity
//! in handlers, and the caller bound into sealed `requestState` and 2025-11-25 sessions.

#![cfg(feature = "http")]

use std::sync::atomic::{AtomicU64, Ordering};

use jsonwebtoken::{Algorithm, EncodingKey, Header, encode, get_current_timestamp};
use mcp::auth::{AuthError, Identity, JwtKey, JwtVerifier, ResourceServer, verify_fn};
use mcp::transport::http::HttpTransport;
use mcp::{Context, McpServer};
use serde_json::{Value, json};
use tokio::net::TcpListener;

use crate::support;
use crate::support::http::{Reply, Running, meta, read_within};

const SECRET: &[u8] = b"a-test-only-hmac-secret-of-32-bytes+";
const ISSUER: &str = "https://auth.example.com";
const CLIENT: &str = "mcp-inspector";

/// A P-256 key pair generated for these tests only.
const ES256_PRIVATE: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgWlCIMtFljIz2vf5z
7qqZAxJKluAoMoDU5Dws8GWLd2ihRANCAARQQWywuIuPbdHiwCtlpBFY5fcGjoTm
VPRAmo4JUaXQ+sMGagBMH7anpcRqSKufeX8zSz3i9LfOvd+q3Pv0Sz97
-----END PRIVATE KEY-----";
const ES256_PUBLIC: &str = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEUEFssLiLj23R4sArZaQRWOX3Bo6E
5lT0QJqOCVGl0PrDBmoATB+2p6XEakirn3l/M0s94vS3zr3fqtz79Es/ew==
-----END PUBLIC KEY-----";

/// Reports the verified caller, as a handler sees it.
#[mcp::tool]
async fn whoami(ctx: Context) -> String {
    let caller = ctx.identity().map(|i| {
        json!({"client_id": i.client_id, "issuer": i.issuer, "subject": i.subject,
               "scopes": i.scopes, "expires_at": i.expires_at})
    });
    json!(caller).to_string()
}

/// A server with `whoami` and the two-round `provision`, listening on 127.0.0.1.
struct Protected {
    running: Running,
    /// The canonical URL of the endpoint, and so the audience of its tokens.
    resource: String,
}

impl Protected {
    /// `configure` builds the resource server for the endpoint's URL.
    async fn start(configure: impl FnOnce(&str) -> ResourceServer) -> Self {
        Self::start_with(configure, |t| t).await
    }

    /// As [`start`](Self::start), with the transport adjusted by `adjust`.
    async fn start_with(
        configure: impl FnOnce(&str) -> ResourceServer,
        adjust: impl FnOnce(HttpTransport) -> HttpTransport,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let resource = format!("http://{addr}/mcp");
        let server = McpServer::new("auth-test")
            .tools(mcp::tools![whoami, support::provision])
            .build()
            .expect("valid server");
        let transport = adjust(HttpTransport::new(server).auth(configure(&resource)));
        let running = Running::on(listener, transport);
        Self { running, resource }
    }

    /// Verifies HS256 tokens from [`ISSUER`] for this endpoint.
    async fn hs256() -> Self {
        Self::hs256_with(|t| t).await
    }

    /// As [`hs256`](Self::hs256), with the transport adjusted by `adjust`.
    async fn hs256_with(adjust: impl FnOnce(HttpTransport) -> HttpTransport) -> Self {
        let resource_server = |resource: &str| {
            ResourceServer::jwt(resource, ISSUER, JwtKey::hmac(SECRET).expect("key"))
                .expect("valid resource URL")
        };
        Self::start_with(resource_server, adjust).await
    }

    /// Opens a 2025-11-25 session with `authorization`; the reply, and the session id if one
    /// was opened.
    async fn initialize(&self, authorization: &str) -> (Reply, Option<String>) {
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}});
        let reply = self
            .running
            .post(initialize.to_string())
            .header("authorization", authorization)
            .send()
            .await;
        let session = reply.header("mcp-session-id").map(str::to_owned);
        (reply, session)
    }

    /// The status of a `tools/list` in `session` with `authorization`.
    async fn list_in(&self, session: &str, authorization: &str) -> u16 {
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        self.running
            .post(list.to_string())
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25")
            .header("authorization", authorization)
            .send()
            .await
            .status
    }

    fn metadata_url(&self) -> String {
        format!(
            "http://{}/.well-known/oauth-protected-resource/mcp",
            self.running.addr
        )
    }

    /// Claims of a good token of `subject` for this endpoint.
    fn claims(&self, subject: &str) -> Value {
        static JTI: AtomicU64 = AtomicU64::new(0);
        json!({
            "iss": ISSUER,
            "aud": self.resource,
            "sub": subject,
            "client_id": CLIENT,
            "scope": "mcp:tools mcp:read",
            "exp": get_current_timestamp() + 300,
            "jti": JTI.fetch_add(1, Ordering::Relaxed).to_string(),
        })
    }

    /// A 2026-07-28 `tools/call` with `token` (when given) as `Authorization: Bearer`.
    async fn call(&self, token: Option<&str>, tool: &str, extra: Value) -> Reply {
        let mut params = json!({"name": tool, "arguments": {"name": "orders"},
                                "_meta": meta(json!({"elicitation": {"form": {}}}))});
        if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
            params.extend(extra.clone());
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let request = self
            .running
            .post(body.to_string())
            .routing("tools/call", Some(tool));
        match token {
            Some(token) => request.header("authorization", &format!("Bearer {token}")),
            None => request,
        }
        .send()
        .await
    }
}

fn hs256(claims: &Value) -> String {
    let key = EncodingKey::from_secret(SECRET).expect("key");
    encode(&Header::new(Algorithm::HS256), claims, &key).expect("sign")
}

fn es256(claims: &Value) -> String {
    let key = EncodingKey::from_ec_pem(ES256_PRIVATE.as_bytes()).expect("key");
    encode(&Header::new(Algorithm::ES256), claims, &key).expect("sign")
}

fn with(mut claims: Value, changes: Value) -> Value {
    if let (Some(claims), Some(changes)) = (claims.as_object_mut(), changes.as_object()) {
        claims.extend(changes.clone());
    }
    claims
}

/// Asserts a `401 invalid_token` with its exact challenge.
fn assert_invalid_token(reply: &Reply, server: &Protected, what: &str) {
    assert_eq!(reply.status, 401, "{what}: {reply:?}");
    assert_eq!(
        reply.header("www-authenticate"),
        Some(
            format!(
                "Bearer error=\"invalid_token\", resource_metadata=\"{}\"",
                server.metadata_url()
            )
            .as_str()
        ),
        "{what}"
    );
    assert_eq!(reply.json()["error"], "invalid_token", "{what}");
}

/// The JSON-RPC result of a successful reply.
fn result(reply: &Reply) -> Value {
    assert_eq!(reply.status, 200, "{reply:?}");
    reply.json()["result"].clone()
}

#[tokio::test]
async fn a_request_without_a_token_is_challenged_with_the_metadata_url() {
    let s = Protected::hs256().await;
    let r = s.call(None, "whoami", json!({})).await;
    assert_eq!(r.status, 401, "{r:?}");
    assert_eq!(
        r.header("www-authenticate"),
        Some(format!("Bearer resource_metadata=\"{}\"", s.metadata_url()).as_str())
    );
    // Every method of the endpoint is protected, not only POST.
    for method in ["GET", "DELETE"] {
        let r = s
            .running
            .method(method)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", "0123456789abcdef0123456789abcdef")
            .send()
            .await;
        assert_eq!(r.status, 401, "{method}: {r:?}");
        assert!(r.header("www-authenticate").is_some(), "{method}");
    }
}

#[tokio::test]
async fn a_token_in_the_query_string_is_not_accepted() {
    let s = Protected::hs256().await;
    let token = hs256(&s.claims("alice"));
    let r = s
        .running
        .post(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                     "params": {"_meta": meta(json!({}))}})
            .to_string(),
        )
        .routing("tools/list", None)
        .path(&format!("/mcp?access_token={token}"))
        .send()
        .await;
    assert_eq!(r.status, 401, "{r:?}");
    assert_eq!(
        r.header("www-authenticate"),
        Some(format!("Bearer resource_metadata=\"{}\"", s.metadata_url()).as_str())
    );
}

#[tokio::test]
async fn malformed_tokens_are_invalid_tokens() {
    let s = Protected::hs256().await;
    for token in ["not-a-jwt", "a.b.c", "two words"] {
        let r = s.call(Some(token), "whoami", json!({})).await;
        assert_invalid_token(&r, &s, token);
    }
}

#[tokio::test]
async fn tokens_that_fail_verification_are_invalid_tokens() {
    let s = Protected::hs256().await;
    let good = s.claims("alice");
    let now = get_current_timestamp();
    let other_key = EncodingKey::from_secret(b"another-secret-of-at-least-32-bytes!").expect("key");
    let cases = [
        (
            "wrong signature",
            encode(&Header::new(Algorithm::HS256), &good, &other_key).expect("sign"),
        ),
        // An ES256 token for a server that holds an HMAC key: another family, refused.
        ("wrong algorithm", es256(&good)),
        (
            "expired",
            hs256(&with(good.clone(), json!({"exp": now - 3600}))),
        ),
        (
            "not yet valid",
            hs256(&with(good.clone(), json!({"nbf": now + 3600}))),
        ),
        (
            "wrong issuer",
            hs256(&with(
                good.clone(),
                json!({"iss": "https://evil.example.com"}),
            )),
        ),
        (
            "wrong audience",
            hs256(&with(
                good.clone(),
                json!({"aud": "http://127.0.0.1:1/mcp"}),
            )),
        ),
        (
            "no audience",
            hs256(&with(good.clone(), json!({"aud": null}))),
        ),
    ];
    for (what, token) in cases {
        let r = s.call(Some(&token), "whoami", json!({})).await;
        assert_invalid_token(&r, &s, what);
    }
    // And the good one passes, with the scheme in any case.
    let r = s
        .running
        .post(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                     "params": {"_meta": meta(json!({}))}})
            .to_string(),
        )
        .routing("tools/list", None)
        .header("authorization", &format!("bearer {}", hs256(&good)))
        .send()
        .await;
    assert_eq!(r.status, 200, "{r:?}");
}

#[tokio::test]
async fn a_token_without_a_required_scope_is_403_insufficient_scope() {
    let s = Protected::start(|resource| {
        ResourceServer::jwt(resource, ISSUER, JwtKey::hmac(SECRET).expect("key"))
            .expect("valid resource URL")
            .require_scopes(["mcp:tools", "mcp:admin"])
    })
    .await;
    let r = s.call(None, "whoami", json!({})).await;
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate"),
        Some(
            format!(
                "Bearer scope=\"mcp:tools mcp:admin\", resource_metadata=\"{}\"",
                s.metadata_url()
            )
            .as_str()
        )
    );
    let token = hs256(&s.claims("alice"));
    let r = s.call(Some(&token), "whoami", json!({})).await;
    assert_eq!(r.status, 403, "{r:?}");
    assert_eq!(
        r.header("www-authenticate"),
        Some(
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"mcp:tools mcp:admin\", \
                 resource_metadata=\"{}\"",
                s.metadata_url()
            )
            .as_str()
        )
    );
    assert_eq!(r.json()["error"], "insufficient_scope");
    let admin = hs256(&with(
        s.claims("alice"),
        json!({"scope": "mcp:admin mcp:tools"}),
    ));
    let r = s.call(Some(&admin), "whoami", json!({})).await;
    assert_eq!(r.status, 200, "{r:?}");
}

#[tokio::test]
async fn the_metadata_document_is_public_at_both_well_known_paths() {
    let s = Protected::start(|resource| {
        ResourceServer::jwt(resource, ISSUER, JwtKey::hmac(SECRET).expect("key"))
            .expect("valid resource URL")
            .authorization_server("https://backup-auth.example.com")
            .scopes_supported(["mcp:read"])
            .require_scopes(["mcp:tools"])
            .resource_name("Auth test")
            .resource_documentation("https://docs.example.com/mcp")
    })
    .await;
    let expected = json!({
        "resource": s.resource,
        "authorization_servers": [ISSUER, "https://backup-auth.example.com"],
        "scopes_supported": ["mcp:read", "mcp:tools"],
        "bearer_methods_supported": ["header"],
        "resource_name": "Auth test",
        "resource_documentation": "https://docs.example.com/mcp",
    });
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let r = s.running.method("GET").path(path).send().await;
        assert_eq!(r.status, 200, "{path}: {r:?}");
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.json(), expected, "{path}");
    }
    // The DNS-rebinding protection holds for the document too.
    let r = s
        .running
        .method("GET")
        .path("/.well-known/oauth-protected-resource")
        .header("host", "evil.example.com")
        .send()
        .await;
    assert_eq!(r.status, 403);
}

#[tokio::test]
async fn the_resource_host_is_allowed_without_configuring_it_again() {
    let s = Protected::start(|_| {
        ResourceServer::jwt(
            "https://mcp.example.com/mcp",
            ISSUER,
            JwtKey::hmac(SECRET).expect("key"),
        )
        .expect("valid resource URL")
    })
    .await;
    let r = s
        .running
        .method("GET")
        .path("/.well-known/oauth-protected-resource/mcp")
        .header("host", "mcp.example.com")
        .header("origin", "https://mcp.example.com")
        .send()
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["resource"], "https://mcp.example.com/mcp");
}

#[tokio::test]
async fn without_auth_nothing_changes() {
    let s = Running::with(|t| t).await;
    let r = s
        .post(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "echo", "_meta": meta(json!({}))}})
            .to_string(),
        )
        .routing("tools/call", Some("echo"))
        .send()
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.header("www-authenticate").is_none());
    let r = s
        .method("GET")
        .path("/.well-known/oauth-protected-resource")
        .send()
        .await;
    assert_eq!(r.status, 404);
    // A token sent anyway is ignored: nothing verifies it.
    let r = s
        .post(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                     "params": {"_meta": meta(json!({}))}})
            .to_string(),
        )
        .routing("tools/list", None)
        .header("authorization", "Bearer whatever")
        .send()
        .await;
    assert_eq!(r.status, 200, "{r:?}");
}

#[tokio::test]
async fn a_verifier_outage_is_503_not_401() {
    let s = Protected::start(|resource| {
        let down = verify_fn(|_token: String| async {
            Err::<Identity, _>(AuthError::unavailable("the JWKS endpoint timed out"))
        });
        ResourceServer::new(resource, ISSUER, down).expect("valid resource URL")
    })
    .await;
    let r = s.call(Some("any-token"), "whoami", json!({})).await;
    assert_eq!(r.status, 503, "{r:?}");
    assert!(r.header("www-authenticate").is_none());
    assert_eq!(r.json()["error"], "temporarily_unavailable");
}

#[tokio::test]
async fn handlers_see_the_verified_identity_of_an_es256_token() {
    let s = Protected::start(|resource| {
        let verifier =
            JwtVerifier::new(JwtKey::ec_pem(ES256_PUBLIC).expect("key"), ISSUER, resource)
                .algorithms([Algorithm::ES256])
                .expect("an EC algorithm");
        ResourceServer::new(resource, ISSUER, verifier).expect("valid resource URL")
    })
    .await;
    let claims = with(
        s.claims("alice"),
        json!({"client_id": null, "azp": "spa", "scope": null, "scp": ["mcp:tools", "x"]}),
    );
    let r = s.call(Some(&es256(&claims)), "whoami", json!({})).await;
    let text = result(&r)["content"][0]["text"].clone();
    let seen: Value = serde_json::from_str(text.as_str().expect("text")).expect("json");
    assert_eq!(
        seen,
        json!({"client_id": "spa", "issuer": ISSUER, "subject": "alice",
               "scopes": ["mcp:tools", "x"], "expires_at": claims["exp"]})
    );
    // An HS256 token is no good to a server holding an EC key.
    let r = s
        .call(Some(&hs256(&s.claims("alice"))), "whoami", json!({}))
        .await;
    assert_invalid_token(&r, &s, "HS256 for an ES256 server");
}

#[tokio::test]
async fn a_call_started_by_one_user_cannot_be_finished_by_another_of_the_same_client() {
    let s = Protected::hs256().await;
    let alice = hs256(&s.claims("alice"));
    let first = s.call(Some(&alice), "provision", json!({})).await;
    let first = result(&first);
    assert_eq!(first["resultType"], "input_required", "{first}");
    let state = first["requestState"].as_str().expect("a requestState");
    let answers = json!({"region": {"action": "accept", "content": {"region": "eu-west-1"}}});
    let round_two = json!({"inputResponses": answers, "requestState": state});

    // Bob: same client, same issuer, a valid token of his own, Alice's state.
    let bob = hs256(&s.claims("bob"));
    let r = s.call(Some(&bob), "provision", round_two.clone()).await;
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(
        r.json()["error"],
        json!({"code": -32602, "message": "Invalid or expired requestState",
               "data": {"reason": "invalid_request_state"}})
    );

    // Alice, with a fresh token (another jti and exp): the principal is the user, not the
    // token, so she finishes.
    let fresh = hs256(&with(
        s.claims("alice"),
        json!({"exp": get_current_timestamp() + 600}),
    ));
    assert_ne!(fresh, alice);
    let second = s.call(Some(&fresh), "provision", round_two).await;
    let second = result(&second);
    assert_eq!(second["resultType"], "input_required", "{second}");
    let state = second["requestState"].as_str().expect("a requestState");
    let answers = json!({"sure": {"action": "accept", "content": {"ok": true}}});
    let third = s
        .call(
            Some(&alice),
            "provision",
            json!({"inputResponses": answers, "requestState": state}),
        )
        .await;
    assert_eq!(
        result(&third)["content"][0]["text"],
        "orders in eu-west-1: true"
    );
}

#[tokio::test]
async fn a_session_belongs_to_the_user_that_opened_it() {
    let s = Protected::hs256().await;
    let alice = format!("Bearer {}", hs256(&s.claims("alice")));
    let bob = format!("Bearer {}", hs256(&s.claims("bob")));
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}});
    let r = s
        .running
        .post(initialize.to_string())
        .header("authorization", &alice)
        .send()
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    let session = r.header("mcp-session-id").expect("a session").to_owned();
    let list = |id: i64, who: &str| {
        s.running
            .post(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}).to_string())
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .header("authorization", who)
    };
    assert_eq!(list(2, &alice).send().await.status, 200);

    // Bob knows the session id: to him it does not exist.
    assert_eq!(list(3, &bob).send().await.status, 404);
    for method in ["GET", "DELETE"] {
        let r = s
            .running
            .method(method)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .header("authorization", &bob)
            .send()
            .await;
        assert_eq!(r.status, 404, "{method}: {r:?}");
    }

    // Bob's DELETE did not end it; Alice's does.
    assert_eq!(list(4, &alice).send().await.status, 200);
    let r = s
        .running
        .method("DELETE")
        .header("mcp-session-id", &session)
        .header("authorization", &alice)
        .send()
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(list(5, &alice).send().await.status, 404);
}

#[tokio::test]
async fn one_caller_holds_at_most_its_share_of_sessions() {
    let s = Protected::hs256_with(|t| t.max_sessions_per_owner(2)).await;
    let alice = format!("Bearer {}", hs256(&s.claims("alice")));
    let bob = format!("Bearer {}", hs256(&s.claims("bob")));
    let open = |who: &'static str| {
        let token = if who == "alice" { &alice } else { &bob };
        let s = &s;
        async move {
            let (reply, session) = s.initialize(token).await;
            assert_eq!(reply.status, 200, "{who}: {reply:?}");
            session.expect("a session id")
        }
    };
    let bobs = open("bob").await;
    let alices = [
        open("alice").await,
        open("alice").await,
        open("alice").await,
    ];
    // Alice's third session evicted her own oldest, not Bob's, older still.
    assert_eq!(s.list_in(&alices[0], &alice).await, 404);
    assert_eq!(s.list_in(&alices[1], &alice).await, 200);
    assert_eq!(s.list_in(&bobs, &bob).await, 200);

    // With both of hers in use, Alice is refused; Bob is not.
    let mut streams = Vec::new();
    for session in &alices[1..] {
        let mut stream = s
            .running
            .method("GET")
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .header("authorization", &alice)
            .open()
            .await;
        let mut buf = [0u8; 1024];
        let n = read_within(&mut stream, &mut buf, "the stream's head").await;
        assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
        streams.push(stream);
    }
    let (refused, _) = s.initialize(&alice).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));
    open("bob").await;
}
