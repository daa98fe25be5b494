//! Hostile inputs the server has always refused cleanly, kept that way: malformed and huge
//! bodies, batches, deep nesting, bytes that are not UTF-8, ids of every type, forged and
//! oversized `requestState`, floods of `inputResponses`. Each gets a specific error and the
//! server goes on serving the next request.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use mcp::server::McpServer;
use mcp::transport::http::HttpTransport;

use crate::support::http::{Reply, Running, meta, modern, parse_reply, post, read_to_close};
use crate::support::provision;

/// The server still answers a plain request.
async fn still_serving(server: &Running) {
    let reply = server
        .post(modern(99, "tools/list", json!({})))
        .routing("tools/list", None)
        .send()
        .await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert!(reply.json()["result"]["tools"].is_array(), "{reply:?}");
}

#[tokio::test]
async fn malformed_json_batches_and_bytes_that_are_not_utf8_get_their_own_errors() {
    let server = Running::start().await;
    let call = modern(1, "tools/list", json!({}));
    let cases: [(Vec<u8>, i64); 5] = [
        (br#"{"jsonrpc":"2.0","id":1,"method":"#.to_vec(), -32700),
        (b"not json at all".to_vec(), -32700),
        (format!("[{call},{call}]").into_bytes(), -32600),
        (b"[]".to_vec(), -32600),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}".to_vec(),
            -32700,
        ),
    ];
    for (body, code) in cases {
        let reply = server
            .post(body.clone())
            .routing("tools/list", None)
            .send()
            .await;
        assert_eq!(
            reply.error_code(),
            code,
            "{:?}: {reply:?}",
            String::from_utf8_lossy(&body)
        );
    }
    still_serving(&server).await;
}

#[tokio::test]
async fn a_million_levels_of_nesting_is_refused_without_a_crash() {
    let server = Running::start().await;
    let depth = 1_000_000;
    let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    for body in [
        // In the arguments of a call, and as the whole message.
        modern(
            1,
            "tools/call",
            json!({"name": "echo", "arguments": {"x": 0}}),
        )
        .replace(r#"{"x":0}"#, &format!(r#"{{"x":{nested}}}"#)),
        nested.clone(),
    ] {
        let reply = server
            .post(body)
            .routing("tools/call", Some("echo"))
            .send()
            .await;
        assert!(reply.status >= 400, "{reply:?}");
        assert!(
            [-32700, -32600, -32602].contains(&reply.error_code()),
            "{reply:?}"
        );
    }
    still_serving(&server).await;
}

/// Sends a body of `size` bytes, declared or chunked, and reads the response.
async fn send_huge(server: &Running, size: usize, chunked: bool) -> Reply {
    let mut stream = TcpStream::connect(server.addr).await.expect("connect");
    let framing = if chunked {
        "transfer-encoding: chunked".to_owned()
    } else {
        format!("content-length: {size}")
    };
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
         accept: application/json\r\n{framing}\r\nconnection: close\r\n\r\n",
        server.addr
    );
    stream.write_all(head.as_bytes()).await.expect("head");
    let chunk = vec![b' '; 1 << 20];
    let mut sent = 0;
    // The server answers 413 and closes once past its limit; writing then fails, as it should.
    while sent < size {
        let written = if chunked {
            let framed = [format!("{:x}\r\n", chunk.len()).as_bytes(), &chunk, b"\r\n"].concat();
            stream.write_all(&framed).await
        } else {
            stream.write_all(&chunk).await
        };
        if written.is_err() {
            break;
        }
        sent += chunk.len();
    }
    parse_reply(&read_to_close(&mut stream, "a response to a huge body").await)
}

#[tokio::test]
async fn fifty_megabyte_bodies_are_refused_declared_or_chunked() {
    let server = Running::start().await;
    for chunked in [false, true] {
        let reply = send_huge(&server, 50 << 20, chunked).await;
        assert_eq!(reply.status, 413, "chunked: {chunked}: {reply:?}");
    }
    still_serving(&server).await;
}

