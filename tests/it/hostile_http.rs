//! Hostile clients on real sockets: request heads and bodies trickled in, idle connections
//! hoarded (also against a server at `ulimit -n 1024`), more requests or body bytes at once
//! than the server takes, and a half-sent request when SIGTERM comes. Each test shortens the
//! limit it exercises to about a second and allows ten for the server to act, so a loaded
//! machine does not fail it, while the attack it repels would otherwise last forever.

#![cfg(all(feature = "http", unix))]

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::http::{
    Running, hanging_request, idle_connection, keep_alive_echo, modern, parse_reply, read_one,
};
use crate::support::process::{ChildGuard, example, free_port};

/// How long a test waits for the server to close a connection.
const CLOSE_WITHIN: Duration = Duration::from_secs(10);

/// What the server sent before it closed the connection (by EOF or reset); fails the test if
/// it is still open after [`CLOSE_WITHIN`].
async fn closed_by_server(stream: &mut (impl AsyncRead + Unpin), what: &str) -> Vec<u8> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    let closing = async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    };
    if tokio::time::timeout(CLOSE_WITHIN, closing).await.is_err() {
        panic!("{what}: still open after {CLOSE_WITHIN:?}");
    }
    seen
}

/// Fails the test if the server closes `stream` or sends anything within `quiet`.
async fn stays_open(stream: &mut TcpStream, quiet: Duration, what: &str) {
    let mut buf = [0u8; 256];
    if let Ok(read) = tokio::time::timeout(quiet, stream.read(&mut buf)).await {
        panic!("{what}: the server closed or wrote ({read:?})");
    }
}

/// The head of an `echo` call whose body of `length` bytes follows.
fn echo_head(addr: std::net::SocketAddr, length: usize) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n\
         mcp-method: tools/call\r\nmcp-name: echo\r\ncontent-length: {length}\r\n\
         connection: close\r\n\r\n"
    )
}

/// An `echo` call padded with trailing spaces (still JSON) to `length` bytes.
fn padded_echo(id: i64, length: usize) -> String {
    format!(
        "{:<length$}",
        modern(id, "tools/call", json!({"name": "echo"}))
    )
}

