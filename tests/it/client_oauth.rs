//! The client's OAuth 2.1: the `WWW-Authenticate` parser, the metadata locations, and the
//! whole flow against a small authorization server served here on 127.0.0.1, in front of an
//! MCP server protected by our `ResourceServer`.

#![cfg(feature = "http")]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Form, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use mcp::McpServer;
use mcp::auth::{AuthError, Identity, ResourceServer, verify_fn};
use mcp::client::Client;
use mcp::client::auth::discovery::{
    authorization_server_metadata_urls, protected_resource_metadata_urls, resource_matches,
};
use mcp::client::auth::{
    AuthorizationResponse, FileTokenStore, HeadlessAuthorize, OAuth, TokenStore, Url,
};
use mcp::protocol::Implementation;
use mcp::transport::http::HttpTransport;
use mcp::transport::http_client::{self, challenge};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::{CancellationToken, DropGuard};

// --- the WWW-Authenticate parser -----------------------------------------------------------

#[test]
fn a_bearer_challenge_gives_its_parameters_unquoted() {
    let header = r#"Bearer resource_metadata="http://h:8/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:write""#;
    let challenges = challenge::parse(header);
    assert_eq!(challenges.len(), 1);
    let bearer = &challenges[0];
    assert!(bearer.is_bearer());
    assert_eq!(
        bearer.param("resource_metadata"),
        Some("http://h:8/.well-known/oauth-protected-resource/mcp")
    );
    assert_eq!(bearer.param("scope"), Some("mcp:read mcp:write"));
    assert_eq!(bearer.param("error"), None);
}

#[test]
fn several_challenges_are_told_apart_by_their_schemes() {
    let header = r#"Basic realm="files", Bearer error="insufficient_scope", scope="files:write""#;
    let challenges = challenge::parse(header);
    let schemes: Vec<&str> = challenges.iter().map(|c| c.scheme.as_str()).collect();
    assert_eq!(schemes, ["Basic", "Bearer"]);
    assert_eq!(challenges[0].param("realm"), Some("files"));
    assert_eq!(challenges[1].param("error"), Some("insufficient_scope"));
    assert_eq!(challenges[1].param("scope"), Some("files:write"));
}

