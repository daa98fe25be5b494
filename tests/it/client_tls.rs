//! Our HTTP client beyond plain HTTP/1.1: HTTPS with a CA made at test time and added through
//! the builder, HTTP/2 or HTTP/1.1 as ALPN settles it (the server records which it served),
//! h2c by prior knowledge, a refused certificate, an explicit proxy (a `CONNECT` tunnel for
//! https, absolute form for http), and the connect and request timeouts. The proxies of the
//! environment are tested in `tests/client_env.rs`, a binary of their own.

#![cfg(feature = "tls")]

use std::time::{Duration, Instant};

use mcp::client::{Client, ClientError};
use mcp::protocol::{ElicitParams, Implementation};
use mcp::server::Server;
use mcp::transport::Duplex;
use mcp::transport::http::axum::http::Version;
use mcp::transport::http_client::{Builder, HttpClientError};
use mcp::{Context, McpServer};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::time::timeout;

use crate::support::tls::{self, TestCa};
use crate::support::{self, provision, proxy};

/// Both, HTTP/2 preferred: what a server that speaks both offers.
const H2_AND_H1: &[&[u8]] = &[b"h2", b"http/1.1"];

/// Reports progress every 50 ms for `ms` milliseconds, then answers: a long SSE stream.
#[mcp::tool]
async fn long(ctx: Context, ms: u64) -> &'static str {
    let end = Instant::now() + Duration::from_millis(ms);
    while Instant::now() < end {
        ctx.progress(0.5, Some(1.0), None).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "finished"
}

fn server() -> Server {
    McpServer::new("tls-test")
        .tools(mcp::tools![provision, long])
        .build()
        .expect("valid server")
}

fn client(duplex: Duplex) -> Client {
    Client::builder(Implementation::new("tls-test", "1"))
        .on_elicit(|question: ElicitParams| async move { Ok(support::answer(&question)) })
        .connect(duplex)
}

fn trusting(url: &str, ca: &TestCa) -> Builder {
    Builder::new(url)
        .no_proxy()
        .add_root_certificate_pem(ca.pem.as_bytes())
        .expect("a CA certificate")
}

/// `provision` asks twice, so this is three rounds: the call, then a retry per answer.
async fn provision_orders(client: &Client) -> Result<String, ClientError> {
    let call = client.call_tool("provision", Some(json!({"name": "orders"})));
    let result = timeout(Duration::from_secs(20), call)
        .await
        .expect("answered in time")?;
    Ok(result.content[0].as_text().expect("text").to_owned())
}

fn assert_all(versions: &[Version], expected: Version) {
    assert!(versions.len() >= 3, "one request per round: {versions:?}");
    assert!(versions.iter().all(|v| *v == expected), "{versions:?}");
}

#[tokio::test]
async fn the_rounds_run_over_https_on_http2_when_the_server_offers_it() {
    let ca = TestCa::new("test CA");
    let served = tls::serve(server(), Some(ca.server_config(H2_AND_H1))).await;
    let client = client(trusting(&served.url, &ca).connect().expect("connects"));
    let answer = provision_orders(&client).await.expect("completes");
    assert_eq!(answer, "orders in eu-west-1: true");
    assert_all(&served.versions(), Version::HTTP_2);
}

#[tokio::test]
async fn the_rounds_run_over_https_on_http1_when_the_server_offers_only_that() {
    let ca = TestCa::new("test CA");
    let served = tls::serve(server(), Some(ca.server_config(&[b"http/1.1"]))).await;
    let client = client(trusting(&served.url, &ca).connect().expect("connects"));
    let answer = provision_orders(&client).await.expect("completes");
    assert_eq!(answer, "orders in eu-west-1: true");
    assert_all(&served.versions(), Version::HTTP_11);
}

#[tokio::test]
async fn a_legacy_session_runs_over_https_and_http2() {
    let ca = TestCa::new("test CA");
    let served = tls::serve(server(), Some(ca.server_config(H2_AND_H1))).await;
    let client = client(trusting(&served.url, &ca).connect().expect("connects"));
    let init = client.initialize().await.expect("a 2025-11-25 session");
    assert_eq!(init.protocol_version, "2025-11-25");
    // The questions come on the call's SSE stream, the answers go back as POSTs, beside the
    // session's standing GET stream, all on one HTTP/2 connection.
    let answer = provision_orders(&client).await.expect("completes");
    assert_eq!(answer, "orders in eu-west-1: true");
    assert_all(&served.versions(), Version::HTTP_2);
}

