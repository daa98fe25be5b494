//! 2025-11-25 sessions over real sockets: initialize, the session header, GET, DELETE, expiry.
#![cfg(feature = "http")]

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

use crate::support::http::{Reply, Running, parse_reply, read_to_close, read_within};

fn rpc(id: i64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn initialize() -> String {
    rpc(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    )
}

async fn open_session(s: &Running) -> String {
    let r = s
        .post(initialize())
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["result"]["protocolVersion"], "2025-11-25");
    let id = r.header("mcp-session-id").expect("a session id").to_owned();
    assert_eq!(id.len(), 32, "128 bits in hex: {id}");
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
    let r = s
        .post(json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string())
        .header("mcp-session-id", &id)
        .send()
        .await;
    assert_eq!(r.status, 202);
    id
}

async fn call(s: &Running, session: &str, id: i64, tool: &str) -> Reply {
    s.post(rpc(id, "tools/call", json!({"name": tool})))
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
}

#[tokio::test]
async fn a_session_lives_from_initialize_to_delete() {
    let s = Running::start().await;
    let session = open_session(&s).await;
    let r = call(&s, &session, 2, "echo").await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["result"]["content"][0]["text"], "echo");
    // The 2025 wire carries no resultType.
    assert!(r.json()["result"].get("resultType").is_none());

    let r = s
        .method("DELETE")
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(r.status, 200);
    let r = call(&s, &session, 3, "echo").await;
    assert_eq!(r.status, 404);
    let r = s
        .method("DELETE")
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn sessions_are_distinct() {
    let s = Running::start().await;
    let a = open_session(&s).await;
    let b = open_session(&s).await;
    assert_ne!(a, b);
    assert_eq!(call(&s, &a, 2, "echo").await.status, 200);
    assert_eq!(call(&s, &b, 2, "echo").await.status, 200);
}

#[tokio::test]
async fn a_request_without_the_session_header_is_400() {
    let s = Running::start().await;
    let _session = open_session(&s).await;
    let r = s
        .post(rpc(2, "tools/list", json!({})))
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await;
    assert_eq!(r.status, 400, "{r:?}");
    let r = s
        .post(json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string())
        .send()
        .await;
    assert_eq!(r.status, 202, "a stray notification is modern and ignored");
}

#[tokio::test]
async fn an_unsupported_version_header_in_a_session_is_400() {
    let s = Running::start().await;
    let session = open_session(&s).await;
    let r = s
        .post(rpc(2, "tools/list", json!({})))
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "1999-01-01")
        .send()
        .await;
    assert_eq!((r.status, r.error_code()), (400, -32600));
}

#[tokio::test]
async fn an_unknown_session_is_404() {
    let s = Running::start().await;
    let r = call(&s, "0123456789abcdef0123456789abcdef", 1, "echo").await;
    assert_eq!(r.status, 404);
    assert_eq!(r.error_code(), -32600);
    let r = s
        .method("GET")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", "nope")
        .send()
        .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn json_rpc_errors_in_a_session_travel_with_200() {
    let s = Running::start().await;
    let session = open_session(&s).await;
    let r = s
        .post(rpc(5, "no/such/method", json!({})))
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(
        r.status, 200,
        "a 404 would tell the client its session is gone"
    );
    assert_eq!(r.error_code(), -32601);
}

#[tokio::test]
async fn progress_in_a_session_streams_as_sse() {
    let s = Running::start().await;
    let session = open_session(&s).await;
    let r = s
        .post(rpc(
            4,
            "tools/call",
            json!({"name": "progress", "_meta": {"progressToken": "t"}}),
        ))
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let events = r.events();
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[2]["id"], 4);
}

#[tokio::test]
async fn get_opens_the_session_stream_once() {
    let s = Running::start().await;
    let session = open_session(&s).await;
    let mut stream = s
        .method("GET")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .open()
        .await;
    let mut buf = [0u8; 1024];
    let n = read_within(&mut stream, &mut buf, "a response head in time").await;
    let head = String::from_utf8_lossy(&buf[..n]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    let r = s
        .method("GET")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(r.status, 409, "a second stream for the same session");
    // Ending the session closes the stream.
    let r = s
        .method("DELETE")
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(r.status, 200);
    read_to_close(&mut stream, "the stream ends with its session").await;
}

#[tokio::test]
async fn the_session_table_is_bounded_and_idle_sessions_expire() {
    let s = Running::with(|t| t.max_sessions(2)).await;
    let first = open_session(&s).await;
    let _second = open_session(&s).await;
    let _third = open_session(&s).await;
    assert_eq!(
        call(&s, &first, 2, "echo").await.status,
        404,
        "the longest idle was evicted"
    );

    let s = Running::with(|t| t.session_idle_timeout(Duration::from_millis(100))).await;
    let session = open_session(&s).await;
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(call(&s, &session, 2, "echo").await.status, 404);
}

/// Opens the GET stream of `session` and reads its response head.
async fn open_stream(s: &Running, session: &str) -> tokio::net::TcpStream {
    let mut stream = s
        .method("GET")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .open()
        .await;
    let mut buf = [0u8; 1024];
    let n = read_within(&mut stream, &mut buf, "the stream's head").await;
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
    stream
}

fn initialize_request(s: &Running) -> crate::support::http::Request {
    s.post(initialize())
        .header("mcp-protocol-version", "2025-11-25")
}

#[tokio::test]
async fn a_flood_of_initialize_calls_does_not_evict_a_session_in_use() {
    let s = Running::with(|t| t.max_sessions(4)).await;
    let victim = open_session(&s).await;
    let mut stream = open_stream(&s, &victim).await;
    for _ in 0..16 {
        open_session(&s).await;
    }
    assert_eq!(call(&s, &victim, 2, "echo").await.status, 200);
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_millis(300), stream.read(&mut buf)).await;
    // Silence, or the rest of the event that opens the stream; not its end.
    assert!(
        !matches!(read, Ok(Ok(0) | Err(_))),
        "the GET stream ended: {read:?}"
    );
}

