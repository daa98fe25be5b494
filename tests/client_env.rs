//! The HTTP client as the process's environment configures it: proxies from `HTTPS_PROXY`,
//! lower-case `http_proxy` and `NO_PROXY` (and the builder's `no_proxy()` over them), and a
//! system without CA certificates (`SSL_CERT_FILE` naming an empty file, no `SSL_CERT_DIR`),
//! where plain `http://` still works and `https://` fails with the reason. A binary of its own
//! because the variables are the process's: its one test sets them before anything else of it
//! runs, where the `it` binary's tests run side by side.

// Shared with `tests/it`, which uses all of it; this binary starts its proxy with `start_on`.
#[allow(dead_code)]
#[path = "it/support/proxy.rs"]
mod proxy;
#[path = "it/support/tls.rs"]
mod tls;

use std::time::Duration;

use mcp::McpServer;
use mcp::client::Client;
use mcp::protocol::Implementation;
use mcp::server::Server;
use mcp::transport::http_client::{self, Builder};
use serde_json::json;

#[mcp::tool]
async fn echo(text: String) -> String {
    text
}

fn server() -> Server {
    McpServer::new("proxy-env")
        .tools(mcp::tools![echo])
        .build()
        .expect("valid server")
}

/// Calls `echo` over `builder`'s connection.
async fn echo_over(builder: Builder) {
    let client = Client::builder(Implementation::new("proxy-env", "1"))
        .connect(builder.connect().expect("connects"));
    let call = client.call_tool("echo", Some(json!({"text": "hi"})));
    let result = tokio::time::timeout(Duration::from_secs(20), call)
        .await
        .expect("answered in time")
        .expect("completes");
    assert_eq!(result.content[0].as_text(), Some("hi"));
}

#[test]
fn proxies_and_certificate_roots_come_from_the_environment() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let proxy_url = format!("http://{}", listener.local_addr().expect("address"));
    let no_certificates =
        std::env::temp_dir().join(format!("mcp-no-ca-{}.pem", std::process::id()));
    std::fs::write(&no_certificates, "").expect("an empty CA file");
    // SAFETY: this binary's only test, and nothing of it runs yet besides this thread, so no
    // other thread reads the environment meanwhile.
    unsafe {
        std::env::set_var("HTTPS_PROXY", &proxy_url);
        std::env::set_var("http_proxy", &proxy_url);
        std::env::set_var("NO_PROXY", "localhost");
        std::env::set_var("SSL_CERT_FILE", &no_certificates);
        std::env::remove_var("SSL_CERT_DIR");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        listener.set_nonblocking(true).expect("non-blocking");
        let listener = tokio::net::TcpListener::from_std(listener).expect("a Tokio listener");
        let proxy = proxy::start_on(listener);
        let ca = tls::TestCa::new("env CA");
        let secure = tls::serve(server(), Some(ca.server_config(&[b"h2", b"http/1.1"]))).await;
        let plain = tls::serve(server(), None).await;
        let trusting = |url: &str| {
            Builder::new(url)
                .add_root_certificate_pem(ca.pem.as_bytes())
                .expect("a CA certificate")
        };
        let lines = || -> Vec<String> {
            proxy
                .forwarded()
                .into_iter()
                .map(|f| f.request_line)
                .collect()
        };

        // https://127.0.0.1: HTTPS_PROXY, a tunnel.
        echo_over(trusting(&secure.url)).await;
        let authority = secure
            .url
            .trim_start_matches("https://")
            .trim_end_matches("/mcp");
        let tunnels = lines();
        assert!(!tunnels.is_empty(), "HTTPS_PROXY was not used");
        assert!(
            tunnels
                .iter()
                .all(|l| *l == format!("CONNECT {authority} HTTP/1.1")),
            "{tunnels:?}"
        );

        // http://127.0.0.1 through `connect`, the builder's defaults: http_proxy, absolute form.
        let client = Client::builder(Implementation::new("proxy-env", "1"))
            .connect(http_client::connect(&plain.url).expect("connects"));
        client
            .call_tool("echo", Some(json!({"text": "hi"})))
            .await
            .expect("completes");
        let forwarded = lines();
        assert!(forwarded.len() > tunnels.len(), "http_proxy was not used");
        let absolute = format!("POST {} HTTP/1.1", plain.url);
        assert!(
            forwarded[tunnels.len()..].iter().all(|l| *l == absolute),
            "{forwarded:?}"
        );

        // https://localhost: NO_PROXY, directly.
        echo_over(trusting(&secure.url.replace("127.0.0.1", "localhost"))).await;
        assert_eq!(lines(), forwarded, "NO_PROXY was not honoured");

        // no_proxy() over HTTPS_PROXY: directly.
        echo_over(trusting(&secure.url).no_proxy()).await;
        assert_eq!(lines(), forwarded, "no_proxy() was not honoured");
        assert!(!secure.versions().is_empty());

        // No system roots and no CA added: https fails at the handshake, saying why.
        let client = Client::builder(Implementation::new("proxy-env", "1")).connect(
            Builder::new(&secure.url)
                .no_proxy()
                .connect()
                .expect("connects"),
        );
        let refused = client
            .call_tool("echo", Some(json!({"text": "hi"})))
            .await
            .expect_err("nothing to trust the server with");
        assert!(
            refused.to_string().contains("No CA certificates"),
            "{refused}"
        );
    });
    let _ = std::fs::remove_file(no_certificates);
}
