//! The Python SDK's client (`mcp==2.3.0`, in `.venv`, made by `scripts/python-venv.sh`)
//! writes its trace context into `params._meta`; our server's spans continue it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::trace::v1::span::SpanKind;

use crate::{WORLD, flush, hex, run, serve};

const TRACE_ID: &str = "5b8efff798038103d269b633813fc60c";
const SPAN_ID: &str = "eee19b7ec3c1b174";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_server_continues_the_python_clients_trace_in_every_round() {
    run(async {
        let venv = tokio::process::Command::new(root().join("scripts/python-venv.sh"))
            .status()
            .await
            .expect("run scripts/python-venv.sh");
        assert!(venv.success(), "scripts/python-venv.sh failed");
        let (url, _stop) = serve().await;
        let output = tokio::process::Command::new(root().join(".venv/bin/python"))
            .arg(root().join("scripts/python_client_traced.py"))
            .args([&url, TRACE_ID, SPAN_ID])
            .output()
            .await
            .expect("run the Python client");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(stdout.contains("result: py in eu-west-1"), "{stdout}");

        let deadline = Instant::now() + Duration::from_secs(20);
        let served = loop {
            flush().await;
            let served: Vec<_> = WORLD
                .receiver
                .spans()
                .into_iter()
                .filter(|span| span.trace_id == hex(TRACE_ID) && span.name == "tools/call place")
                .collect();
            if served.len() >= 2 {
                break served;
            }
            assert!(
                Instant::now() < deadline,
                "{} rounds continued the Python trace",
                served.len()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert_eq!(served.len(), 2, "both rounds, no more");
        for span in &served {
            assert_eq!(span.kind, SpanKind::Server as i32);
            assert_eq!(
                span.parent_span_id,
                hex(SPAN_ID),
                "the Python caller is the parent"
            );
        }
    });
}
