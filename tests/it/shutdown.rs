//! Graceful shutdown: SIGTERM or SIGINT ends a served process with exit 0; once the signal is
//! in, new connections are refused while in-flight requests are answered (`Connection: close`);
//! idle connections are left to their peer for the drain period; the grace period bounds how
//! long a stuck request can hold the shutdown.

#![cfg(all(feature = "http", unix))]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp::McpServer;
use mcp::transport::http::HttpTransport;
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

use crate::support::http::{
    Running, idle_connection, keep_alive_echo, modern, parse_reply, read_to_close,
};
use crate::support::process::{ChildGuard, example, free_port};

#[test]
fn sigterm_stops_an_http_server_with_exit_zero() {
    stops_with_exit_zero_on("-TERM");
}

#[test]
fn sigint_stops_an_http_server_with_exit_zero() {
    stops_with_exit_zero_on("-INT");
}

fn stops_with_exit_zero_on(signal: &str) {
    let addr = format!("127.0.0.1:{}", free_port());
    let mut server = ChildGuard::spawn(
        Command::new(example("provisioner"))
            .args(["--http", &addr])
            .stderr(Stdio::null()),
    );
    server.wait_listening(&addr);
    let status = Command::new("kill")
        .args([signal, &server.id().to_string()])
        .status()
        .expect("send the signal");
    assert!(status.success());
    let exit = server.wait_exit(Duration::from_secs(10));
    assert!(exit.success(), "{signal}: {exit}");
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

#[tokio::test]
async fn an_in_flight_request_is_answered_while_new_connections_are_refused() {
    let s = Running::with(|t| t.grace_period(Duration::from_secs(5))).await;
    let mut slow = s
        .post(modern(1, "tools/call", json!({"name": "slow"})))
        .routing("tools/call", Some("slow"))
        .open()
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    s.stop.cancel();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!s.task.is_finished(), "the slow request is still running");
    assert!(
        tokio::net::TcpStream::connect(s.addr).await.is_err(),
        "a new connection is refused while the old request finishes"
    );
    let reply = parse_reply(&read_to_close(&mut slow, "the in-flight answer").await);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["result"]["content"][0]["text"], "slow done");
    assert_eq!(reply.header("connection"), Some("close"));
    let served = tokio::time::timeout(Duration::from_secs(5), s.task)
        .await
        .expect("the server stopped")
        .expect("join");
    assert!(served.is_ok(), "{served:?}");
}

#[tokio::test]
async fn an_idle_connection_drains_until_its_peer_is_told_to_close() {
    let s = Running::with(|t| t.drain(Duration::from_secs(10))).await;
    let (mut idle, first) = idle_connection(s.addr).await;
    assert!(
        !first.to_ascii_lowercase().contains("connection: close"),
        "{first}"
    );
    s.stop.cancel();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        !s.task.is_finished(),
        "the idle connection is not closed under its peer"
    );
    // A balancer sending on it now is still answered, and told not to reuse the connection.
    idle.write_all(&keep_alive_echo(s.addr, 2))
        .await
        .expect("send");
    let reply = parse_reply(&read_to_close(&mut idle, "the answer, then the close").await);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("connection"), Some("close"));
    let started = Instant::now();
    let served = tokio::time::timeout(Duration::from_secs(5), s.task)
        .await
        .expect("the server stops once its last connection closed, not after the drain")
        .expect("join");
    assert!(served.is_ok(), "{served:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn the_drain_period_bounds_an_idle_connection() {
    let s = Running::with(|t| t.drain(Duration::from_millis(300))).await;
    let (mut idle, _) = idle_connection(s.addr).await;
    let started = Instant::now();
    s.stop.cancel();
    let served = tokio::time::timeout(Duration::from_secs(5), s.task)
        .await
        .expect("the server stops after the drain")
        .expect("join");
    assert!(served.is_ok(), "{served:?}");
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
    // The server closed the idle connection.
    assert!(read_to_close(&mut idle, "the close").await.is_empty());
}

#[tokio::test]
async fn while_draining_every_answer_says_the_connection_closes() {
    // Answers that axum would otherwise write itself: an unknown path and an unknown method.
    for (method, path, status) in [("GET", "/elsewhere", 404), ("PUT", "/mcp", 405)] {
        let s = Running::with(|t| t.drain(Duration::from_secs(10))).await;
        let (mut idle, _) = idle_connection(s.addr).await;
        s.stop.cancel();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let request = format!(
            "{method} {path} HTTP/1.1\r\nhost: {}\r\ncontent-length: 0\r\n\r\n",
            s.addr
        );
        idle.write_all(request.as_bytes()).await.expect("send");
        let reply = parse_reply(&read_to_close(&mut idle, "the answer, then the close").await);
        assert_eq!(reply.status, status, "{method} {path}");
        assert_eq!(reply.header("connection"), Some("close"), "{method} {path}");
    }
}

#[test]
fn a_port_in_use_is_an_error_that_names_the_address() {
    // A child: serving installs signal handlers, which a test must not do to the shared process.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = taken.local_addr().expect("addr");
    let output = Command::new(example("provisioner"))
        .args(["--http", &addr.to_string()])
        .stdin(Stdio::null())
        .output()
        .expect("run the provisioner");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("cannot listen on {addr}: ")),
        "{stderr}"
    );
}