#[tokio::test]
async fn every_kind_of_id_is_answered_under_itself_or_refused() {
    let server = Running::start().await;
    let request = |id: &str| {
        let body = modern(0, "tools/list", json!({}));
        body.replacen(r#""id":0"#, &format!(r#""id":{id}"#), 1)
    };
    for id in [
        r#""a""#,
        r#""""#,
        "0",
        "-1",
        "9223372036854775807",
        r#""é\u0000""#,
    ] {
        let reply = server
            .post(request(id))
            .routing("tools/list", None)
            .send()
            .await;
        let expected: Value = serde_json::from_str(id).expect("id");
        assert_eq!(reply.json()["id"], expected, "{id}: {reply:?}");
        assert!(reply.json()["result"].is_object(), "{id}: {reply:?}");
    }
    for id in ["1.5", "true", "{}", "[]", "18446744073709551616"] {
        let reply = server
            .post(request(id))
            .routing("tools/list", None)
            .send()
            .await;
        assert_eq!(reply.error_code(), -32600, "{id}: {reply:?}");
    }
    still_serving(&server).await;
}

/// `provision` behind a server that seals its state (McpServer does by default).
async fn sealed_server() -> (std::net::SocketAddr, CancellationToken) {
    let server = McpServer::new("sealed")
        .tools(mcp::tools![provision])
        .build()
        .expect("builds");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let stop = CancellationToken::new();
    tokio::spawn(HttpTransport::new(server).serve(listener, stop.clone().cancelled_owned()));
    (addr, stop)
}

async fn call_provision(addr: std::net::SocketAddr, extra: Value) -> Value {
    let mut params = json!({"name": "provision", "arguments": {"name": "orders"},
        "_meta": meta(json!({"elicitation": {"form": {}}}))});
    if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
        params.extend(extra.clone());
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let reply = post(addr, body.to_string())
        .routing("tools/call", Some("provision"))
        .send()
        .await;
    reply.json()
}

#[tokio::test]
async fn forged_huge_and_flooded_request_state_gets_the_fixed_rejection() {
    let (addr, stop) = sealed_server().await;
    let answers = json!({"region": {"action": "accept", "content": {"region": "eu"}}});
    let flood: serde_json::Map<String, Value> = (0..100_000)
        .map(|i| (format!("q{i}"), json!({"action": "decline"})))
        .collect();
    for extra in [
        json!({"requestState": "v1.forged", "inputResponses": answers}),
        json!({"requestState": format!("v1.{}", "A".repeat(3 << 20)), "inputResponses": answers}),
        json!({"requestState": "", "inputResponses": answers}),
        json!({"requestState": "v1.forged", "inputResponses": flood}),
    ] {
        let reply = tokio::time::timeout(Duration::from_secs(20), call_provision(addr, extra))
            .await
            .expect("answered in time");
        assert_eq!(reply["error"]["code"], -32602, "{reply:.200}");
        assert_eq!(
            reply["error"]["message"], "Invalid or expired requestState",
            "{reply:.200}"
        );
    }
    // A flood of answers with no state at all is a first round: the tool asks its question.
    let flood: serde_json::Map<String, Value> = (0..100_000)
        .map(|i| (format!("q{i}"), json!({"action": "decline"})))
        .collect();
    let reply = call_provision(addr, json!({"inputResponses": flood})).await;
    assert_eq!(
        reply["result"]["resultType"], "input_required",
        "{reply:.300}"
    );
    stop.cancel();
}

#[tokio::test]
async fn a_request_head_past_64_kib_is_refused_with_431() {
    let server = Running::start().await;
    let big = "a".repeat(100 << 10);
    let reply = server
        .post(modern(1, "tools/list", json!({})))
        .routing("tools/list", None)
        .header("x-padding", &big)
        .send()
        .await;
    assert_eq!(reply.status, 431, "{reply:?}");
    still_serving(&server).await;
}
