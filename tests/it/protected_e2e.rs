//! The whole way to a protected server, with nothing of ours in between that a user would not
//! have: our client authorizes through OAuth at a real authorization server (oidc-provider, a
//! Node process: discovery, dynamic registration, PKCE, resource indicators, ES256 JWT access
//! tokens bound by DPoP), the user signing in through a browser (a script) that comes back to
//! the client's loopback listener, reaches the provisioner example behind a real nginx over https (HTTP/2), and runs
//! its multi-round exchange. A second user, signed in on the same authorization server, cannot
//! finish the first user's round: the sealed `requestState` is bound to who started it.
//!
//! Skipped, saying so, when nginx is missing, unless `CI` is set: then that is a failure.

#![cfg(all(feature = "tls", unix))]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use mcp::Outcome;
use mcp::client::Client;
use mcp::client::auth::{Authorize, FileTokenStore, LoopbackAuthorize, OAuth};
use mcp::protocol::{ElicitParams, ElicitResult, Implementation};
use mcp::transport::http_client;
use serde_json::json;

use crate::support::oauth_server::OAuthServer;
use crate::support::process::{ChildGuard, example, free_port, root};
use crate::support::tls::TestCa;
use crate::support::tls_front::{TempDir, TlsFront, server_pem_files};

/// The user's step as a desktop client takes it: `LoopbackAuthorize` listens on 127.0.0.1 and
/// "opens the browser", which here is `tests/oauth_server/sign_in.py`, a cookie-keeping user
/// agent that trusts the test's CA, signs in as `user` and follows the redirect back.
fn sign_in(user: &'static str, ca_file: PathBuf) -> LoopbackAuthorize {
    let authorize = LoopbackAuthorize::new()
        .expect("a loopback listener")
        .sign_in_time(Duration::from_secs(30));
    let redirect_uri = authorize.redirect_uri().to_owned();
    authorize.open_with(move |url| {
        let mut browser = Command::new("python3")
            .arg(root().join("tests/oauth_server/sign_in.py"))
            .arg(url.as_str())
            .arg(user)
            .arg(&ca_file)
            .arg(&redirect_uri)
            .stdout(Stdio::null())
            .spawn()?;
        std::thread::spawn(move || browser.wait());
        Ok(())
    })
}

/// The provisioner's user: Ireland, and yes.
fn answer(question: &ElicitParams) -> ElicitResult {
    let content = if question.message().starts_with("Which region") {
        json!({"region": "eu-west-1"})
    } else {
        json!({"confirm": true})
    };
    ElicitResult::accept(content.as_object().cloned().unwrap_or_default())
}

/// A client of `resource` that signs in as `user` when the server first refuses it, and
/// keeps its grant in `dir/<user>-tokens.json`.
fn client(resource: &str, ca: &TestCa, dir: &Path, user: &'static str) -> Client {
    let oauth = OAuth::builder(sign_in(user, dir.join("ca.pem")))
        .client_name(format!("e2e client of {user}"))
        .token_store(FileTokenStore::new(dir.join(format!("{user}-tokens.json"))))
        .build();
    let duplex = http_client::Builder::new(resource)
        .add_root_certificate_pem(ca.pem.as_bytes())
        .expect("the test CA")
        .auth(oauth)
        .connect()
        .expect("connect");
    Client::builder(Implementation::new("e2e", "1.0.0"))
        .on_elicit(|question| async move { Ok(answer(&question)) })
        .connect(duplex)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_signs_in_at_a_real_authorization_server_and_finishes_a_round_trip_over_https_that_another_user_cannot()
 {
    let dir = TempDir::new("protected-e2e");
    let ca = TestCa::new("e2e test CA");
    let (cert, key) = server_pem_files(&ca, &dir.0);
    std::fs::write(dir.0.join("ca.pem"), &ca.pem).expect("write the CA");

    let upstream = free_port();
    let Some(front) = TlsFront::start(upstream, &cert, &key) else {
        return;
    };
    let resource = format!("{}/mcp", front.origin());
    let issuer = OAuthServer::start(&resource, &cert, &key, &dir.0);
    let mut provisioner = ChildGuard::spawn(
        Command::new(example("provisioner"))
            .args(["--http", &format!("127.0.0.1:{upstream}")])
            .args(["--auth-issuer", issuer.issuer(), "--resource", &resource])
            .arg("--jwt-key")
            .arg(issuer.public_key())
            .args(["--scope", "mcp:tools"])
            .stdin(Stdio::null())
            .stderr(Stdio::null()),
    );
    provisioner.wait_listening(&format!("127.0.0.1:{upstream}"));

    // Alice: refused, discovers, registers, signs in, and the call goes through.
    let alice = client(&resource, &ca, &dir.0, "alice");
    let result = alice
        .call_tool("provision", Some(json!({"name": "orders"})))
        .await
        .expect("alice's call");
    let result = serde_json::to_value(&result).expect("a result as JSON");
    assert_eq!(
        result["content"][0]["text"], "Provisioned 'orders' in eu-west-1.",
        "{result}"
    );
    // oidc-provider offers DPoP: the token is bound to the client's key (and our server
    // checked a proof with every request), and a refresh token came with it.
    let grant: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.0.join("alice-tokens.json")).expect("alice's token store"),
    )
    .expect("a JSON token store");
    let grant = grant.to_string();
    assert!(
        grant.contains("\"dpop_jkt\""),
        "not DPoP-bound: {grant:.200}"
    );
    assert!(
        grant.contains("\"refresh_token\""),
        "no refresh token: {grant:.200}"
    );

    // Alice starts another; Bob, signed in on the same server, presents her round.
    let first = alice
        .call_tool_once("provision", Some(json!({"name": "billing"})), None, None)
        .await
        .expect("alice's first round");
    let Outcome::InputRequired(asked) = first else {
        panic!("the provisioner did not ask: {first:?}");
    };
    let answers = alice.answer(&asked).await.expect("alice's answers");
    let bob = client(&resource, &ca, &dir.0, "bob");
    let stolen = bob
        .call_tool_once(
            "provision",
            Some(json!({"name": "billing"})),
            Some(answers.clone()),
            asked.request_state.clone(),
        )
        .await;
    let refusal = stolen.expect_err("bob finished alice's round");
    assert!(
        refusal
            .to_string()
            .contains("Invalid or expired requestState"),
        "not the request-state refusal: {refusal}"
    );
    // The round is still Alice's to finish.
    let second = alice
        .call_tool_once(
            "provision",
            Some(json!({"name": "billing"})),
            Some(answers),
            asked.request_state.clone(),
        )
        .await
        .expect("alice's second round");
    assert!(
        matches!(second, Outcome::InputRequired(_)),
        "the region answer should lead to the confirmation: {second:?}"
    );
}
