//! The client's OAuth extensions: the client credentials grant (`client_secret_basic`, and
//! `private_key_jwt` whose assertion is verified here with `jsonwebtoken`), and DPoP, against
//! an authorization server and a DPoP-checking resource served here on 127.0.0.1. Both
//! servers want a nonce once when told to, and log what they saw.

#![cfg(feature = "http")]

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::{Form, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::jwk::ThumbprintHash;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use mcp::McpServer;
use mcp::auth::JwtAlgorithm;
use mcp::client::Client;
use mcp::client::auth::{ClientCredentials, OAuth};
use mcp::protocol::Implementation;
use mcp::transport::http::HttpTransport;
use mcp::transport::http_client::{self, Credentials};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use tokio::net::TcpListener;
use tokio_util::sync::{CancellationToken, DropGuard};

const CLIENT_ID: &str = "machine-client";
const CLIENT_SECRET: &str = "machine-secret";

/// The client's `private_key_jwt` key pair (P-256), made for these tests.
const PRIVATE_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgNa0zjxkjPZORqppC
Cvb5M3R/VvI+44S7JIkGt2wzbVKhRANCAASGfGN5ARN2Q7Zz7t/rDGUK1sm7wboC
w2NjJeoOJC14jN+yzBtKPbaQ5NfPhAlwJmh0AQDYxeuRE//vNjQyQ75A
-----END PRIVATE KEY-----
";
const PUBLIC_KEY: &str = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEhnxjeQETdkO2c+7f6wxlCtbJu8G6
AsNjYyXqDiQteIzfsswbSj22kOTXz4QJcCZodAEA2MXrkRP/7zY0MkO+QA==
-----END PUBLIC KEY-----
";

const AS_NONCE: &str = "as-nonce-1";
const RS_NONCE: &str = "rs-nonce-1";

/// How the test authorization server wants clients to authenticate.
#[derive(Clone, Copy, PartialEq)]
enum ClientAuth {
    Basic,
    PrivateKeyJwt,
}

#[derive(Clone, Copy)]
struct Setup {
    auth: ClientAuth,
    /// Whether the authorization server advertises DPoP.
    dpop: bool,
    /// Whether both servers want their nonce in the proofs.
    nonces: bool,
}

/// An authorization server for the client credentials grant only, and the resource's view of
/// the tokens it issued: each with the thumbprint of the key it is bound to, if any.
struct AuthServer {
    issuer: String,
    resource: String,
    setup: Setup,
    issued: Mutex<HashMap<String, Option<String>>>,
    /// Proof `jti`s seen by either server: none may come twice.
    jtis: Mutex<HashSet<String>>,
    log: Mutex<Vec<String>>,
    counter: AtomicU64,
}

impl AuthServer {
    fn note(&self, entry: String) {
        self.log.lock().expect("log").push(entry);
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().expect("log").clone()
    }

    fn fresh_jti(&self, jti: &str) -> bool {
        self.jtis.lock().expect("jtis").insert(jti.to_owned())
    }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn error(status: StatusCode, error: &str, why: &str) -> Response {
    (
        status,
        Json(json!({"error": error, "error_description": why})),
    )
        .into_response()
}

/// A verified DPoP proof: its claims and its key's thumbprint.
struct Proof {
    claims: Value,
    jkt: String,
}

/// Checks a DPoP proof as RFC 9449 §4.3 says, for `method url` (the thumbprint, `ath` and
/// `nonce` are the caller's to compare).
fn verify_proof(headers: &HeaderMap, method: &str, url: &str) -> Result<Proof, String> {
    let proofs: Vec<_> = headers.get_all("dpop").iter().collect();
    let [proof] = proofs.as_slice() else {
        return Err(format!("{} DPoP headers", proofs.len()));
    };
    let proof = proof.to_str().map_err(|e| e.to_string())?;
    let header = jsonwebtoken::decode_header(proof).map_err(|e| e.to_string())?;
    if header.typ.as_deref() != Some("dpop+jwt") || header.alg != Algorithm::ES256 {
        return Err(format!("typ {:?}, alg {:?}", header.typ, header.alg));
    }
    let jwk = header.jwk.ok_or("no jwk")?;
    let key = DecodingKey::from_jwk(&jwk).map_err(|e| e.to_string())?;
    let mut validation = Validation::new(Algorithm::ES256);
    validation.required_spec_claims.clear();
    validation.validate_exp = false;
    let claims = jsonwebtoken::decode::<Value>(proof, &key, &validation)
        .map_err(|e| format!("signature: {e}"))?
        .claims;
    if claims["htm"] != method || claims["htu"] != url {
        return Err(format!("htm {} htu {}", claims["htm"], claims["htu"]));
    }
    if claims["iat"]
        .as_i64()
        .is_none_or(|iat| (now() - iat).abs() > 60)
    {
        return Err("iat".to_owned());
    }
    if claims["jti"].as_str().is_none_or(str::is_empty) {
        return Err("no jti".to_owned());
    }
    let jkt = jwk
        .thumbprint(ThumbprintHash::SHA256)
        .map_err(|e| e.to_string())?;
    Ok(Proof { claims, jkt })
}

async fn metadata(State(auth): State<Arc<AuthServer>>) -> Json<Value> {
    let issuer = &auth.issuer;
    let (method, algs) = match auth.setup.auth {
        ClientAuth::Basic => ("client_secret_basic", None),
        ClientAuth::PrivateKeyJwt => ("private_key_jwt", Some(["ES256"])),
    };
    let mut document = json!({
        "issuer": issuer,
        "token_endpoint": format!("{issuer}/token"),
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": [method],
        "token_endpoint_auth_signing_alg_values_supported": algs,
    });
    if auth.setup.dpop {
        document["dpop_signing_alg_values_supported"] = json!(["ES256", "RS256"]);
    }
    Json(document)
}

/// Who the client is, as its authentication says.
fn authenticate(
    auth: &AuthServer,
    headers: &HeaderMap,
    form: &HashMap<String, String>,
) -> Result<(), String> {
    match auth.setup.auth {
        ClientAuth::Basic => {
            let basic = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Basic "))
                .ok_or("no Basic credentials")?;
            let decoded = STANDARD.decode(basic).map_err(|e| e.to_string())?;
            if decoded != format!("{CLIENT_ID}:{CLIENT_SECRET}").as_bytes() {
                return Err("wrong Basic credentials".to_owned());
            }
            Ok(())
        }
        ClientAuth::PrivateKeyJwt => {
            let get = |k: &str| form.get(k).map(String::as_str);
            if get("client_assertion_type")
                != Some("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            {
                return Err("client_assertion_type".to_owned());
            }
            let assertion = get("client_assertion").ok_or("no client_assertion")?;
            let key = DecodingKey::from_ec_pem(PUBLIC_KEY.as_bytes()).map_err(|e| e.to_string())?;
            let mut validation = Validation::new(Algorithm::ES256);
            validation.set_audience(&[&auth.issuer]);
            validation.set_issuer(&[CLIENT_ID]);
            validation.set_required_spec_claims(&["exp", "iss", "sub", "aud"]);
            let claims = jsonwebtoken::decode::<Value>(assertion, &key, &validation)
                .map_err(|e| format!("assertion: {e}"))?
                .claims;
            if claims["sub"] != CLIENT_ID || claims["jti"].as_str().is_none_or(str::is_empty) {
                return Err(format!("assertion claims {claims}"));
            }
            if headers.contains_key("authorization") {
                return Err("a secret beside the assertion".to_owned());
            }
            Ok(())
        }
    }
}

async fn token(
    State(auth): State<Arc<AuthServer>>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let grant = form.get("grant_type").cloned().unwrap_or_default();
    if grant != "client_credentials" {
        return error(StatusCode::BAD_REQUEST, "unsupported_grant_type", &grant);
    }
    if form.get("resource") != Some(&auth.resource) {
        return error(StatusCode::BAD_REQUEST, "invalid_target", "wrong resource");
    }
    if let Err(why) = authenticate(&auth, &headers, &form) {
        auth.note(format!("token refused: {why}"));
        return error(StatusCode::UNAUTHORIZED, "invalid_client", &why);
    }
    let mut bound = None;
    if auth.setup.dpop && headers.contains_key("dpop") {
        let proof = match verify_proof(&headers, "POST", &format!("{}/token", auth.issuer)) {
            Ok(proof) => proof,
            Err(why) => {
                auth.note(format!("token refused: proof {why}"));
                return error(StatusCode::BAD_REQUEST, "invalid_dpop_proof", &why);
            }
        };
        if proof.claims.get("ath").is_some()
            || !auth.fresh_jti(proof.claims["jti"].as_str().unwrap_or_default())
        {
            return error(StatusCode::BAD_REQUEST, "invalid_dpop_proof", "ath or jti");
        }
        if auth.setup.nonces && proof.claims["nonce"] != AS_NONCE {
            auth.note("token: nonce asked".to_owned());
            let mut refusal = error(StatusCode::BAD_REQUEST, "use_dpop_nonce", "a nonce");
            refusal
                .headers_mut()
                .insert("dpop-nonce", AS_NONCE.parse().expect("a header value"));
            return refusal;
        }
        bound = Some(proof.jkt);
    }
    let access = format!("access-{}", auth.counter.fetch_add(1, Ordering::Relaxed));
    let token_type = if bound.is_some() { "DPoP" } else { "Bearer" };
    auth.note(format!("token issued {token_type}"));
    auth.issued
        .lock()
        .expect("issued")
        .insert(access.clone(), bound);
    Json(json!({"access_token": access, "token_type": token_type, "expires_in": 3600}))
        .into_response()
}

/// The resource's gate: a token the authorization server issued, presented as its type says
/// (`DPoP` with a proof for this request, its `ath` and the token's key), and the resource's
/// nonce once the server handed it out.
async fn gate(State(auth): State<Arc<AuthServer>>, request: Request, next: Next) -> Response {
    let challenge = |extra: &str| {
        let scheme = if auth.setup.dpop { "DPoP" } else { "Bearer" };
        format!(
            r#"{scheme} {extra}resource_metadata="{}/.well-known/oauth-protected-resource/mcp""#,
            auth.resource.trim_end_matches("/mcp")
        )
    };
    let unauthorized = |extra: &str, nonce: bool| {
        let mut response = StatusCode::UNAUTHORIZED.into_response();
        let headers = response.headers_mut();
        headers.insert(
            "www-authenticate",
            challenge(extra).parse().expect("a header value"),
        );
        if nonce {
            headers.insert("dpop-nonce", RS_NONCE.parse().expect("a header value"));
        }
        response
    };
    let headers = request.headers();
    let Some((scheme, token)) = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
    else {
        auth.note("resource: no token".to_owned());
        return unauthorized("", false);
    };
    let Some(bound) = auth.issued.lock().expect("issued").get(token).cloned() else {
        auth.note("resource: unknown token".to_owned());
        return unauthorized(r#"error="invalid_token", "#, false);
    };
    match (scheme, bound) {
        ("Bearer", None) => auth.note(format!("resource: {} Bearer", request.method())),
        ("DPoP", Some(jkt)) => {
            let proof = match verify_proof(headers, request.method().as_str(), &auth.resource) {
                Ok(proof) => proof,
                Err(why) => {
                    auth.note(format!("resource: bad proof {why}"));
                    return unauthorized(r#"error="invalid_dpop_proof", "#, false);
                }
            };
            let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()));
            if proof.jkt != jkt
                || proof.claims["ath"] != ath
                || !auth.fresh_jti(proof.claims["jti"].as_str().unwrap_or_default())
            {
                auth.note("resource: proof not for this token, or replayed".to_owned());
                return unauthorized(r#"error="invalid_dpop_proof", "#, false);
            }
            if auth.setup.nonces && proof.claims["nonce"] != RS_NONCE {
                auth.note("resource: nonce asked".to_owned());
                return unauthorized(r#"error="use_dpop_nonce", "#, true);
            }
            auth.note(format!("resource: {} DPoP", request.method()));
        }
        (scheme, _) => {
            auth.note(format!("resource: wrong scheme {scheme}"));
            return unauthorized(r#"error="invalid_token", "#, false);
        }
    }
    next.run(request).await
}

#[mcp::tool]
async fn echo(text: String) -> String {
    text
}

/// The authorization server and the MCP server behind [`gate`], on loopback ports.
struct Protected {
    url: String,
    auth: Arc<AuthServer>,
    _stop: DropGuard,
}

impl Protected {
    async fn start(setup: Setup) -> Self {
        let as_listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let issuer = format!("http://{}", as_listener.local_addr().expect("address"));
        let mcp_listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let origin = format!("http://{}", mcp_listener.local_addr().expect("address"));
        let url = format!("{origin}/mcp");
        let auth = Arc::new(AuthServer {
            issuer: issuer.clone(),
            resource: url.clone(),
            setup,
            issued: Mutex::default(),
            jtis: Mutex::default(),
            log: Mutex::default(),
            counter: AtomicU64::new(1),
        });
        let stop = CancellationToken::new();

        let as_app = Router::new()
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/token", post(token))
            .with_state(auth.clone());
        let shutdown = stop.clone().cancelled_owned();
        tokio::spawn(async move {
            axum::serve(as_listener, as_app)
                .with_graceful_shutdown(shutdown)
                .await
        });

        let server = McpServer::new("protected")
            .tools(mcp::tools![echo])
            .build()
            .expect("a valid server");
        let prm = json!({"resource": url, "authorization_servers": [issuer]});
        let mcp_app = HttpTransport::new(server)
            .into_router()
            .layer(middleware::from_fn_with_state(auth.clone(), gate))
            .route(
                "/.well-known/oauth-protected-resource/mcp",
                get(move || std::future::ready(Json(prm.clone()))),
            );
        let shutdown = stop.clone().cancelled_owned();
        tokio::spawn(async move {
            axum::serve(mcp_listener, mcp_app)
                .with_graceful_shutdown(shutdown)
                .await
        });
        Self {
            url,
            auth,
            _stop: stop.drop_guard(),
        }
    }

    fn client(&self, oauth: OAuth) -> Client {
        let duplex = http_client::Builder::new(&self.url)
            .auth(oauth)
            .connect()
            .expect("an http URL");
        Client::builder(Implementation::new("machine", "1.0.0")).connect(duplex)
    }
}

async fn use_tools(client: &Client) {
    assert_eq!(
        client.list_tools(None).await.expect("listed").tools.len(),
        1
    );
    client
        .call_tool("echo", Some(json!({"text": "hi"})))
        .await
        .expect("called");
}

fn jwt_credentials() -> ClientCredentials {
    ClientCredentials::private_key_jwt(CLIENT_ID, PRIVATE_KEY, JwtAlgorithm::ES256)
        .expect("a P-256 PEM key")
}

#[tokio::test]
async fn client_credentials_with_a_signed_assertion_get_a_bearer_token() {
    let protected = Protected::start(Setup {
        auth: ClientAuth::PrivateKeyJwt,
        dpop: false,
        nonces: false,
    })
    .await;
    let client = protected.client(OAuth::client_credentials(jwt_credentials()).build());
    use_tools(&client).await;
    let log = protected.auth.log();
    assert_eq!(
        log.iter()
            .filter(|e| e.starts_with("token"))
            .collect::<Vec<_>>(),
        ["token issued Bearer"],
        "{log:?}"
    );
    assert!(log.contains(&"resource: POST Bearer".to_owned()), "{log:?}");
}

#[tokio::test]
async fn client_credentials_with_a_secret_use_basic_authentication() {
    let protected = Protected::start(Setup {
        auth: ClientAuth::Basic,
        dpop: false,
        nonces: false,
    })
    .await;
    let credentials = ClientCredentials::confidential(CLIENT_ID, CLIENT_SECRET);
    let client = protected.client(OAuth::client_credentials(credentials).build());
    use_tools(&client).await;
    let log = protected.auth.log();
    assert_eq!(log[0], "resource: no token", "{log:?}");
    assert_eq!(log[1], "token issued Bearer", "{log:?}");
}

#[tokio::test]
async fn a_wrong_key_is_refused_by_the_authorization_server() {
    let protected = Protected::start(Setup {
        auth: ClientAuth::PrivateKeyJwt,
        dpop: false,
        nonces: false,
    })
    .await;
    // A key of its own, not the one the authorization server knows.
    let other = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQghvv/dQzdwQqWUuaq
DNaIo7Rpwbw+uCDs7Gm/m/jAO2ihRANCAATBfRBtmcWsCHSR3bKXX6JKwCj5fR93
kli1C+/UL1PXtS2mdcTbY+Ba0NqLKHipjz7mKcvfFC4Le3b8jpcSLxYE
-----END PRIVATE KEY-----
";
    let credentials = ClientCredentials::private_key_jwt(CLIENT_ID, other, JwtAlgorithm::ES256)
        .expect("a P-256 PEM key");
    let client = protected.client(OAuth::client_credentials(credentials).build());
    let error = client.list_tools(None).await.expect_err("refused");
    assert!(error.to_string().contains("invalid_client"), "{error}");
    assert!(
        protected
            .auth
            .log()
            .iter()
            .any(|e| e.contains("assertion: InvalidSignature")),
        "{:?}",
        protected.auth.log()
    );
}

#[test]
fn keys_that_cannot_sign_assertions_are_refused_and_none_shows_in_debug() {
    assert!(
        ClientCredentials::private_key_jwt(CLIENT_ID, "not a key", JwtAlgorithm::ES256).is_err()
    );
    assert!(
        ClientCredentials::private_key_jwt(CLIENT_ID, PRIVATE_KEY, JwtAlgorithm::HS256).is_err()
    );
    let debug = format!("{:?}", jwt_credentials());
    assert!(!debug.contains("MIGH"), "{debug}");
    let credentials = Credentials::dpop("the-token", "the-proof");
    let debug = format!("{credentials:?}");
    assert!(
        !debug.contains("the-token") && !debug.contains("the-proof"),
        "{debug}"
    );
}

#[tokio::test]
async fn dpop_binds_the_token_and_answers_both_servers_nonces() {
    let protected = Protected::start(Setup {
        auth: ClientAuth::Basic,
        dpop: true,
        nonces: true,
    })
    .await;
    let credentials = ClientCredentials::confidential(CLIENT_ID, CLIENT_SECRET);
    let client = protected.client(OAuth::client_credentials(credentials).build());
    use_tools(&client).await;
    let log = protected.auth.log();
    // Each server asks for its nonce once; every later proof carries it unasked.
    assert_eq!(
        log[..5],
        [
            "resource: no token",
            "token: nonce asked",
            "token issued DPoP",
            "resource: nonce asked",
            "resource: POST DPoP",
        ],
        "{log:?}"
    );
    assert!(
        log[5..]
            .iter()
            .all(|e| e == "resource: POST DPoP" || e == "resource: GET DPoP"),
        "{log:?}"
    );
}

#[tokio::test]
async fn with_dpop_turned_off_the_token_is_a_bearer_one() {
    let protected = Protected::start(Setup {
        auth: ClientAuth::PrivateKeyJwt,
        dpop: true,
        nonces: true,
    })
    .await;
    let oauth = OAuth::client_credentials(jwt_credentials())
        .dpop(false)
        .build();
    let client = protected.client(oauth);
    // The resource wants DPoP (its challenge says so) but takes the Bearer token the
    // authorization server chose to issue.
    use_tools(&client).await;
    let log = protected.auth.log();
    assert_eq!(log[1], "token issued Bearer", "{log:?}");
    assert!(log.contains(&"resource: POST Bearer".to_owned()), "{log:?}");
}
