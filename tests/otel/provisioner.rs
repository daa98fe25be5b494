//! `examples/provisioner.rs` built with `--features otel` (`scripts/otel_check.sh` builds it
//! so, as a test run does not build examples for `--test otel` alone): started
//! with `OTEL_EXPORTER_OTLP_ENDPOINT`, it exports its spans and metrics to the receiver as
//! service `provisioner`, and continues the trace our client sends in `_meta`.

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp::client::Client;
use mcp::protocol::{ElicitParams, ElicitResult, Implementation};
use mcp::transport::http_client;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use serde_json::json;

use crate::receiver::attribute;
use crate::{WORLD, flush, run};

/// The example binary cargo built beside this test.
fn example(name: &str) -> std::path::PathBuf {
    let mut dir = std::env::current_exe().expect("test binary path");
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join("examples").join(name)
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}

#[test]
fn the_provisioner_exports_its_spans_and_continues_the_clients_trace() {
    run(async {
        let addr = format!("127.0.0.1:{}", free_port());
        let mut child = Killed(
            Command::new(example("provisioner"))
                .args(["--http", &addr])
                .env("OTEL_EXPORTER_OTLP_ENDPOINT", &WORLD.receiver.base)
                .env_remove("OTEL_SERVICE_NAME")
                // Export within a test's patience rather than every 5 s and 60 s.
                .env("OTEL_BSP_SCHEDULE_DELAY", "100")
                .env("OTEL_METRIC_EXPORT_INTERVAL", "200")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("the provisioner, built with --features otel"),
        );
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(&addr).is_err() {
            assert!(child.0.try_wait().expect("poll").is_none(), "it exited");
            assert!(Instant::now() < deadline, "it never listened on {addr}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }

        let client = Client::builder(Implementation::new("otel-client", "1.0.0"))
            .on_elicit(|params: ElicitParams| async move {
                let answer = if params.message().starts_with("Which region") {
                    json!({"region": "eu-west-1"})
                } else {
                    json!({"confirm": true})
                };
                Ok(ElicitResult::accept(
                    answer.as_object().cloned().unwrap_or_default(),
                ))
            })
            .connect(http_client::connect(&format!("http://{addr}/mcp")).expect("a URL"));
        let result = client
            .call_tool("provision", Some(json!({"name": "orders"})))
            .await
            .expect("the result");
        assert_eq!(result.is_error, None, "{result:?}");

        // Three rounds: the region, the confirmation, the result.
        let (ours, theirs) = loop {
            flush().await;
            let theirs = WORLD.receiver.spans_of("provisioner");
            let ours: Vec<_> = WORLD
                .receiver
                .spans_of("otel-tests")
                .into_iter()
                .filter(|span| span.name == "tools/call provision")
                .collect();
            let served = theirs
                .iter()
                .filter(|span| span.name == "tools/call provision")
                .count();
            if served >= 3 && ours.len() >= 4 {
                break (ours, theirs);
            }
            assert!(
                Instant::now() < deadline + Duration::from_secs(20),
                "{served} served spans of the provisioner, {} of ours",
                ours.len()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let call = ours
            .iter()
            .find(|span| span.kind == SpanKind::Internal as i32)
            .expect("the call's span");
        for served in theirs
            .iter()
            .filter(|span| span.name == "tools/call provision")
        {
            assert_eq!(served.kind, SpanKind::Server as i32);
            assert_eq!(
                served.trace_id, call.trace_id,
                "the provisioner continued our trace"
            );
            let round = ours
                .iter()
                .find(|round| round.span_id == served.parent_span_id)
                .expect("a round of ours is its parent");
            assert_eq!(round.kind, SpanKind::Client as i32);
            assert_eq!(
                attribute(&served.attributes, "gen_ai.tool.name"),
                Some("provision")
            );
        }

        let deadline = Instant::now() + Duration::from_secs(20);
        while !WORLD
            .receiver
            .histogram_points_of("provisioner", "mcp.server.operation.duration")
            .iter()
            .any(|point| attribute(&point.attributes, "gen_ai.tool.name") == Some("provision"))
        {
            assert!(
                Instant::now() < deadline,
                "no duration from the provisioner"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
}