#[tokio::test]
async fn when_every_session_is_in_use_initialize_is_refused_with_503() {
    let s = Running::with(|t| t.max_sessions(2)).await;
    let first = open_session(&s).await;
    let second = open_session(&s).await;
    let first_stream = open_stream(&s, &first).await;
    let _second_stream = open_stream(&s, &second).await;
    let r = initialize_request(&s).send().await;
    assert_eq!(r.status, 503, "{r:?}");
    assert_eq!(r.header("retry-after"), Some("1"));
    assert!(r.json()["error"]["message"].is_string());
    for session in [&first, &second] {
        assert_eq!(call(&s, session, 2, "echo").await.status, 200);
    }
    // Once a stream closes, its session may make room again.
    drop(first_stream);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while initialize_request(&s).send().await.status != 200 {
        assert!(
            std::time::Instant::now() < deadline,
            "no room after a stream closed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(call(&s, &first, 3, "echo").await.status, 404);
    assert_eq!(call(&s, &second, 3, "echo").await.status, 200);
}

#[tokio::test]
async fn a_handler_asks_the_client_over_the_request_stream() {
    let s = Running::start().await;
    let session = open_session(&s).await;
    let mut stream = s
        .post(rpc(6, "tools/call", json!({"name": "ask_back"})))
        .header("mcp-session-id", &session)
        .open()
        .await;
    let mut seen = String::new();
    let mut buf = [0u8; 4096];
    let question = loop {
        let n = read_within(&mut stream, &mut buf, "the question in time").await;
        assert!(n > 0, "stream ended before the question: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        let found = seen
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str::<Value>(d).ok())
            .find(|m| m["method"] == "elicitation/create");
        if let Some(found) = found {
            break found;
        }
    };
    assert_eq!(question["params"]["message"], "Name?");
    let answer = json!({"jsonrpc": "2.0", "id": question["id"],
        "result": {"action": "accept", "content": {"name": "Ada"}}});
    let r = s
        .post(answer.to_string())
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(r.status, 202);
    let rest = read_to_close(&mut stream, "the result in time").await;
    seen.push_str(&String::from_utf8_lossy(&rest));
    let result = seen
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .find(|m| m["id"] == 6)
        .expect("the final response on the same stream");
    assert_eq!(result["result"]["content"][0]["text"], "hello Ada");
}

#[tokio::test]
async fn an_answer_to_nothing_is_accepted_and_dropped() {
    let s = Running::start().await;
    let session = open_session(&s).await;
    let r = s
        .post(json!({"jsonrpc": "2.0", "id": "srv-99", "result": {}}).to_string())
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(r.status, 202);
    assert_eq!(call(&s, &session, 2, "echo").await.status, 200);
}

#[tokio::test]
async fn shutdown_ends_get_streams_and_lets_requests_finish() {
    let s = Running::start().await;
    let session = open_session(&s).await;
    let mut get = s
        .method("GET")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .open()
        .await;
    let mut buf = [0u8; 256];
    let n = read_within(&mut get, &mut buf, "the stream opens").await;
    assert!(n > 0);
    let mut slow = s
        .post(rpc(2, "tools/call", json!({"name": "slow"})))
        .header("mcp-session-id", &session)
        .open()
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    s.stop.cancel();
    let raw = read_to_close(&mut slow, "the in-flight request finishes").await;
    let r = parse_reply(&raw);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["content"][0]["text"], "slow done");
    read_to_close(&mut get, "the GET stream ends").await;
    let served = tokio::time::timeout(Duration::from_secs(5), s.task)
        .await
        .expect("the server stops despite the GET stream")
        .expect("join");
    assert!(served.is_ok());
}

#[tokio::test]
async fn a_cancelled_request_frees_its_id() {
    let s = Running::start().await;
    let session = open_session(&s).await;
    let mut hang = s
        .post(rpc(
            3,
            "tools/call",
            json!({"name": "hang", "_meta": {"progressToken": 1}}),
        ))
        .header("mcp-session-id", &session)
        .open()
        .await;
    let mut buf = [0u8; 1024];
    let n = read_within(&mut hang, &mut buf, "the stream starts").await;
    assert!(n > 0);
    // Same id while the first is in flight: refused.
    let r = call(&s, &session, 3, "echo").await;
    assert_eq!((r.status, r.error_code()), (400, -32600));
    let r = s
        .post(
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}})
                .to_string(),
        )
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(r.status, 202);
    for _ in 0..100 {
        if s.flags
            .hang_cancelled
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        s.flags
            .hang_cancelled
            .load(std::sync::atomic::Ordering::SeqCst)
    );
    let r = call(&s, &session, 3, "echo").await;
    assert_eq!(r.status, 200, "the id is free again: {r:?}");
}
