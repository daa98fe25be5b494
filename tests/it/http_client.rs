//! Our client over Streamable HTTP against our server: negotiation, the round loop with sealed
//! state on the stateless wire, notifications over SSE, and a 2025-11-25 session whose
//! back-channel questions arrive on the request's SSE stream and are answered by POST.

#![cfg(feature = "http")]

use mcp::client::Client;
use mcp::protocol::{ElicitParams, Implementation};
use mcp::transport::http::HttpTransport;
use mcp::transport::http::axum::http::Method;
use mcp::transport::http_client::{self, Authorization, AuthorizationFuture, Credentials, Refusal};
use mcp::{Context, McpServer};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::process::free_port;
use crate::support::{self, provision};

/// Routes by region: the argument is mirrored into an `Mcp-Param-Region` header.
#[mcp::tool]
async fn route(#[mcp(header = "Region")] region: String, count: u32) -> String {
    format!("{count} to {region}")
}

/// Reports progress before answering, so the answer comes over SSE.
#[mcp::tool]
async fn slow(ctx: Context) -> &'static str {
    ctx.progress(0.5, Some(1.0), Some("halfway".into())).await;
    "done"
}

struct Running {
    url: String,
    stop: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn start() -> Running {
    let server = McpServer::new("http-client-test")
        .tools(mcp::tools![provision, slow, route])
        .build()
        .expect("valid server");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    let stop = CancellationToken::new();
    let shutdown = stop.clone().cancelled_owned();
    tokio::spawn(async move { HttpTransport::new(server).serve(listener, shutdown).await });
    Running { url, stop }
}

fn client(url: &str) -> Client {
    let duplex = http_client::connect(url).expect("a valid URL");
    Client::builder(Implementation::new("http-test", "1"))
        .on_elicit(|question: ElicitParams| async move { Ok(support::answer(&question)) })
        .connect(duplex)
}

fn text(result: &mcp::CallToolResult) -> &str {
    result.content[0].as_text().expect("text")
}

#[tokio::test]
async fn the_round_loop_runs_over_stateless_http() {
    let server = start().await;
    let client = client(&server.url);
    assert_eq!(client.negotiate().await.expect("discover"), "2026-07-28");
    let result = client
        .call_tool("provision", Some(json!({"name": "orders"})))
        .await
        .expect("completes");
    assert_eq!(text(&result), "orders in eu-west-1: true");
}

#[tokio::test]
async fn notifications_arrive_over_sse_before_the_result() {
    let server = start().await;
    let client = client(&server.url);
    let mut notifications = client.notifications().expect("receiver");
    // A progress token asks for progress; the server then streams the answer as SSE.
    let result: serde_json::Value = client
        .request(
            "tools/call",
            json!({"name": "slow", "_meta": {"progressToken": "p-1"}}),
        )
        .await
        .expect("completes");
    assert_eq!(result["content"][0]["text"], "done");
    let progress = notifications.try_recv().expect("a progress notification");
    assert_eq!(progress.method, "notifications/progress");
}

#[tokio::test]
async fn a_legacy_session_asks_over_the_back_channel() {
    let server = start().await;
    let client = client(&server.url);
    let init = client.initialize().await.expect("a 2025-11-25 session");
    assert_eq!(init.protocol_version, "2025-11-25");
    let result = client
        .call_tool("provision", Some(json!({"name": "legacy"})))
        .await
        .expect("completes over the back-channel");
    assert_eq!(text(&result), "legacy in eu-west-1: true");
}

#[tokio::test]
async fn an_unreachable_server_fails_the_request_instead_of_hanging() {
    let client = client(&format!("http://127.0.0.1:{}/mcp", free_port()));
    let error = client.discover().await.expect_err("nothing listens");
    assert!(error.to_string().contains("HTTP transport"), "{error}");
}

#[test]
fn urls_other_than_http_and_https_are_refused() {
    let ftp = http_client::connect("ftp://example.com/mcp").expect_err("not HTTP");
    assert!(
        matches!(ftp, http_client::HttpClientError::Scheme(_)),
        "{ftp}"
    );
    assert!(http_client::connect("not a url").is_err());
    assert!(http_client::connect("http:///mcp").is_err());
}

#[tokio::test]
async fn header_arguments_travel_as_mcp_param_headers() {
    let server = start().await;
    // A client that never listed the tools does not know to send the header: refused.
    let unaware = client(&server.url);
    let refused = unaware
        .call_tool("route", Some(json!({"region": "eu-west-1", "count": 2})))
        .await
        .expect_err("header missing");
    let mcp::client::ClientError::Rpc(refused) = refused else {
        panic!("a JSON-RPC error: {refused}");
    };
    assert_eq!(refused.code, -32020);
    let client = client(&server.url);
    let listed = client.list_tools(None).await.expect("tools/list");
    let route = listed
        .tools
        .iter()
        .find(|t| t.name == "route")
        .expect("listed");
    assert_eq!(
        route.input_schema["properties"]["region"]["x-mcp-header"],
        "Region"
    );
    // The server checks the header against the body; a missing or different one is -32020.
    let result = client
        .call_tool("route", Some(json!({"region": "eu-west-1", "count": 2})))
        .await
        .expect("the header matches the body");
    assert_eq!(text(&result), "2 to eu-west-1");
}

/// A hand-written 2025-11-25 server: `initialize` opens session `s1`, other POSTs get `202`,
/// and the first `refusals` GETs get `refusal` (a status line and headers: `409`, as while the
/// server still holds a stream it has not seen die, or a `401`) before one gets a stream
/// carrying a tools `list_changed`. Also hands over the head of every GET (lower-cased).
async fn conflicted_server(
    refusals: usize,
    refusal: &'static str,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    let gets = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let heads = std::sync::Arc::<std::sync::Mutex<Vec<String>>>::default();
    let seen_heads = heads.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let (gets, heads) = (gets.clone(), heads.clone());
            tokio::spawn(async move {
                let mut seen = Vec::new();
                let mut buf = [0u8; 4096];
                let head_end = loop {
                    let n = stream.read(&mut buf).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    seen.extend_from_slice(&buf[..n]);
                    if let Some(at) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                        break at + 4;
                    }
                };
                let head = String::from_utf8_lossy(&seen[..head_end]).to_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                while seen.len() < head_end + length {
                    let n = stream.read(&mut buf).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    seen.extend_from_slice(&buf[..n]);
                }
                let body = String::from_utf8_lossy(&seen[head_end..]).into_owned();
                let reply = if head.starts_with("get ") {
                    heads.lock().expect("not poisoned").push(head.clone());
                    if gets.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < refusals {
                        format!("{refusal}\r\ncontent-length: 0\r\n\r\n")
                    } else {
                        let note =
                            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
                        format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nid: get-1\ndata: {note}\n\n"
                        )
                    }
                } else if body.contains("\"initialize\"") {
                    let id: serde_json::Value = serde_json::from_str(&body).expect("JSON");
                    let result = json!({"jsonrpc": "2.0", "id": id["id"], "result": {
                        "protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true}},
                        "serverInfo": {"name": "conflicted", "version": "1"}}})
                    .to_string();
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: s1\r\ncontent-length: {}\r\n\r\n{result}",
                        result.len()
                    )
                } else {
                    "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n".to_owned()
                };
                let _ = stream.write_all(reply.as_bytes()).await;
                // A stream stays open; anything else is answered once.
                if head.starts_with("get ") && reply.starts_with("HTTP/1.1 200") {
                    std::future::pending::<()>().await;
                }
            });
        }
    });
    (url, seen_heads)
}