#[tokio::test]
async fn http2_prior_knowledge_speaks_h2c_over_plain_http() {
    let served = tls::serve(server(), None).await;
    let duplex = Builder::new(&served.url)
        .no_proxy()
        .http2_prior_knowledge()
        .connect()
        .expect("connects");
    let answer = provision_orders(&client(duplex)).await.expect("completes");
    assert_eq!(answer, "orders in eu-west-1: true");
    assert_all(&served.versions(), Version::HTTP_2);
}

#[tokio::test]
async fn a_certificate_from_a_ca_the_client_does_not_trust_is_refused() {
    let (trusted, other) = (TestCa::new("trusted CA"), TestCa::new("other CA"));
    let served = tls::serve(server(), Some(other.server_config(H2_AND_H1))).await;
    let unaware = Builder::new(&served.url).no_proxy();
    for builder in [unaware, trusting(&served.url, &trusted)] {
        let client = client(builder.connect().expect("connects"));
        // Twice: a refused handshake fails the request, not the transport.
        for _ in 0..2 {
            let refused = provision_orders(&client).await.expect_err("refused");
            let text = refused.to_string();
            assert!(text.contains("invalid peer certificate"), "{text}");
            assert!(text.contains("UnknownIssuer"), "{text}");
        }
    }
    assert!(served.versions().is_empty(), "no request got through");
}

#[test]
fn bad_certificates_proxies_and_schemes_are_refused_with_their_reason() {
    let builder = || Builder::new("https://127.0.0.1:1/mcp");
    let no_pem = builder()
        .add_root_certificate_pem(b"not a certificate")
        .expect_err("no PEM block");
    assert!(
        matches!(no_pem, HttpClientError::Certificate(_)),
        "{no_pem}"
    );
    let not_der = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    let not_der = builder()
        .add_root_certificate_pem(not_der)
        .expect_err("not a certificate inside");
    assert!(
        matches!(not_der, HttpClientError::Certificate(_)),
        "{not_der}"
    );
    for proxy in [
        "socks5://127.0.0.1:1080",
        "https://127.0.0.1:3128",
        "not a url",
    ] {
        let refused = builder().proxy(proxy).expect_err("not an http:// proxy");
        assert!(
            matches!(refused, HttpClientError::Proxy { .. }),
            "{refused}"
        );
        assert!(refused.to_string().contains(proxy), "{refused}");
    }
    let scheme = Builder::new("ws://127.0.0.1:1/mcp")
        .connect()
        .expect_err("not HTTP");
    assert!(matches!(scheme, HttpClientError::Scheme(_)), "{scheme}");
}

/// `user:secret`, as `Proxy-Authorization: Basic` carries it.
const CREDENTIALS: &str = "Basic dXNlcjpzZWNyZXQ=";

#[tokio::test]
async fn https_goes_through_an_explicit_proxy_in_a_connect_tunnel() {
    let ca = TestCa::new("test CA");
    let served = tls::serve(server(), Some(ca.server_config(H2_AND_H1))).await;
    let proxy = proxy::start().await;
    let via = proxy.url.replace("http://", "http://user:secret@");
    let duplex = trusting(&served.url, &ca)
        .proxy(&via)
        .expect("a proxy URL")
        .connect()
        .expect("connects");
    let answer = provision_orders(&client(duplex)).await.expect("completes");
    assert_eq!(answer, "orders in eu-west-1: true");
    let authority = served.url.trim_start_matches("https://");
    let authority = authority.trim_end_matches("/mcp");
    let forwarded = proxy.forwarded();
    assert!(!forwarded.is_empty(), "nothing went through the proxy");
    for connection in forwarded {
        assert_eq!(
            connection.request_line,
            format!("CONNECT {authority} HTTP/1.1")
        );
        assert_eq!(connection.authorization.as_deref(), Some(CREDENTIALS));
    }
    // The TLS session runs end to end through the tunnel, ALPN included.
    assert_all(&served.versions(), Version::HTTP_2);
}

