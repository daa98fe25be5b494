//! The 2026-07-28 wire over real sockets: routing headers, statuses, JSON vs SSE, shutdown.
#![cfg(feature = "http")]

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;

use crate::support::http::{
    Reply, Running, hanging_request, meta, modern, parse_reply, read_to_close,
};

#[tokio::test]
async fn a_plain_request_gets_json() {
    let s = Running::start().await;
    let r = s
        .post(modern(1, "tools/call", json!({"name": "echo"})))
        .routing("tools/call", Some("echo"))
        .send()
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.header("content-type"), Some("application/json"));
    let body = r.json();
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["content"][0]["text"], "echo");
    assert_eq!(body["result"]["resultType"], "complete");
}

#[tokio::test]
async fn a_method_header_that_disagrees_with_the_body_is_400_header_mismatch() {
    let s = Running::start().await;
    let r = s
        .post(modern(7, "server/discover", json!({})))
        .routing("tools/list", None)
        .send()
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.error_code(), -32020);
    assert_eq!(r.json()["id"], 7);
}

#[tokio::test]
async fn missing_routing_headers_are_400_header_mismatch() {
    let s = Running::start().await;
    // No Mcp-Name on tools/call.
    let r = s
        .post(modern(1, "tools/call", json!({"name": "echo"})))
        .routing("tools/call", None)
        .send()
        .await;
    assert_eq!((r.status, r.error_code()), (400, -32020));
    // No MCP-Protocol-Version at all.
    let r = s
        .post(modern(2, "tools/list", json!({})))
        .header("mcp-method", "tools/list")
        .send()
        .await;
    assert_eq!((r.status, r.error_code()), (400, -32020));
    // Header version differs from _meta.
    let r = s
        .post(modern(3, "tools/list", json!({})))
        .routing("tools/list", None)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await;
    assert_eq!((r.status, r.error_code()), (400, -32020));
}

#[tokio::test]
async fn base64_header_values_are_decoded_before_comparison() {
    let s = Running::start().await;
    // "echo" as =?base64?…?=, with surrounding whitespace.
    let r = s
        .post(modern(1, "tools/call", json!({"name": "echo"})))
        .routing("tools/call", Some("  =?base64?ZWNobw==?= "))
        .send()
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    // "slow" encoded, but the body says echo.
    let r = s
        .post(modern(2, "tools/call", json!({"name": "echo"})))
        .routing("tools/call", Some("=?base64?c2xvdw==?="))
        .send()
        .await;
    assert_eq!((r.status, r.error_code()), (400, -32020));
    // Not base64 at all.
    let r = s
        .post(modern(3, "tools/call", json!({"name": "echo"})))
        .routing("tools/call", Some("=?base64?***?="))
        .send()
        .await;
    assert_eq!((r.status, r.error_code()), (400, -32020));
}

#[tokio::test]
async fn x_mcp_header_arguments_must_be_mirrored() {
    let s = Running::start().await;
    let call = || {
        modern(
            1,
            "tools/call",
            json!({"name": "regional", "arguments": {"region": "Zürich"}}),
        )
    };
    let r = s
        .post(call())
        .routing("tools/call", Some("regional"))
        .send()
        .await;
    assert_eq!(
        (r.status, r.error_code()),
        (400, -32020),
        "missing Mcp-Param-Region"
    );
    let r = s
        .post(call())
        .routing("tools/call", Some("regional"))
        .header("mcp-param-region", "Zurich")
        .send()
        .await;
    assert_eq!((r.status, r.error_code()), (400, -32020), "wrong value");
    let r = s
        .post(call())
        .routing("tools/call", Some("regional"))
        .header("Mcp-Param-Region", "=?base64?WsO8cmljaA==?=")
        .send()
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["result"]["content"][0]["text"], "Zürich");
}

#[tokio::test]
async fn unknown_and_removed_methods_are_404_method_not_found() {
    let s = Running::start().await;
    for (id, method) in [(1, "unknown/method"), (2, "ping"), (3, "initialize")] {
        let r = s
            .post(modern(id, method, json!({})))
            .routing(method, None)
            .send()
            .await;
        assert_eq!(r.status, 404, "{method}: {r:?}");
        assert_eq!(r.error_code(), -32601, "{method}");
        assert_eq!(r.json()["id"], id);
    }
}

