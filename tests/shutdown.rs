//! Graceful shutdown: SIGTERM ends a served process with exit 0, and the grace period bounds
//! how long a stuck request can hold the shutdown.

#![cfg(all(feature = "http", unix))]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp::McpServer;
use mcp::transport::http::HttpTransport;
use support::example;
use tokio_util::sync::CancellationToken;

mod support;

#[test]
fn sigterm_stops_an_http_server_with_exit_zero() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut child = Command::new(example("provisioner"))
        .args(["--http", &addr])
        .stderr(Stdio::null())
        .spawn()
        .expect("start the provisioner");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(&addr).is_err() {
        assert!(
            Instant::now() < deadline,
            "the provisioner did not start listening"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("send SIGTERM");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let exit = loop {
        if let Some(exit) = child.try_wait().expect("wait") {
            break exit;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not stop after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit}");
}

/// Never answers.
#[mcp::tool]
async fn stuck() -> &'static str {
    std::future::pending::<()>().await;
    "never"
}

#[tokio::test]
async fn the_grace_period_bounds_a_stuck_request() {
    let server = McpServer::new("stuck")
        .tools(mcp::tools![stuck])
        .build()
        .expect("valid server");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    let stop = CancellationToken::new();
    let serving = tokio::spawn(
        HttpTransport::new(server)
            .grace_period(Duration::from_millis(200))
            .serve(listener, stop.clone().cancelled_owned()),
    );
    // A request that will never be answered.
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "stuck", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: stuck\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut socket = tokio::net::TcpStream::connect(addr).await.expect("connect");
    tokio::io::AsyncWriteExt::write_all(&mut socket, request.as_bytes())
        .await
        .expect("send");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    stop.cancel();
    let result = tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .expect("serve returns after the grace period")
        .expect("the serving task");
    assert!(result.is_ok(), "{result:?}");
    assert!(
        started.elapsed() >= Duration::from_millis(200),
        "{:?}",
        started.elapsed()
    );
}
