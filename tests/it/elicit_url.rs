//! `ElicitUrl`, URL-mode elicitation as a Resolve parameter: asked in an `InputRequiredResult`
//! on 2026-07-28 (no `elicitationId`), over the back-channel with a fresh `elicitationId` and a
//! `notifications/elicitation/complete` in a 2025-11-25 session; the function runs only once
//! the user accepted; -32021 without `elicitation.url`; -32042 for a 2025-11-25 HTTP client
//! that takes no event stream.

use mcp::client::{Client, ClientBuilder, ClientError};
use mcp::protocol::{ElicitParams, ElicitResult, Implementation, Outcome};
use mcp::{ElicitUrl, McpServer};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Links an account after the user signed in at the provider.
#[mcp::tool]
async fn link(
    account: String,
    #[mcp(ask = ElicitUrl::ask(
        format!("Sign in to {account}"),
        format!("https://example.com/connect/{account}"),
    ))]
    sign_in: ElicitUrl,
) -> String {
    sign_in.complete().await;
    format!("linked {account} via {}", sign_in.url())
}

fn server() -> mcp::server::Server {
    McpServer::new("links")
        .tools(mcp::tools![link])
        .build()
        .expect("valid server")
}

/// A client whose user answers every URL question with `answer`, reporting what it was shown.
fn client_answering(
    answer: ElicitResult,
) -> (ClientBuilder, mpsc::UnboundedReceiver<ElicitParams>) {
    let (seen_tx, seen) = mpsc::unbounded_channel();
    let builder = Client::builder(Implementation::new("url-client", "1")).on_elicit(
        move |question: ElicitParams| {
            let (seen, answer) = (seen_tx.clone(), answer.clone());
            async move {
                let _ = seen.send(question);
                Ok(answer)
            }
        },
    );
    (builder, seen)
}

fn text(result: &mcp::CallToolResult) -> &str {
    result.content[0].as_text().unwrap_or_default()
}

const ARGS: fn() -> Value = || json!({"account": "github"});

#[tokio::test]
async fn the_2026_wire_asks_in_an_input_required_result_without_an_id() {
    let (builder, mut seen) = client_answering(ElicitResult::accept_url());
    let client = builder.connect(server().serve_in_memory());
    let Outcome::InputRequired(ask) = client
        .call_tool_once("link", Some(ARGS()), None, None)
        .await
        .expect("a round")
    else {
        panic!("the first round asks");
    };
    let asked = serde_json::to_value(&ask).expect("JSON");
    assert_eq!(
        asked["inputRequests"]["sign_in"],
        json!({"method": "elicitation/create", "params": {
            "mode": "url",
            "message": "Sign in to github",
            "url": "https://example.com/connect/github"}})
    );
    let result = client
        .call_tool("link", Some(ARGS()))
        .await
        .expect("completes");
    assert_eq!(
        text(&result),
        "linked github via https://example.com/connect/github"
    );
    assert_eq!(result.is_error, None);
    let shown = seen.recv().await.expect("the user was asked");
    assert_eq!(shown.elicitation_id(), None);
}

#[tokio::test]
async fn a_2025_session_asks_with_an_id_and_says_when_it_is_complete() {
    let (builder, mut seen) = client_answering(ElicitResult::accept_url());
    let client = builder.connect(server().serve_in_memory());
    client.initialize().await.expect("a session");
    let mut notifications = client.notifications().expect("the receiver");
    let result = client
        .call_tool("link", Some(ARGS()))
        .await
        .expect("completes");
    assert_eq!(
        text(&result),
        "linked github via https://example.com/connect/github"
    );
    let shown = seen.recv().await.expect("the user was asked");
    let ElicitParams::Url {
        url,
        elicitation_id: Some(id),
        ..
    } = &shown
    else {
        panic!("a URL question with an id: {shown:?}");
    };
    assert_eq!(url, "https://example.com/connect/github");
    assert_eq!(id.len(), 32, "128 random bits in hex: {id}");
    let complete = notifications.try_recv().expect("a completion notice");
    assert_eq!(complete.method, "notifications/elicitation/complete");
    let params: Value =
        serde_json::from_str(complete.params.as_deref().map_or("{}", |p| p.get())).expect("JSON");
    assert_eq!(params, json!({"elicitationId": id}));
}

#[tokio::test]
async fn the_ids_of_two_calls_differ() {
    let (builder, mut seen) = client_answering(ElicitResult::accept_url());
    let client = builder.connect(server().serve_in_memory());
    client.initialize().await.expect("a session");
    for _ in 0..2 {
        client
            .call_tool("link", Some(ARGS()))
            .await
            .expect("completes");
    }
    let first = seen.recv().await.expect("asked");
    let second = seen.recv().await.expect("asked");
    assert_ne!(first.elicitation_id(), second.elicitation_id());
}

async fn declined_on(session: bool, answer: ElicitResult) {
    let (builder, _seen) = client_answering(answer);
    let client = builder.connect(server().serve_in_memory());
    if session {
        client.initialize().await.expect("a session");
    }
    let result = client
        .call_tool("link", Some(ARGS()))
        .await
        .expect("answers");
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert!(
        text(&result).contains("did not answer `sign_in`"),
        "{}",
        text(&result)
    );
}