#[tokio::test]
async fn the_standing_stream_tries_again_while_the_server_still_holds_the_old_one() {
    let (url, _) = conflicted_server(2, "HTTP/1.1 409 Conflict").await;
    let client = client(&url);
    let mut notifications = client.notifications().expect("the receiver");
    client.initialize().await.expect("a 2025-11-25 session");
    let note = tokio::time::timeout(std::time::Duration::from_secs(10), notifications.recv())
        .await
        .expect("the stream opened after two 409s")
        .expect("a notification");
    assert_eq!(note.method, "notifications/tools/list_changed");
}

/// Credentials that change each time the server refuses them: `t0`, then `t1`, and so on.
#[derive(Default)]
struct Rotating(std::sync::atomic::AtomicUsize);

impl Authorization for Rotating {
    fn credentials<'a>(
        &'a self,
        _endpoint: &'a str,
        _method: &'a Method,
        _url: &'a str,
    ) -> AuthorizationFuture<'a, Option<Credentials>> {
        let n = self.0.load(std::sync::atomic::Ordering::SeqCst);
        Box::pin(async move { Some(Credentials::bearer(format!("t{n}"))) })
    }

    fn refused<'a>(
        &'a self,
        _endpoint: &'a str,
        _refusal: Refusal<'a>,
    ) -> AuthorizationFuture<'a, Result<(), mcp::BoxError>> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async { Ok(()) })
    }
}

#[tokio::test]
async fn a_refused_standing_stream_authorizes_again_and_reopens() {
    let (url, heads) = conflicted_server(
        1,
        "HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer error=\"invalid_token\"",
    )
    .await;
    let duplex = http_client::Builder::new(&url)
        .auth(Rotating::default())
        .connect()
        .expect("an http URL");
    let client = Client::builder(Implementation::new("test-client", "1.0.0")).connect(duplex);
    let mut notifications = client.notifications().expect("the receiver");
    client.initialize().await.expect("a 2025-11-25 session");
    let note = tokio::time::timeout(std::time::Duration::from_secs(10), notifications.recv())
        .await
        .expect("the stream reopened with new credentials")
        .expect("a notification");
    assert_eq!(note.method, "notifications/tools/list_changed");
    let heads = heads.lock().expect("not poisoned").clone();
    assert_eq!(heads.len(), 2, "{heads:?}");
    assert!(heads[0].contains("authorization: bearer t0"), "{heads:?}");
    assert!(heads[1].contains("authorization: bearer t1"), "{heads:?}");
}
