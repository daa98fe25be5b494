//! A full two-round exchange over Streamable HTTP on loopback, client and server in one
//! process: `tools/call` → `InputRequiredResult` (one form question, sealed state) → the retry
//! with the answer → the result. Measures what a user of `Client::call_tool` waits.

use criterion::{Criterion, criterion_group, criterion_main};
use mcp::client::Client;
use mcp::protocol::{ElicitResult, Implementation};
use mcp::transport::http::HttpTransport;
use mcp::transport::http_client;
use mcp::{Elicit, McpServer};
use serde_json::json;

/// Which region?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Region {
    region: String,
}

#[mcp::tool]
async fn provision(name: String, region: Elicit<Region>) -> String {
    format!("Provisioned '{name}' in {}.", region.region)
}

fn exchange(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let client = runtime.block_on(async {
        let server = McpServer::new("bench")
            .tools(mcp::tools![provision])
            .build()
            .expect("server");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
        tokio::spawn(async move {
            HttpTransport::new(server)
                .serve(listener, std::future::pending())
                .await
        });
        let duplex = http_client::connect(&url).expect("url");
        Client::builder(Implementation::new("bench", "1"))
            .on_elicit(|_| async {
                let content = json!({"region": "eu-west-1"});
                Ok(ElicitResult::accept(
                    content.as_object().cloned().unwrap_or_default(),
                ))
            })
            .connect(duplex)
    });
    let args = json!({"name": "orders"});
    let done = runtime
        .block_on(client.call_tool("provision", Some(args.clone())))
        .expect("completes");
    assert_eq!(
        done.content[0].as_text(),
        Some("Provisioned 'orders' in eu-west-1.")
    );
    c.bench_function("http_two_round_exchange", |b| {
        b.iter(|| {
            runtime
                .block_on(client.call_tool("provision", Some(args.clone())))
                .expect("completes")
        })
    });
}

criterion_group!(benches, exchange);
criterion_main!(benches);