#[tokio::test]
async fn a_decline_or_cancel_ends_the_call_without_running_the_function() {
    declined_on(false, ElicitResult::decline()).await;
    declined_on(false, ElicitResult::cancel()).await;
    declined_on(true, ElicitResult::decline()).await;
    declined_on(true, ElicitResult::cancel()).await;
}

async fn needs_url_capability(session: bool) {
    let (builder, _seen) = client_answering(ElicitResult::accept_url());
    let form_only = serde_json::from_value(json!({"elicitation": {"form": {}}})).expect("caps");
    let client = builder
        .capabilities(form_only)
        .connect(server().serve_in_memory());
    if session {
        client.initialize().await.expect("a session");
    }
    let error = client
        .call_tool("link", Some(ARGS()))
        .await
        .expect_err("the client cannot open URLs");
    let ClientError::Rpc(error) = error else {
        panic!("a JSON-RPC error: {error:?}");
    };
    assert_eq!(error.code, -32021, "{error:?}");
    assert_eq!(
        error.data.expect("data")["requiredCapabilities"],
        json!({"elicitation": {"url": {}}})
    );
}

#[tokio::test]
async fn a_client_without_url_elicitation_gets_32021_on_both_wires() {
    needs_url_capability(false).await;
    needs_url_capability(true).await;
}

#[cfg(feature = "http")]
mod http {
    use mcp::transport::http::HttpTransport;
    use mcp::transport::http_client;
    use serde_json::json;
    use tokio_util::sync::{CancellationToken, DropGuard};

    use super::{ARGS, client_answering, server, text};
    use crate::support::http::post;
    use mcp::protocol::ElicitResult;

    async fn start() -> (std::net::SocketAddr, DropGuard) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("address");
        let stop = CancellationToken::new();
        let shutdown = stop.clone().cancelled_owned();
        let server = server();
        tokio::spawn(async move { HttpTransport::new(server).serve(listener, shutdown).await });
        (addr, stop.drop_guard())
    }

    /// Opens a 2025-11-25 session whose client can answer forms and URLs.
    async fn open_session(addr: std::net::SocketAddr) -> String {
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}, "url": {}}},
            "clientInfo": {"name": "t", "version": "1"}}});
        let opened = post(addr, initialize.to_string()).send().await;
        opened
            .header("mcp-session-id")
            .expect("a session")
            .to_owned()
    }

    /// A call in the session from a client that takes JSON only.
    async fn call_without_event_stream(
        addr: std::net::SocketAddr,
        session: &str,
        tool: &str,
        arguments: serde_json::Value,
    ) -> serde_json::Value {
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                          "params": {"name": tool, "arguments": arguments}});
        let reply = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            post(addr, call.to_string())
                .header("accept", "application/json")
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25")
                .send(),
        )
        .await
        .expect("an answer, not a wait for a question nobody can see");
        reply.json()
    }

    #[tokio::test]
    async fn url_questions_are_asked_over_http_on_both_wires() {
        let (addr, _stop) = start().await;
        for session in [false, true] {
            let (builder, mut seen) = client_answering(ElicitResult::accept_url());
            let url = format!("http://{addr}/mcp");
            let client = builder.connect(http_client::connect(&url).expect("a URL"));
            if session {
                client.initialize().await.expect("a session");
            }
            let result = client
                .call_tool("link", Some(ARGS()))
                .await
                .expect("completes");
            assert_eq!(
                text(&result),
                "linked github via https://example.com/connect/github"
            );
            let shown = seen.recv().await.expect("asked");
            assert_eq!(shown.elicitation_id().is_some(), session, "{shown:?}");
        }
    }

    #[tokio::test]
    async fn a_2025_client_without_an_event_stream_gets_32042_with_the_url() {
        let (addr, _stop) = start().await;
        let session = open_session(addr).await;
        let body = call_without_event_stream(addr, &session, "link", ARGS()).await;
        assert_eq!(body["error"]["code"], -32042, "{body}");
        let asked = &body["error"]["data"]["elicitations"][0];
        assert_eq!(asked["mode"], "url");
        assert_eq!(asked["url"], "https://example.com/connect/github");
        assert_eq!(asked["message"], "Sign in to github");
        assert_eq!(
            asked["elicitationId"].as_str().map(str::len),
            Some(32),
            "{body}"
        );
    }

    #[tokio::test]
    async fn a_form_for_a_client_without_an_event_stream_fails_at_once() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("address");
        let stop = CancellationToken::new();
        let shutdown = stop.clone().cancelled_owned();
        let _stop = stop.drop_guard();
        let server = mcp::McpServer::new("forms")
            .tools(mcp::tools![crate::support::provision])
            .build()
            .expect("valid server");
        tokio::spawn(async move { HttpTransport::new(server).serve(listener, shutdown).await });
        let session = open_session(addr).await;
        let body =
            call_without_event_stream(addr, &session, "provision", json!({"name": "db"})).await;
        // Not -32042: that code is for URL questions only.
        assert_eq!(body["error"]["code"], -32603, "{body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("takes no event stream"), "{body}");
    }
}