#[tokio::test]
async fn http_goes_through_an_explicit_proxy_in_absolute_form() {
    let served = tls::serve(server(), None).await;
    let proxy = proxy::start().await;
    let via = proxy.url.replace("http://", "http://user:secret@");
    let duplex = Builder::new(&served.url)
        .proxy(&via)
        .expect("a proxy URL")
        .connect()
        .expect("connects");
    let answer = provision_orders(&client(duplex)).await.expect("completes");
    assert_eq!(answer, "orders in eu-west-1: true");
    let forwarded = proxy.forwarded();
    assert!(!forwarded.is_empty(), "nothing went through the proxy");
    for connection in forwarded {
        assert_eq!(
            connection.request_line,
            format!("POST {} HTTP/1.1", served.url)
        );
        assert_eq!(connection.authorization.as_deref(), Some(CREDENTIALS));
    }
}

/// A loopback listener that never accepts, its accept queue full: the kernel drops further
/// SYNs, so a connection to it neither opens nor fails. The streams keep the queue full.
async fn never_accepting() -> (String, TcpListener, Vec<TcpStream>) {
    let socket = TcpSocket::new_v4().expect("a socket");
    socket
        .bind("127.0.0.1:0".parse().expect("address"))
        .expect("bind");
    let listener = socket.listen(1).expect("listen");
    let addr = listener.local_addr().expect("address");
    let mut queued = Vec::new();
    while let Ok(connected) = timeout(Duration::from_millis(200), TcpStream::connect(addr)).await {
        queued.push(connected.expect("queued"));
        assert!(queued.len() < 64, "the accept queue never filled");
    }
    (format!("http://{addr}/mcp"), listener, queued)
}

/// A loopback server that accepts connections and never says a word.
async fn silent() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    addr.to_string()
}

/// Asserts that `builder`'s first request fails with `reason`, soon: well within 5 s of a
/// timeout set at 300 ms, where no answer could ever come.
async fn gives_up(builder: Builder, reason: &str) {
    let client = client(builder.connect().expect("connects"));
    let started = Instant::now();
    let failed = timeout(Duration::from_secs(20), client.discover())
        .await
        .expect("the request gave up in time")
        .expect_err("no answer can come")
        .to_string();
    let took = started.elapsed();
    assert!(failed.contains(reason), "{failed}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[tokio::test]
async fn the_connect_timeout_gives_up_on_a_server_that_never_accepts() {
    let (url, _listener, _queued) = never_accepting().await;
    let builder = Builder::new(url)
        .no_proxy()
        .connect_timeout(Duration::from_millis(300));
    gives_up(builder, "connect timeout").await;
}

#[tokio::test]
async fn the_connect_timeout_covers_a_tls_handshake_that_never_ends() {
    let url = format!("https://{}/mcp", silent().await);
    let builder = Builder::new(url)
        .no_proxy()
        .connect_timeout(Duration::from_millis(300));
    gives_up(builder, "connect timeout").await;
}

#[tokio::test]
async fn the_request_timeout_gives_up_on_headers_that_never_come() {
    let url = format!("http://{}/mcp", silent().await);
    let builder = Builder::new(url)
        .no_proxy()
        .request_timeout(Duration::from_millis(300));
    gives_up(builder, "request timeout").await;
}

#[tokio::test]
async fn the_request_timeout_does_not_cut_a_stream_that_outlasts_it() {
    let ca = TestCa::new("test CA");
    let served = tls::serve(server(), Some(ca.server_config(H2_AND_H1))).await;
    let duplex = trusting(&served.url, &ca)
        .request_timeout(Duration::from_millis(300))
        .connect()
        .expect("connects");
    let client = client(duplex);
    // A progress token makes the server answer with an SSE stream, whose headers come at once.
    let params =
        json!({"name": "long", "arguments": {"ms": 1000}, "_meta": {"progressToken": "p"}});
    let result: Value = timeout(
        Duration::from_secs(20),
        client.request("tools/call", params),
    )
    .await
    .expect("answered in time")
    .expect("the stream ran past the request timeout");
    assert_eq!(result["content"][0]["text"], "finished");
}
