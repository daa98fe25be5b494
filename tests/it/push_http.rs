//! Server push over Streamable HTTP: 2026-07-28 `subscriptions/listen` streams (acknowledged,
//! tagged, filtered, ended by the client or by a graceful shutdown, isolated from a listener
//! that stops reading) and the 2025-11-25 session's GET stream.

use std::net::SocketAddr;
use std::time::Duration;

use mcp::push::Change;
use mcp::server::Server;
use mcp::transport::http::HttpTransport;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::push_memory::board;
use crate::support::http::{meta, post, request};

const SUB: &str = "io.modelcontextprotocol/subscriptionId";

struct Served {
    addr: SocketAddr,
    stop: CancellationToken,
    task: JoinHandle<std::io::Result<()>>,
}

async fn serve(server: &Server) -> Served {
    serve_with(server, |t| t).await
}

async fn serve_with(
    server: &Server,
    configure: impl FnOnce(HttpTransport) -> HttpTransport,
) -> Served {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let stop = CancellationToken::new();
    let transport = configure(HttpTransport::new(server.clone()));
    let task = tokio::spawn(transport.serve(listener, stop.clone().cancelled_owned()));
    Served { addr, stop, task }
}

/// The events of one SSE response, read as they come.
pub struct Events {
    stream: TcpStream,
    seen: Vec<u8>,
}

impl Events {
    pub fn new(stream: TcpStream) -> Self {
        Self {
            stream,
            seen: Vec::new(),
        }
    }

    /// The next event's JSON, or `None` once the response has ended.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(start) = find(&self.seen, b"data: ")
                && let Some(len) = find(&self.seen[start..], b"\n")
            {
                let data = self.seen[start + 6..start + len].to_vec();
                self.seen.drain(..start + len);
                return Some(serde_json::from_slice(&data).expect("JSON event"));
            }
            let mut buf = [0u8; 8192];
            let n = tokio::time::timeout(Duration::from_secs(5), self.stream.read(&mut buf))
                .await
                .expect("an event within 5 s")
                .unwrap_or(0);
            if n == 0 {
                return None;
            }
            self.seen.extend_from_slice(&buf[..n]);
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Opens a listen and reads up to its acknowledgement.
async fn listen(addr: SocketAddr, id: &str, notifications: Value) -> (Events, Value) {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
                      "params": {"_meta": meta(json!({})), "notifications": notifications}});
    let stream = post(addr, body.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .routing("subscriptions/listen", None)
        .open()
        .await;
    let mut events = Events::new(stream);
    let ack = events.next().await.expect("an acknowledgement");
    (events, ack)
}

async fn listeners(server: &Server, n: usize) {
    for _ in 0..500 {
        if server.push_stats().listeners == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{} listeners, not {n}", server.push_stats().listeners);
}

#[tokio::test]
async fn a_listen_stream_is_acknowledged_tagged_and_filtered() {
    let server = board();
    let handle = server.handle();
    let served = serve(&server).await;
    let asked = json!({"toolsListChanged": true, "promptsListChanged": true,
                       "resourceSubscriptions": ["board://messages"]});
    let (mut events, ack) = listen(served.addr, "l-1", asked).await;
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
               "params": {"notifications": {"toolsListChanged": true,
                                            "resourceSubscriptions": ["board://messages"]},
                          "_meta": {SUB: "l-1"}}})
    );
    handle.notify(Change::PromptsListChanged);
    handle.notify(Change::ResourcesListChanged);
    handle.resource_updated("board://messages");
    handle.notify(Change::ToolsListChanged);
    assert_eq!(
        events.next().await,
        Some(
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                    "params": {"uri": "board://messages", "_meta": {SUB: "l-1"}}})
        )
    );
    assert_eq!(
        events.next().await,
        Some(
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                    "params": {"_meta": {SUB: "l-1"}}})
        )
    );
}

