//! DNS-rebinding protection and the body limit over real sockets.
#![cfg(feature = "http")]

use serde_json::json;

use crate::support::http::{Running, modern, parse_reply, read_to_close};

fn discover() -> String {
    modern(1, "server/discover", json!({}))
}

#[tokio::test]
async fn a_foreign_host_is_403() {
    let s = Running::start().await;
    let r = s
        .post(discover())
        .routing("server/discover", None)
        .header("host", "evil.example.com")
        .send()
        .await;
    assert_eq!(r.status, 403);
    let r = s
        .method("GET")
        .header("host", "evil.example.com")
        .send()
        .await;
    assert_eq!(r.status, 403);
}

#[tokio::test]
async fn a_foreign_origin_is_403() {
    let s = Running::start().await;
    let r = s
        .post(discover())
        .routing("server/discover", None)
        .header("origin", "http://evil.example.com")
        .send()
        .await;
    assert_eq!(r.status, 403);
    assert_eq!(r.error_code(), -32600);
}

#[tokio::test]
async fn loopback_names_pass() {
    let s = Running::start().await;
    let port = s.addr.port();
    for (host, origin) in [
        (
            format!("localhost:{port}"),
            format!("http://localhost:{port}"),
        ),
        (format!("127.0.0.1:{port}"), "http://127.0.0.1".to_owned()),
        (format!("[::1]:{port}"), format!("https://[::1]:{port}")),
    ] {
        let r = s
            .post(discover())
            .routing("server/discover", None)
            .header("host", &host)
            .header("origin", &origin)
            .send()
            .await;
        assert_eq!(r.status, 200, "{host} / {origin}: {r:?}");
    }
}

#[tokio::test]
async fn configured_hosts_and_origins_pass() {
    let s = Running::with(|t| {
        t.allowed_hosts(["mcp.example.com"])
            .allowed_origins(["https://app.example.com"])
    })
    .await;
    let r = s
        .post(discover())
        .routing("server/discover", None)
        .header("host", "mcp.example.com")
        .header("origin", "https://app.example.com")
        .send()
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    let r = s
        .post(discover())
        .routing("server/discover", None)
        .header("host", "other.example.com")
        .send()
        .await;
    assert_eq!(r.status, 403);
}

#[tokio::test]
async fn a_body_over_the_default_limit_is_413() {
    let s = Running::start().await;
    let filler = "x".repeat(4 * 1024 * 1024 + 1);
    let body =
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad": filler}}).to_string();
    let r = s.post(body).routing("tools/list", None).send().await;
    assert_eq!(r.status, 413);
    // The server still serves.
    let r = s
        .post(discover())
        .routing("server/discover", None)
        .send()
        .await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn a_configured_limit_applies() {
    let s = Running::with(|t| t.body_limit(64)).await;
    let r = s
        .post(discover())
        .routing("server/discover", None)
        .send()
        .await;
    assert_eq!(r.status, 413);
}

#[tokio::test]
async fn a_chunked_body_is_cut_off_at_the_limit() {
    use tokio::io::AsyncWriteExt;
    let s = Running::with(|t| t.body_limit(64)).await;
    // No Content-Length: the server can only find out by counting what arrives.
    let mut stream = tokio::net::TcpStream::connect(s.addr)
        .await
        .expect("connect");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n\
         mcp-method: server/discover\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n",
        s.addr
    );
    stream.write_all(head.as_bytes()).await.expect("head");
    let chunk = format!("28\r\n{}\r\n", "x".repeat(40));
    for _ in 0..3 {
        // The server may answer and close once it has seen enough.
        if stream.write_all(chunk.as_bytes()).await.is_err() {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;
    let raw = read_to_close(&mut stream, "a reply to an oversized body").await;
    let reply = parse_reply(&raw);
    assert_eq!(reply.status, 413);
    assert_eq!(reply.error_code(), -32600);
    assert!(reply.body.contains("64 bytes"), "{}", reply.body);
}