#[test]
fn quoted_strings_keep_commas_and_escaped_quotes_and_tokens_need_no_quotes() {
    let header = r#"Bearer realm="a \"b\", c", error=invalid_token"#;
    let challenges = challenge::parse(header);
    assert_eq!(challenges.len(), 1);
    assert_eq!(challenges[0].param("realm"), Some(r#"a "b", c"#));
    assert_eq!(challenges[0].param("error"), Some("invalid_token"));
}

#[test]
fn schemes_and_parameter_names_are_case_insensitive() {
    let challenges = challenge::parse(r#"bearer Scope="x""#);
    assert!(challenges[0].is_bearer());
    assert_eq!(challenges[0].param("scope"), Some("x"));
    assert_eq!(challenges[0].param("SCOPE"), Some("x"));
}

#[test]
fn a_token68_challenge_does_not_swallow_the_next_one() {
    let challenges = challenge::parse(r#"Negotiate YWJj==, Bearer scope="x""#);
    assert_eq!(challenges.len(), 2);
    assert_eq!(challenges[0].token68.as_deref(), Some("YWJj=="));
    assert!(challenges[0].params.is_empty());
    assert_eq!(challenges[1].param("scope"), Some("x"));
}

#[test]
fn malformed_headers_give_what_came_before_the_damage() {
    assert!(challenge::parse("").is_empty());
    let unterminated = challenge::parse(r#"Bearer error="invalid_token", scope="abc"#);
    assert_eq!(unterminated.len(), 1);
    assert_eq!(unterminated[0].param("error"), Some("invalid_token"));
    assert_eq!(unterminated[0].param("scope"), None);
}

// --- the metadata locations ----------------------------------------------------------------

fn strings(urls: Vec<Url>) -> Vec<String> {
    urls.into_iter().map(String::from).collect()
}

fn url(text: &str) -> Url {
    Url::parse(text).expect("a test URL")
}

#[test]
fn protected_resource_metadata_is_looked_for_path_inserted_then_at_the_root() {
    assert_eq!(
        strings(protected_resource_metadata_urls(&url("http://h:8/mcp"))),
        [
            "http://h:8/.well-known/oauth-protected-resource/mcp",
            "http://h:8/.well-known/oauth-protected-resource",
        ]
    );
    assert_eq!(
        strings(protected_resource_metadata_urls(&url(
            "https://h/a/b/?q=1#f"
        ))),
        [
            "https://h/.well-known/oauth-protected-resource/a/b",
            "https://h/.well-known/oauth-protected-resource",
        ]
    );
    assert_eq!(
        strings(protected_resource_metadata_urls(&url("http://h:8"))),
        ["http://h:8/.well-known/oauth-protected-resource"]
    );
}

#[test]
fn authorization_server_metadata_locations_follow_the_spec_order() {
    assert_eq!(
        strings(authorization_server_metadata_urls(&url(
            "https://as.example.com"
        ))),
        [
            "https://as.example.com/.well-known/oauth-authorization-server",
            "https://as.example.com/.well-known/openid-configuration",
        ]
    );
    assert_eq!(
        strings(authorization_server_metadata_urls(&url(
            "https://as.example.com/tenant1"
        ))),
        [
            "https://as.example.com/.well-known/oauth-authorization-server/tenant1",
            "https://as.example.com/.well-known/openid-configuration/tenant1",
            "https://as.example.com/tenant1/.well-known/openid-configuration",
        ]
    );
}

#[test]
fn a_resource_stands_for_its_own_url_and_those_below_it_only() {
    let server = url("http://h:8/mcp");
    assert!(resource_matches("http://h:8/mcp", &server));
    assert!(resource_matches("http://h:8", &server));
    assert!(resource_matches("http://H:8/", &server));
    assert!(!resource_matches("https://evil.example.com/mcp", &server));
    assert!(!resource_matches("http://h:9/mcp", &server));
    assert!(!resource_matches("https://h:8/mcp", &server));
    assert!(!resource_matches("http://h:8/mc", &server));
    assert!(!resource_matches("http://h:8/mcp/deeper", &server));
    assert!(!resource_matches("not a url", &server));
}

#[test]
fn a_redirect_with_a_repeated_parameter_or_an_error_is_refused() {
    let good = AuthorizationResponse::from_redirect(&url(
        "http://127.0.0.1/cb?code=c&state=s&iss=http%3A%2F%2Fas",
    ))
    .expect("a good redirect");
    assert_eq!(good.code, "c");
    assert_eq!(good.state.as_deref(), Some("s"));
    assert_eq!(good.iss.as_deref(), Some("http://as"));
    assert!(
        !format!("{good:?}").contains("\"c\""),
        "the code is redacted"
    );

    let twice = AuthorizationResponse::from_redirect(&url("http://127.0.0.1/cb?code=a&code=b"));
    assert!(twice.is_err());
    let denied = AuthorizationResponse::from_redirect(&url(
        "http://127.0.0.1/cb?error=access_denied&state=s",
    ))
    .expect_err("an error redirect");
    assert!(denied.to_string().contains("access_denied"), "{denied}");
}

// --- the whole flow ------------------------------------------------------------------------

/// A small authorization server: dynamic registration, an authorization endpoint that
/// approves at once, and a token endpoint for codes and refresh tokens. It insists on what
/// the client must send, answering 400 otherwise, and logs what it was asked.
struct AuthServer {
    issuer: String,
    /// The resource indicator every request must carry.
    resource: String,
    expires_in: u64,
    /// Issued codes: their PKCE challenge and scope.
    codes: Mutex<HashMap<String, (String, String)>>,
    /// Issued refresh tokens and their scope.
    refresh_tokens: Mutex<HashMap<String, String>>,
    /// Issued access tokens and their scopes, which the MCP server's verifier accepts.
    access_tokens: Arc<Mutex<HashMap<String, Vec<String>>>>,
    log: Mutex<Vec<String>>,
    counter: AtomicU64,
}

const CLIENT_ID: &str = "registered-client";
const CLIENT_SECRET: &str = "registered-secret";

impl AuthServer {
    fn note(&self, entry: String) {
        self.log.lock().expect("log").push(entry);
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().expect("log").clone()
    }

    fn next(&self, prefix: &str) -> String {
        format!("{prefix}-{}", self.counter.fetch_add(1, Ordering::Relaxed))
    }

    fn tokens(&self, scope: &str) -> Value {
        let access = self.next("access");
        let refresh = self.next("refresh");
        self.access_tokens.lock().expect("tokens").insert(
            access.clone(),
            scope.split_whitespace().map(str::to_owned).collect(),
        );
        self.refresh_tokens
            .lock()
            .expect("tokens")
            .insert(refresh.clone(), scope.to_owned());
        json!({"access_token": access, "token_type": "Bearer", "expires_in": self.expires_in,
               "refresh_token": refresh, "scope": scope})
    }
}

type Params = HashMap<String, String>;

fn refuse(why: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(json!({"error": "invalid_request", "error_description": why})),
    )
        .into_response()
}

async fn metadata(State(auth): State<Arc<AuthServer>>) -> Json<Value> {
    let issuer = &auth.issuer;
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_post"],
        "authorization_response_iss_parameter_supported": true,
        "scopes_supported": ["mcp:tools", "offline_access"],
    }))
}

async fn register(State(auth): State<Arc<AuthServer>>, Json(body): Json<Value>) -> Response {
    auth.note(format!(
        "register {}",
        body["token_endpoint_auth_method"].as_str().unwrap_or("-")
    ));
    if body["redirect_uris"].as_array().is_none_or(Vec::is_empty) {
        return refuse("no redirect_uris");
    }
    (
        StatusCode::CREATED,
        Json(
            json!({"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
                    "token_endpoint_auth_method": "client_secret_post"}),
        ),
    )
        .into_response()
}

async fn authorize(State(auth): State<Arc<AuthServer>>, Query(q): Query<Params>) -> Response {
    let get = |k: &str| q.get(k).map(String::as_str);
    let scope = get("scope").unwrap_or_default().to_owned();
    auth.note(format!("authorize {scope}"));
    if get("response_type") != Some("code")
        || get("client_id") != Some(CLIENT_ID)
        || get("code_challenge_method") != Some("S256")
        || get("code_challenge").is_none_or(|c| c.len() != 43)
        || get("resource") != Some(auth.resource.as_str())
        || get("state").is_none_or(str::is_empty)
    {
        return refuse("a bad authorization request");
    }
    let Some(mut redirect) = get("redirect_uri").and_then(|r| Url::parse(r).ok()) else {
        return refuse("no redirect_uri");
    };
    let code = auth.next("code");
    auth.codes.lock().expect("codes").insert(
        code.clone(),
        (get("code_challenge").unwrap_or_default().to_owned(), scope),
    );
    redirect
        .query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", get("state").unwrap_or_default())
        .append_pair("iss", &auth.issuer);
    Redirect::to(redirect.as_str()).into_response()
}

async fn token(State(auth): State<Arc<AuthServer>>, Form(f): Form<Params>) -> Response {
    let get = |k: &str| f.get(k).map(String::as_str);
    let grant = get("grant_type").unwrap_or_default().to_owned();
    auth.note(format!("token {grant}"));
    if get("client_id") != Some(CLIENT_ID) || get("client_secret") != Some(CLIENT_SECRET) {
        return refuse("client_secret_post expected");
    }
    if get("resource") != Some(auth.resource.as_str()) {
        return refuse("wrong resource");
    }
    let scope = match grant.as_str() {
        "authorization_code" => {
            let issued = get("code").and_then(|c| auth.codes.lock().expect("codes").remove(c));
            let Some((challenge, scope)) = issued else {
                return refuse("unknown code");
            };
            // The verifier is 43 to 128 characters, and never the challenge itself.
            let verifier = get("code_verifier").unwrap_or_default();
            if !(43..=128).contains(&verifier.len()) || verifier == challenge {
                return refuse("a bad code_verifier");
            }
            scope
        }
        "refresh_token" => {
            let known = get("refresh_token")
                .and_then(|r| auth.refresh_tokens.lock().expect("tokens").remove(r));
            let Some(scope) = known else {
                return refuse("unknown refresh token");
            };
            scope
        }
        _ => return refuse("unsupported grant"),
    };
    Json(auth.tokens(&scope)).into_response()
}

/// An MCP server behind `ResourceServer` that wants `mcp:tools`, and the authorization server
/// that issues its tokens, both on loopback ports.
struct Protected {
    url: String,
    auth: Arc<AuthServer>,
    _stop: (DropGuard, DropGuard),
}

#[mcp::tool]
async fn echo(text: String) -> String {
    text
}

/// Erases a note: only with a token that holds `notes:write`.
#[mcp::tool(scopes = ["notes:write"])]
async fn erase_note(id: String) -> String {
    format!("erased {id}")
}

impl Protected {
    /// `resource` names the resource the MCP server claims to be (its URL, unless a test
    /// wants a server that lies).
    async fn start(expires_in: u64, resource: impl FnOnce(&str) -> String) -> Self {
        let as_listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let issuer = format!("http://{}", as_listener.local_addr().expect("address"));
        let mcp_listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/mcp", mcp_listener.local_addr().expect("address"));
        let resource = resource(&url);

        let access_tokens: Arc<Mutex<HashMap<String, Vec<String>>>> = Arc::default();
        let auth = Arc::new(AuthServer {
            issuer: issuer.clone(),
            resource: resource.clone(),
            expires_in,
            codes: Mutex::default(),
            refresh_tokens: Mutex::default(),
            access_tokens: access_tokens.clone(),
            log: Mutex::default(),
            counter: AtomicU64::new(1),
        });
        let app = Router::new()
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/register", post(register))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .with_state(auth.clone());
        let as_stop = CancellationToken::new();
        let shutdown = as_stop.clone().cancelled_owned();
        tokio::spawn(async move {
            axum::serve(as_listener, app)
                .with_graceful_shutdown(shutdown)
                .await
        });

        let verifier = verify_fn(move |token: String| {
            let scopes = access_tokens.lock().expect("tokens").get(&token).cloned();
            async move {
                match scopes {
                    Some(scopes) => Ok(Identity {
                        subject: Some("user".into()),
                        scopes,
                        ..Identity::default()
                    }),
                    None => Err(AuthError::invalid("not a token we issued")),
                }
            }
        });
        let resource_server = ResourceServer::new(resource, issuer, verifier)
            .expect("a resource URL")
            .require_scopes(["mcp:tools"])
            .scopes_supported(["mcp:tools"]);
        let server = McpServer::new("protected")
            .tools(mcp::tools![echo, erase_note])
            .build()
            .expect("a valid server");
        let mcp_stop = CancellationToken::new();
        let shutdown = mcp_stop.clone().cancelled_owned();
        tokio::spawn(
            HttpTransport::new(server)
                .auth(resource_server)
                .serve(mcp_listener, shutdown),
        );
        Self {
            url,
            auth,
            _stop: (as_stop.drop_guard(), mcp_stop.drop_guard()),
        }
    }

    fn client(&self, store: impl TokenStore) -> Client {
        let oauth = OAuth::builder(HeadlessAuthorize::new("http://127.0.0.1:1/callback"))
            .client_name("oauth-test")
            .token_store(store)
            .build();
        let duplex = http_client::Builder::new(&self.url)
            .auth(oauth)
            .connect()
            .expect("an http URL");
        Client::builder(Implementation::new("oauth-test", "1.0.0")).connect(duplex)
    }
}

/// A token file of this test's own, removed when dropped.
struct TokenFile(PathBuf);

impl TokenFile {
    fn new(name: &str) -> Self {
        Self(std::env::temp_dir().join(format!("mcp-oauth-{name}-{}.json", std::process::id())))
    }

    fn store(&self) -> FileTokenStore {
        FileTokenStore::new(&self.0)
    }
}

impl Drop for TokenFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[tokio::test]
async fn concurrent_refused_requests_share_one_authorization_and_a_restart_reuses_it() {
    let protected = Protected::start(3600, str::to_owned).await;
    let file = TokenFile::new("restart");
    let client = protected.client(file.store());

    let (a, b, c) = tokio::join!(
        client.list_tools(None),
        client.list_tools(None),
        client.call_tool("echo", Some(json!({"text": "hi"}))),
    );
    assert_eq!(a.expect("listed").tools.len(), 2);
    assert_eq!(b.expect("listed").tools.len(), 2);
    c.expect("called");
    // The metadata's scope, plus offline_access which the server offers; registered once,
    // authorized once, for the three requests.
    assert_eq!(
        protected.auth.log(),
        [
            "register client_secret_post",
            "authorize mcp:tools offline_access",
            "token authorization_code",
        ]
    );

    let saved = std::fs::read_to_string(&file.0).expect("the grant was saved");
    assert!(saved.contains(CLIENT_ID), "{saved}");
    drop(client);

    // A new process with the same file: the saved token goes out at once.
    let again = protected.client(file.store());
    again.list_tools(None).await.expect("listed");
    assert_eq!(protected.auth.log().len(), 3, "{:?}", protected.auth.log());
}

#[tokio::test]
async fn a_token_about_to_expire_is_refreshed_before_it_is_sent() {
    // Thirty seconds is within the client's refresh margin: every request refreshes first.
    let protected = Protected::start(30, str::to_owned).await;
    let file = TokenFile::new("refresh");
    let client = protected.client(file.store());
    client.list_tools(None).await.expect("listed");
    client
        .call_tool("echo", Some(json!({"text": "again"})))
        .await
        .expect("called");
    let log = protected.auth.log();
    assert_eq!(
        log.iter()
            .filter(|e| *e == "token authorization_code")
            .count(),
        1,
        "{log:?}"
    );
    assert!(
        log.iter().filter(|e| *e == "token refresh_token").count() >= 2,
        "{log:?}"
    );
}

#[tokio::test]
async fn metadata_for_another_resource_stops_the_client_before_authorization() {
    let protected = Protected::start(3600, |_| "http://127.0.0.1:1/mcp".to_owned()).await;
    let file = TokenFile::new("mismatch");
    let client = protected.client(file.store());
    let error = client.list_tools(None).await.expect_err("refused");
    assert!(
        error
            .to_string()
            .contains("protected resource metadata is for http://127.0.0.1:1/mcp"),
        "{error}"
    );
    assert!(
        protected.auth.log().is_empty(),
        "{:?}",
        protected.auth.log()
    );
}

#[tokio::test]
async fn a_tool_needing_a_scope_the_token_lacks_makes_the_client_step_up() {
    let protected = Protected::start(3600, str::to_owned).await;
    let file = TokenFile::new("step-up");
    let client = protected.client(file.store());
    client
        .call_tool("echo", Some(json!({"text": "hi"})))
        .await
        .expect("called");
    let erased = client
        .call_tool("erase_note", Some(json!({"id": "7"})))
        .await
        .expect("called once the client stepped up");
    assert_eq!(
        serde_json::to_value(&erased).expect("JSON")["content"][0]["text"],
        "erased 7"
    );
    // The 403's challenge named the endpoint's scope and the tool's; the client asked for
    // them, keeping what it held.
    let log = protected.auth.log();
    let authorized: Vec<&String> = log.iter().filter(|e| e.starts_with("authorize")).collect();
    assert_eq!(authorized.len(), 2, "{log:?}");
    let stepped_up: Vec<&str> = authorized[1].split(' ').skip(1).collect();
    for scope in ["mcp:tools", "notes:write"] {
        assert!(stepped_up.contains(&scope), "{log:?}");
    }
}