#[tokio::test]
async fn meta_errors_are_400_with_their_codes() {
    let s = Running::start().await;
    // No _meta at all: -32602 even though the header is present.
    let body = json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}).to_string();
    let r = s.post(body).routing("server/discover", None).send().await;
    assert_eq!((r.status, r.error_code()), (400, -32602));
    // An unsupported version in both places: -32022 with the supported list.
    let body = json!({"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"v999.0.0",
        "io.modelcontextprotocol/clientCapabilities":{}}}})
    .to_string();
    let r = s
        .post(body)
        .header("mcp-protocol-version", "v999.0.0")
        .header("mcp-method", "server/discover")
        .send()
        .await;
    assert_eq!((r.status, r.error_code()), (400, -32022));
    assert_eq!(r.json()["error"]["data"]["requested"], "v999.0.0");
    // A missing client capability: -32021.
    let r = s
        .post(modern(3, "tools/call", json!({"name": "needs_sampling"})))
        .routing("tools/call", Some("needs_sampling"))
        .send()
        .await;
    assert_eq!((r.status, r.error_code()), (400, -32021));
    assert_eq!(
        r.json()["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
}

#[tokio::test]
async fn notifications_and_responses_are_202_with_no_body() {
    let s = Running::start().await;
    let body = json!({"jsonrpc":"2.0","method":"notifications/cancelled",
        "params":{"requestId": 1, "_meta": meta(json!({}))}})
    .to_string();
    let r = s.post(body).send().await;
    assert_eq!(r.status, 202);
    assert_eq!(r.body, "");
    let r = s
        .post(json!({"jsonrpc":"2.0","id":5,"result":{}}).to_string())
        .send()
        .await;
    assert_eq!(r.status, 202);
}

#[tokio::test]
async fn get_and_delete_without_a_session_are_405() {
    let s = Running::start().await;
    let r = s
        .method("GET")
        .header("accept", "text/event-stream")
        .send()
        .await;
    assert_eq!(r.status, 405);
    let r = s.method("DELETE").send().await;
    assert_eq!(r.status, 405);
    let r = s.method("PUT").send().await;
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("GET, HEAD, POST, DELETE"));
}

#[tokio::test]
async fn batches_and_garbage_are_400() {
    let s = Running::start().await;
    let batch = format!("[{}]", modern(1, "tools/list", json!({})));
    let r = s.post(batch).routing("tools/list", None).send().await;
    assert_eq!((r.status, r.error_code()), (400, -32600));
    let r = s.post("{not json").send().await;
    assert_eq!((r.status, r.error_code()), (400, -32700));
    let r = s.post(vec![0xff, 0xfe]).send().await;
    assert_eq!((r.status, r.error_code()), (400, -32700));
}

#[tokio::test]
async fn content_type_and_accept_are_checked() {
    let s = Running::start().await;
    let r = s
        .post(modern(1, "tools/list", json!({})))
        .routing("tools/list", None)
        .header("content-type", "text/plain")
        .send()
        .await;
    assert_eq!(r.status, 415);
    let r = s
        .post(modern(1, "tools/list", json!({})))
        .routing("tools/list", None)
        .header("accept", "text/html")
        .send()
        .await;
    assert_eq!(r.status, 406);
}

