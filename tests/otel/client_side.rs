//! The client's side of the conventions: its spans and durations name the server it talks to
//! (`server.address`, `server.port`), the transport, the 2025-11-25 session and the revision;
//! and a session it held is timed in `mcp.client.session.duration` when it lets it go.

use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::trace::v1::span::SpanKind;

use crate::receiver::{attribute, int_attribute};
use mcp::client::Client;
use mcp::protocol::Implementation;

use crate::{WORLD, client, flush, kind, run, serve, server, text, trace_of};

/// The port of a `http://127.0.0.1:port/mcp` URL.
fn port_of(url: &str) -> i64 {
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let port = address.rsplit(':').next().expect("a port");
    port.parse().expect("a port number")
}

#[test]
fn a_clients_spans_and_durations_name_its_server_and_session() {
    run(async {
        let (url, _stop) = serve().await;
        let port = port_of(&url);
        let client = client(&url);
        client.initialize().await.expect("a 2025-11-25 session");
        client
            .call_tool("ping_client", None)
            .await
            .expect("a result");

        let trace = trace_of("tools/call ping_client", 2).await;
        let server = trace
            .iter()
            .find(|span| kind(span) == SpanKind::Server)
            .expect("the server's span");
        let ours = trace
            .iter()
            .find(|span| kind(span) == SpanKind::Client)
            .expect("the client's span");
        assert_eq!(text(ours, "network.transport").as_deref(), Some("tcp"));
        assert_eq!(text(ours, "server.address").as_deref(), Some("127.0.0.1"));
        assert_eq!(int_attribute(&ours.attributes, "server.port"), Some(port));
        assert_eq!(
            text(ours, "mcp.protocol.version").as_deref(),
            Some("2025-11-25")
        );
        let session = text(server, "mcp.session.id").expect("the server's session id");
        assert_eq!(
            text(ours, "mcp.session.id"),
            Some(session),
            "the client names the session the server served"
        );

        flush().await;
        let points = WORLD
            .receiver
            .histogram_points("mcp.client.operation.duration");
        let point = points
            .iter()
            .find(|point| attribute(&point.attributes, "gen_ai.tool.name") == Some("ping_client"))
            .expect("the call's duration");
        let attributes = &point.attributes;
        assert_eq!(attribute(attributes, "network.transport"), Some("tcp"));
        assert_eq!(attribute(attributes, "server.address"), Some("127.0.0.1"));
        assert_eq!(int_attribute(attributes, "server.port"), Some(port));
        assert_eq!(
            attribute(attributes, "mcp.protocol.version"),
            Some("2025-11-25")
        );
        assert_eq!(
            attribute(attributes, "mcp.session.id"),
            None,
            "a session id would make a series per session"
        );

        assert_eq!(client_sessions(port), 0, "the session is still open");
        drop(client);
        let deadline = Instant::now() + Duration::from_secs(20);
        while client_sessions(port) == 0 {
            assert!(Instant::now() < deadline, "no client session duration");
            flush().await;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let points = WORLD
            .receiver
            .histogram_points("mcp.client.session.duration");
        let point = points
            .iter()
            .find(|point| int_attribute(&point.attributes, "server.port") == Some(port))
            .expect("the session's duration");
        assert_eq!(
            attribute(&point.attributes, "mcp.protocol.version"),
            Some("2025-11-25")
        );
        assert_eq!(
            attribute(&point.attributes, "network.protocol.name"),
            Some("http")
        );
        assert_eq!(
            attribute(&point.attributes, "server.address"),
            Some("127.0.0.1")
        );
    });
}

#[test]
fn a_client_over_a_pipe_says_so_and_names_no_server_address() {
    run(async {
        let client = Client::builder(Implementation::new("otel-client", "1.0.0"))
            .connect(server().serve_in_memory());
        client.call_tool("ping_pipe", None).await.expect("a result");

        let trace = trace_of("tools/call ping_pipe", 2).await;
        for span in &trace {
            if kind(span) == SpanKind::Internal {
                continue;
            }
            assert_eq!(text(span, "network.transport").as_deref(), Some("pipe"));
            assert_eq!(text(span, "server.address"), None);
            assert_eq!(int_attribute(&span.attributes, "server.port"), None);
        }
    });
}

/// How many client sessions with the server on `port` the latest export says have ended.
fn client_sessions(port: i64) -> u64 {
    WORLD
        .receiver
        .histogram_points("mcp.client.session.duration")
        .iter()
        .filter(|point| int_attribute(&point.attributes, "server.port") == Some(port))
        .map(|point| point.count)
        .max()
        .unwrap_or(0)
}