#[tokio::test]
async fn a_client_ends_its_listen_by_closing_the_stream() {
    let server = board();
    let served = serve(&server).await;
    let (events, _) = listen(served.addr, "l", json!({"toolsListChanged": true})).await;
    listeners(&server, 1).await;
    drop(events);
    // The server notices a closed stream when it next writes to it.
    for _ in 0..50 {
        server.handle().notify(Change::ToolsListChanged);
        if server.push_stats().listeners == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    listeners(&server, 0).await;
}

#[tokio::test]
async fn a_graceful_shutdown_ends_each_listen_with_its_final_result() {
    let server = board();
    let served = serve(&server).await;
    let (mut events, _) = listen(served.addr, "l", json!({"toolsListChanged": true})).await;
    served.stop.cancel();
    let last = events.next().await.expect("the final result");
    assert_eq!(last["id"], "l", "{last}");
    assert_eq!(last["result"]["resultType"], "complete", "{last}");
    assert_eq!(last["result"]["_meta"][SUB], "l", "{last}");
    assert_eq!(events.next().await, None, "then the stream ends");
    tokio::time::timeout(Duration::from_secs(5), served.task)
        .await
        .expect("the server stops")
        .expect("joined")
        .expect("served");
}

#[tokio::test]
async fn a_listen_that_is_not_read_is_ended_while_another_keeps_hearing() {
    let server = board();
    let handle = server.handle();
    let served = serve(&server).await;
    let (_slow, _) = listen(served.addr, "slow", json!({"toolsListChanged": true})).await;
    let (mut fast, _) = listen(served.addr, "fast", json!({"toolsListChanged": true})).await;
    let mut sent = 0;
    while server.push_stats().fallen_behind == 0 {
        assert!(sent < 200_000, "the slow listener was never ended");
        handle.notify(Change::ToolsListChanged);
        sent += 1;
        let heard = fast.next().await.expect("the fast one hears");
        assert_eq!(heard["params"]["_meta"][SUB], "fast");
    }
    assert_eq!(server.push_stats().fallen_behind, 1);
    handle.notify(Change::ToolsListChanged);
    assert_eq!(
        fast.next().await.expect("still listening")["method"],
        "notifications/tools/list_changed"
    );
}

#[tokio::test]
async fn a_2025_session_hears_on_its_get_stream() {
    let server = board();
    let handle = server.handle();
    let served = serve(&server).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                      "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "c", "version": "1"}}});
    let reply = post(served.addr, init.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .send()
        .await;
    let session = reply
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let subscribe = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                           "params": {"uri": "board://messages"}});
    let reply = post(served.addr, subscribe.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert!(reply.json()["result"].is_object(), "{:?}", reply.json());
    let stream = request(served.addr, "GET")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session);
    let mut events = Events::new(stream.open().await);
    listeners(&server, 1).await;
    handle.notify(Change::ToolsListChanged);
    handle.resource_updated("board://messages");
    assert_eq!(
        events.next().await,
        Some(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
    );
    assert_eq!(
        events.next().await,
        Some(
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                    "params": {"uri": "board://messages"}})
        )
    );
    drop(events);
    // The session goes on recording for a client that comes back (`push_resume`) until it
    // ends.
    let deleted = request(served.addr, "DELETE")
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(deleted.status, 200);
    listeners(&server, 0).await;
}

#[tokio::test]
async fn listens_have_their_own_bound_and_take_no_request_slot() {
    let server = board();
    let served = serve_with(&server, |t| t.max_concurrent_requests(1).max_listens(1)).await;
    let (_open, _) = listen(served.addr, "l", json!({"toolsListChanged": true})).await;
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "hello", "_meta": meta(json!({}))}});
    let reply = post(served.addr, call.to_string())
        .header("accept", "application/json, text/event-stream")
        .routing("tools/call", Some("hello"))
        .send()
        .await;
    assert_eq!(
        reply.status,
        200,
        "a request still gets in: {:?}",
        reply.json()
    );
    let second = json!({"jsonrpc": "2.0", "id": "m", "method": "subscriptions/listen",
                        "params": {"_meta": meta(json!({})), "notifications": {}}});
    let refused = post(served.addr, second.to_string())
        .header("accept", "application/json, text/event-stream")
        .routing("subscriptions/listen", None)
        .send()
        .await;
    assert_eq!(refused.status, 503);
    assert_eq!(refused.header("retry-after"), Some("1"));
}

#[tokio::test]
async fn a_listen_needs_a_client_that_takes_a_stream() {
    let served = serve(&board()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                      "params": {"_meta": meta(json!({})), "notifications": {}}});
    let reply = post(served.addr, body.to_string())
        .header("accept", "application/json")
        .routing("subscriptions/listen", None)
        .send()
        .await;
    assert_eq!(reply.error_code(), -32600, "{:?}", reply.json());
}

/// Reads `events`' raw bytes until a keep-alive comment arrives; the (virtual) time it did.
async fn next_keep_alive(events: &mut Events) -> tokio::time::Instant {
    loop {
        if let Some(at) = find(&events.seen, b": keep-alive\n\n") {
            events.seen.drain(..at + 14);
            return tokio::time::Instant::now();
        }
        let mut buf = [0u8; 8192];
        let n = tokio::time::timeout(Duration::from_secs(60), events.stream.read(&mut buf))
            .await
            .expect("bytes within 60 s")
            .expect("read");
        assert!(n > 0, "the listen stream ended");
        events.seen.extend_from_slice(&buf[..n]);
    }
}

#[tokio::test]
async fn a_quiet_listen_stream_gets_a_keep_alive_after_15_s_of_silence() {
    let server = board();
    let handle = server.handle();
    let served = serve(&server).await;
    let (mut events, _ack) = listen(served.addr, "l-1", json!({"toolsListChanged": true})).await;
    // From here the clock moves only when everything waits, straight to the next timer.
    tokio::time::pause();
    let opened = tokio::time::Instant::now();
    let first = next_keep_alive(&mut events).await;
    about(first - opened, Duration::from_secs(15));

    // A change 10 s later restarts the silence: the next keep-alive is 15 s after it.
    tokio::time::sleep(Duration::from_secs(10)).await;
    handle.notify(Change::ToolsListChanged);
    let change = events.next().await.expect("the change");
    assert_eq!(change["method"], "notifications/tools/list_changed");
    let second = next_keep_alive(&mut events).await;
    about(second - first, Duration::from_secs(25));
    served.stop.cancel();
}

/// `waited` is `expected`, give or take the timer's millisecond granularity.
fn about(waited: Duration, expected: Duration) {
    let slack = Duration::from_millis(50);
    assert!(
        waited >= expected && waited <= expected + slack,
        "waited {waited:?}, not {expected:?}"
    );
}