#[tokio::test]
async fn a_request_that_reports_progress_gets_an_sse_stream() {
    let s = Running::start().await;
    let mut params = json!({"name": "progress"});
    params["_meta"] = meta(json!({}));
    params["_meta"]["progressToken"] = json!("p1");
    let body = json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":params}).to_string();
    let r = s
        .post(body)
        .routing("tools/call", Some("progress"))
        .send()
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let events = r.events();
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[0]["method"], "notifications/progress");
    assert_eq!(events[0]["params"]["progressToken"], "p1");
    assert_eq!(events[1]["params"]["progress"], 2.0);
    assert_eq!(events[2]["id"], 9);
    assert_eq!(events[2]["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn a_client_that_hangs_up_mid_stream_cancels_its_request() {
    let s = Running::start().await;
    let stream = hanging_request(&s, 1).await;
    drop(stream);
    for _ in 0..100 {
        if s.flags.hang_cancelled.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the handler was not cancelled after the client hung up");
}

#[tokio::test]
async fn shutdown_lets_an_in_flight_request_finish() {
    let s = Running::start().await;
    let mut slow = s
        .post(modern(1, "tools/call", json!({"name": "slow"})))
        .routing("tools/call", Some("slow"))
        .open()
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    s.stop.cancel();
    let raw = read_to_close(&mut slow, "the response in time").await;
    let r = parse_reply(&raw);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["content"][0]["text"], "slow done");
    let served = tokio::time::timeout(Duration::from_secs(5), s.task)
        .await
        .expect("the server stopped")
        .expect("join");
    assert!(served.is_ok());
    // And it no longer accepts connections.
    assert!(tokio::net::TcpStream::connect(s.addr).await.is_err());
}

#[tokio::test]
async fn no_bad_request_wedges_the_server() {
    let s = Running::start().await;
    let bodies: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"null".to_vec(),
        b"42".to_vec(),
        b"[]".to_vec(),
        b"{}".to_vec(),
        br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#.to_vec(),
        br#"{"jsonrpc":"1.0","id":1,"method":"tools/list"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1,2]}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":7}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#.to_vec(),
        vec![b'{'; 10_000],
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\u{0}\"}".as_bytes().to_vec(),
    ];
    for body in bodies {
        let shown = String::from_utf8_lossy(&body[..body.len().min(60)]).into_owned();
        let r = s
            .post(body)
            .routing("tools/call", Some("=?base64?\u{7f}?="))
            .send()
            .await;
        assert!(
            (400..500).contains(&r.status),
            "{shown}: expected a 4xx, got {r:?}"
        );
    }
    let r = s
        .post(modern(99, "server/discover", json!({})))
        .routing("server/discover", None)
        .send()
        .await;
    assert_eq!(r.status, 200, "still serving: {r:?}");
}

#[tokio::test]
async fn a_client_that_takes_no_sse_gets_json_without_the_notifications() {
    let s = Running::start().await;
    let mut params = json!({"name": "progress"});
    params["_meta"] = meta(json!({}));
    params["_meta"]["progressToken"] = json!("p1");
    let body = json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":params}).to_string();
    let r = s
        .post(body)
        .routing("tools/call", Some("progress"))
        .header("accept", "application/json")
        .send()
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["result"]["content"][0]["text"], "done");
}

/// `serve` calls the endpoint without the router for a POST to its path: the same requests
/// reach it as through the router, and no others.
#[tokio::test]
async fn a_post_reaches_the_endpoint_by_its_path_alone() {
    let s = Running::start().await;
    let r = call_at(&s, "/mcp?trace=1").await;
    assert_eq!(r.status, 200, "a query is not part of the path: {r:?}");
    assert_eq!(r.json()["result"]["content"][0]["text"], "echo");
    for other in ["/mcp/", "/MCP", "/mcp2", "/m%63p", "/"] {
        assert_eq!(call_at(&s, other).await.status, 404, "{other}");
    }
    // Another method at the path is the router's, as before.
    assert_eq!(s.method("PUT").send().await.status, 405);
    // A path with a capture is matched by the router, for every value of it.
    let s = Running::with(|t| t.path("/{tenant}/mcp")).await;
    for path in ["/acme/mcp", "/{tenant}/mcp"] {
        let r = call_at(&s, path).await;
        assert_eq!(r.status, 200, "{path}: {r:?}");
    }
    assert_eq!(call_at(&s, "/mcp").await.status, 404);
}

async fn call_at(s: &Running, path: &str) -> Reply {
    s.post(modern(1, "tools/call", json!({"name": "echo"})))
        .routing("tools/call", Some("echo"))
        .path(path)
        .send()
        .await
}
