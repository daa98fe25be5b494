//! A full two-round exchange over Streamable HTTP on loopback, client and server in one
//! process: `tools/call` → `InputRequiredResult` (one form question, sealed state) → the retry
//! with the answer → the result. Measures what a user of `Client::call_tool` waits: over plain
//! HTTP/1.1 (the server's own `serve`), and with feature `tls` over HTTPS on HTTP/2 and on
//! HTTP/1.1 (a CA made at start; the tests' TLS server, hyper-util's on the same router).
//!
//! Built with feature `otel`, both ends trace and time every request, as an application that
//! installs `mcp::telemetry::Telemetry` does: the spans go out in batches, the metrics every
//! 60 s, over OTLP/HTTP to a receiver in the same process that drops them.

use criterion::{Criterion, criterion_group, criterion_main};
use mcp::client::Client;
use mcp::protocol::{ElicitResult, Implementation};
use mcp::server::Server;
use mcp::transport::Duplex;
use mcp::transport::http::HttpTransport;
use mcp::transport::http_client;
use mcp::{Elicit, McpServer};
use serde_json::json;
use tokio::runtime::Runtime;

#[cfg(feature = "tls")]
#[path = "../tests/it/support/tls.rs"]
mod tls;
#[cfg(feature = "tls")]
use mcp::transport::http::axum::http::Version;

/// Which region?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Region {
    region: String,
}

#[mcp::tool]
async fn provision(name: String, region: Elicit<Region>) -> String {
    format!("Provisioned '{name}' in {}.", region.region)
}

fn server() -> Server {
    McpServer::new("bench")
        .tools(mcp::tools![provision])
        .build()
        .expect("server")
}

fn client(duplex: Duplex) -> Client {
    Client::builder(Implementation::new("bench", "1"))
        .on_elicit(|_| async {
            let content = json!({"region": "eu-west-1"});
            Ok(ElicitResult::accept(
                content.as_object().cloned().unwrap_or_default(),
            ))
        })
        .connect(duplex)
}

/// Measures `client`'s exchanges as `name`, after checking one.
fn measure(c: &mut Criterion, runtime: &Runtime, name: &str, client: &Client) {
    let args = json!({"name": "orders"});
    let done = runtime
        .block_on(client.call_tool("provision", Some(args.clone())))
        .expect("completes");
    assert_eq!(
        done.content[0].as_text(),
        Some("Provisioned 'orders' in eu-west-1.")
    );
    c.bench_function(name, |b| {
        b.iter(|| {
            runtime
                .block_on(client.call_tool("provision", Some(args.clone())))
                .expect("completes")
        })
    });
}

fn exchange(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    #[cfg(feature = "otel")]
    let _telemetry = runtime.block_on(exporting());
    let plain = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
        tokio::spawn(async move {
            HttpTransport::new(server())
                .serve(listener, std::future::pending())
                .await
        });
        client(http_client::connect(&url).expect("url"))
    });
    measure(c, &runtime, "http_two_round_exchange", &plain);

    #[cfg(feature = "tls")]
    for (name, alpn, version) in [
        (
            "https_h2_two_round_exchange",
            &[&b"h2"[..], b"http/1.1"][..],
            Version::HTTP_2,
        ),
        (
            "https_http1_two_round_exchange",
            &[&b"http/1.1"[..]][..],
            Version::HTTP_11,
        ),
    ] {
        let ca = tls::TestCa::new("bench CA");
        let served = runtime.block_on(tls::serve(server(), Some(ca.server_config(alpn))));
        let secure = runtime.block_on(async {
            let duplex = http_client::Builder::new(&served.url)
                .no_proxy()
                .add_root_certificate_pem(ca.pem.as_bytes())
                .expect("a CA")
                .connect()
                .expect("url");
            client(duplex)
        });
        measure(c, &runtime, name, &secure);
        let versions = served.versions();
        assert!(
            versions.iter().all(|v| *v == version),
            "{name}: {versions:?}"
        );
    }
}

/// Installs the telemetry and the `tracing` subscriber that feeds it, exporting to a
/// receiver on loopback that answers every export with an empty success.
#[cfg(feature = "otel")]
async fn exporting() -> mcp::telemetry::Telemetry {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let drop_it = axum::routing::post(|_: axum::body::Bytes| async {
        (
            [("content-type", "application/x-protobuf")],
            Vec::<u8>::new(),
        )
    });
    let receiver = axum::Router::new()
        .route("/v1/traces", drop_it.clone())
        .route("/v1/metrics", drop_it);
    tokio::spawn(async move { axum::serve(listener, receiver).await });
    let telemetry = mcp::telemetry::Telemetry::builder("bench")
        .endpoint(base)
        .install()
        .expect("the telemetry");
    tracing_subscriber::registry()
        .with(telemetry.layer())
        .with(tracing_subscriber::EnvFilter::new("info"))
        .init();
    telemetry
}

criterion_group!(benches, exchange);
criterion_main!(benches);