/// Sends `head` one byte every 250 ms until the server closes the connection; returns how
/// long after the first byte that was.
async fn trickle_until_closed(stream: TcpStream, head: String) -> Duration {
    let (mut read, mut write) = stream.into_split();
    let started = Instant::now();
    let writer = tokio::spawn(async move {
        for byte in head.into_bytes() {
            if write.write_all(&[byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    });
    let answer = closed_by_server(&mut read, "a trickled request head").await;
    writer.abort();
    assert!(answer.is_empty(), "{:?}", String::from_utf8_lossy(&answer));
    started.elapsed()
}

#[tokio::test]
async fn a_slowloris_connection_is_closed_within_the_header_timeout() {
    let s = Running::with(|t| t.header_read_timeout(Duration::from_secs(1))).await;
    // ~60 bytes of a head at 4 bytes a second: 15 s, far beyond the test's bound.
    let head = echo_head(s.addr, 10);

    // On a new connection the timeout counts from the connection's start.
    let fresh = TcpStream::connect(s.addr).await.expect("connect");
    let took = trickle_until_closed(fresh, head.clone()).await;
    assert!(took >= Duration::from_millis(900), "{took:?}");
    eprintln!("slowloris on a new connection closed after {took:?}");

    // On a kept-alive connection, from the first byte of the next request.
    let (kept, _) = idle_connection(s.addr).await;
    let took = trickle_until_closed(kept, head).await;
    assert!(took >= Duration::from_millis(900), "{took:?}");
    eprintln!("slowloris on a kept-alive connection closed after {took:?}");
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_but_a_long_response_is_not() {
    let s = Running::with(|t| {
        t.keep_alive_timeout(Duration::from_secs(1))
            .header_read_timeout(Duration::from_secs(1))
    })
    .await;
    let mut streaming = hanging_request(&s, 1).await;
    let (mut idle, _) = idle_connection(s.addr).await;
    let started = Instant::now();
    closed_by_server(&mut idle, "an idle keep-alive connection").await;
    let took = started.elapsed();
    eprintln!("an idle keep-alive connection closed after {took:?}");
    // Both timeouts have long passed for the response still streaming.
    stays_open(
        &mut streaming,
        Duration::from_millis(1500),
        "a streaming response",
    )
    .await;
}

#[tokio::test]
async fn a_stalled_body_is_answered_408_within_the_body_timeout() {
    let s = Running::with(|t| t.body_read_timeout(Duration::from_secs(1))).await;
    let body = padded_echo(1, 100);
    let mut stream = TcpStream::connect(s.addr).await.expect("connect");
    let started = Instant::now();
    stream
        .write_all(format!("{}{}", echo_head(s.addr, body.len()), &body[..10]).as_bytes())
        .await
        .expect("send the head and a tenth of the body");
    let answer = closed_by_server(&mut stream, "a request with a stalled body").await;
    let took = started.elapsed();
    assert_eq!(parse_reply(&answer).status, 408);
    assert!(took >= Duration::from_millis(900), "{took:?}");
    eprintln!("a stalled body was answered 408 after {took:?}");
}

#[tokio::test]
async fn bodies_over_the_budget_are_refused_with_503_until_it_frees() {
    let s = Running::with(|t| t.body_limit(1000).body_budget(1000)).await;
    // 800 bytes of a 900-byte body, held by the server while it waits for the rest.
    let held = padded_echo(1, 900);
    let mut holder = TcpStream::connect(s.addr).await.expect("connect");
    holder
        .write_all(format!("{}{}", echo_head(s.addr, 900), &held[..800]).as_bytes())
        .await
        .expect("send most of the body");
    let other = padded_echo(2, 500);
    let send_other = || {
        s.post(other.clone())
            .routing("tools/call", Some("echo"))
            .send()
    };
    // Until the server has read the 800 bytes, 500 more still fit.
    let deadline = Instant::now() + CLOSE_WITHIN;
    let refused = loop {
        let reply = send_other().await;
        if reply.status != 200 || Instant::now() > deadline {
            break reply;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));

    holder
        .write_all(&held.as_bytes()[800..])
        .await
        .expect("send the rest");
    let answer = closed_by_server(&mut holder, "the held request's answer").await;
    assert_eq!(parse_reply(&answer).status, 200);
    assert_eq!(send_other().await.status, 200, "the budget is free again");
}

#[tokio::test]
async fn requests_over_the_concurrency_cap_are_refused_with_503() {
    let s = Running::with(|t| t.max_concurrent_requests(2)).await;
    let first = hanging_request(&s, 1).await;
    let _second = hanging_request(&s, 2).await;
    let echo = || {
        s.post(modern(3, "tools/call", json!({"name": "echo"})))
            .routing("tools/call", Some("echo"))
            .send()
    };
    let refused = echo().await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));
    // A notification is no request to handle: it is still taken.
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                              "params": {"requestId": 1}});
    assert_eq!(s.post(notification.to_string()).send().await.status, 202);

    drop(first);
    // The slot frees once the server sees the client gone.
    let deadline = Instant::now() + CLOSE_WITHIN;
    while echo().await.status != 200 {
        assert!(Instant::now() < deadline, "the slot was never freed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn at_the_connection_cap_the_longest_idle_connection_makes_room() {
    let s = Running::with(|t| t.max_connections(4)).await;
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(idle_connection(s.addr).await.0);
    }
    let reply = s
        .post(modern(5, "tools/call", json!({"name": "echo"})))
        .routing("tools/call", Some("echo"))
        .send()
        .await;
    assert_eq!(reply.status, 200, "a fifth client is served");
    closed_by_server(&mut idle[0], "the connection idle the longest").await;
    // The others were left alone.
    for (id, kept) in (2..).zip(&mut idle[1..]) {
        kept.write_all(&keep_alive_echo(s.addr, id))
            .await
            .expect("send");
        assert!(read_one(kept).await.starts_with("HTTP/1.1 200"));
    }
}

#[tokio::test]
async fn at_the_connection_cap_with_every_connection_busy_a_new_one_is_closed() {
    let s = Running::with(|t| t.max_connections(2)).await;
    let first = hanging_request(&s, 1).await;
    let mut second = hanging_request(&s, 2).await;
    let mut refused = TcpStream::connect(s.addr).await.expect("connect");
    // The server may have closed it before this is written.
    let _ = refused.write_all(&keep_alive_echo(s.addr, 3)).await;
    let answer = closed_by_server(&mut refused, "a connection beyond the cap").await;
    assert!(answer.is_empty(), "{:?}", String::from_utf8_lossy(&answer));
    stays_open(&mut second, Duration::from_millis(300), "a busy connection").await;

    drop(first);
    let deadline = Instant::now() + CLOSE_WITHIN;
    loop {
        let mut next = TcpStream::connect(s.addr).await.expect("connect");
        let _ = next.write_all(&keep_alive_echo(s.addr, 4)).await;
        let answer = closed_by_server_or_answered(&mut next).await;
        if answer.starts_with(b"HTTP/1.1 200") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no room after a connection closed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The first bytes the server answers on `stream`, or nothing if it closes it unanswered.
async fn closed_by_server_or_answered(stream: &mut TcpStream) -> Vec<u8> {
    let mut buf = [0u8; 4096];
    match tokio::time::timeout(CLOSE_WITHIN, stream.read(&mut buf)).await {
        Ok(Ok(n)) => buf[..n].to_vec(),
        Ok(Err(_)) => Vec::new(),
        Err(_) => panic!("neither answered nor closed within {CLOSE_WITHIN:?}"),
    }
}

/// A 2026-07-28 `tools/list` that closes its connection after the answer.
fn tools_list(host: &str) -> Vec<u8> {
    let body = modern(1, "tools/list", json!({}));
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n\
         mcp-method: tools/list\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Whether the peer still has `stream` open (nothing to read, no EOF, no reset).
fn still_open(mut stream: &std::net::TcpStream) -> bool {
    stream.set_nonblocking(true).expect("non-blocking");
    matches!(stream.read(&mut [0u8; 1]), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}

#[test]
fn a_fresh_client_is_served_beside_1100_idle_connections_at_ulimit_1024() {
    let addr = format!("127.0.0.1:{}", free_port());
    // A header timeout far beyond the test, so only making room can let the client in.
    let mut server = ChildGuard::spawn(
        Command::new("sh")
            .args([
                "-c",
                r#"ulimit -n 1024 && exec "$0" --http "$1" --header-timeout 300"#,
            ])
            .arg(example("provisioner"))
            .arg(&addr)
            .stderr(Stdio::null()),
    );
    server.wait_listening(&addr);
    let idle: Vec<_> = (0..1100)
        .map(|_| std::net::TcpStream::connect(&addr).expect("connect an idle connection"))
        .collect();

    let started = Instant::now();
    let mut fresh = std::net::TcpStream::connect(&addr).expect("connect");
    fresh
        .set_read_timeout(Some(CLOSE_WITHIN))
        .expect("a read timeout");
    fresh.write_all(&tools_list(&addr)).expect("send");
    let mut raw = Vec::new();
    fresh
        .read_to_end(&mut raw)
        .expect("an answer within the read timeout");
    let reply = parse_reply(&raw);
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.json()["result"]["tools"][0]["name"], "provision");
    let held = idle.iter().filter(|s| still_open(s)).count();
    eprintln!(
        "served in {:?} beside {held} of 1100 idle connections still open",
        started.elapsed()
    );
    // About 1,010 descriptors are left for connections, so the server made room by closing
    // the ones idle the longest, and kept the rest.
    assert!(held >= 900, "only {held} idle connections were kept");
}

#[test]
fn sigterm_with_a_half_sent_request_exits_within_the_header_timeout() {
    let addr = format!("127.0.0.1:{}", free_port());
    let mut server = ChildGuard::spawn(
        Command::new(example("provisioner"))
            .args(["--http", &addr, "--grace", "60", "--header-timeout", "2"])
            .stderr(Stdio::null()),
    );
    server.wait_listening(&addr);
    let mut half = std::net::TcpStream::connect(&addr).expect("connect");
    half.write_all(format!("POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-ty").as_bytes())
        .expect("send half a request head");
    std::thread::sleep(Duration::from_millis(200));
    let signalled = Instant::now();
    let status = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .expect("send SIGTERM");
    assert!(status.success());
    // Far below the 60 s grace period the half-sent request held it for.
    let exit = server.wait_exit(CLOSE_WITHIN);
    assert!(exit.success(), "{exit}");
    eprintln!("exited {:?} after SIGTERM", signalled.elapsed());
}

#[tokio::test]
async fn a_client_that_stops_reading_its_response_is_cut_off_within_the_write_timeout() {
    use mcp::protocol::{CallToolResult, Implementation, Tool};
    use mcp::transport::http::HttpTransport;
    // More than the socket buffers of both ends hold, so the server's writes stall.
    const BIG: usize = 64 << 20;
    let server = mcp::server::Server::builder(Implementation::new("big", "1"))
        .list_tools(vec![Tool::new("big", json!({"type": "object"}))])
        .on_call_tool(|_ctx, _call| async { Ok(CallToolResult::text("x".repeat(BIG))) })
        .build()
        .expect("builds");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let stop = tokio_util::sync::CancellationToken::new();
    let transport = HttpTransport::new(server).write_timeout(Duration::from_secs(1));
    tokio::spawn(transport.serve(listener, stop.clone().cancelled_owned()));

    let body = modern(1, "tools/call", json!({"name": "big", "arguments": {}}));
    let head = echo_head(addr, body.len())
        .replace("mcp-name: echo", "mcp-name: big")
        .replace(
            "accept: application/json, text/event-stream",
            "accept: application/json",
        );
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream
        .write_all(format!("{head}{body}").as_bytes())
        .await
        .expect("request");
    // The response has started (making a 64 MiB result takes a while in a debug build), so
    // the socket's buffers fill at once: then not reading, for longer than the write timeout.
    let mut first = [0u8; 1024];
    let started = tokio::time::timeout(Duration::from_secs(60), stream.read(&mut first))
        .await
        .expect("the response starts within 60 s")
        .expect("read");
    assert!(started > 0, "closed before answering");
    tokio::time::sleep(Duration::from_secs(4)).await;
    let received = started
        + closed_by_server(&mut stream, "a client that stopped reading")
            .await
            .len();
    assert!(
        received < BIG,
        "the whole response came through ({received} bytes)"
    );
    stop.cancel();
}
