//! Traces and metrics by the OpenTelemetry conventions for MCP, exported over OTLP/HTTP to a
//! receiver these tests start, from our client and our server talking over HTTP.
//!
//! A binary of its own: it installs the process's global tracer and meter providers and its
//! `tracing` subscriber once, on one runtime every test shares (the exporters' requests run
//! on it). Tests run concurrently, so each calls tools of its own and looks only at their
//! spans.

mod client_side;
mod prometheus;
mod provisioner;
mod python_client;
mod receiver;

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use mcp::client::Client;
use mcp::protocol::{CallToolResult, ElicitParams, ElicitResult, Implementation};
use mcp::telemetry::{Prometheus, Telemetry};
use mcp::transport::http::HttpTransport;
use mcp::transport::http_client;
use mcp::{Elicit, McpServer};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::{Span, status::StatusCode};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

use receiver::{Receiver, attribute};

struct World {
    runtime: tokio::runtime::Runtime,
    receiver: Receiver,
    telemetry: Telemetry,
    /// The same metrics, scraped.
    scrape: Prometheus,
}

static WORLD: LazyLock<World> = LazyLock::new(|| {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let receiver = runtime.block_on(Receiver::start());
    let scrape = Prometheus::new();
    let telemetry = {
        let _entered = runtime.enter();
        Telemetry::builder("otel-tests")
            .endpoint(&receiver.base)
            // Exported when a test flushes, not on a timer.
            .metric_interval(Duration::from_secs(3600))
            .prometheus(&scrape)
            .install()
            .expect("the telemetry")
    };
    tracing_subscriber::registry()
        .with(telemetry.layer())
        .init();
    World {
        runtime,
        receiver,
        telemetry,
        scrape,
    }
});

/// Runs a test's body on the shared runtime.
fn run<F: Future<Output = ()>>(test: F) {
    WORLD.runtime.block_on(test);
}

/// Exports everything now (from a blocking thread: the exports need the runtime's workers).
async fn flush() {
    tokio::task::spawn_blocking(|| WORLD.telemetry.flush())
        .await
        .expect("flushed");
}

/// The spans named `name` and every span of their traces, once `count` spans of those traces
/// have arrived (polling: the exporter batches).
async fn trace_of(name: &str, count: usize) -> Vec<Span> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        flush().await;
        let spans = WORLD.receiver.spans();
        let traces: Vec<Vec<u8>> = spans
            .iter()
            .filter(|span| span.name == name)
            .map(|span| span.trace_id.clone())
            .collect();
        let trace: Vec<Span> = spans
            .into_iter()
            .filter(|span| traces.contains(&span.trace_id))
            .collect();
        if trace.len() >= count {
            return trace;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {count} spans of {name:?} arrived",
            trace.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn text(span: &Span, key: &str) -> Option<String> {
    attribute(&span.attributes, key).map(str::to_owned)
}

fn kind(span: &Span) -> SpanKind {
    SpanKind::try_from(span.kind).expect("a span kind")
}

/// Which region?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Region {
    region: String,
}

/// Asks for a region, so a call takes two rounds.
#[mcp::tool]
async fn deploy(name: String, region: Elicit<Region>) -> String {
    format!("{name} in {}", region.region)
}

/// `deploy` again, for the Python client's test: each test's spans carry names of its own.
#[mcp::tool]
async fn place(name: String, region: Elicit<Region>) -> String {
    format!("{name} in {}", region.region)
}

/// `deploy` again, for the test of a client that cannot answer its question.
#[mcp::tool]
async fn deploy_unasked(name: String, region: Elicit<Region>) -> String {
    format!("{name} in {}", region.region)
}

/// Fails as a tool: a JSON-RPC success with `isError`.
#[mcp::tool]
async fn broken() -> CallToolResult {
    CallToolResult::error("the disk is full")
}

/// Answers at once.
#[mcp::tool]
async fn ping_back() -> String {
    "pong".to_owned()
}

/// `ping_back` again, for the session's test.
#[mcp::tool]
async fn ping_session() -> String {
    "pong".to_owned()
}

/// `ping_back` again, for the foreign client's test.
#[mcp::tool]
async fn ping_foreign() -> String {
    "pong".to_owned()
}

/// Answers at once, for the scrape's test.
#[mcp::tool]
async fn prom_ping() -> String {
    "pong".to_owned()
}

/// Fails as a tool, for the scrape's test.
#[mcp::tool]
async fn prom_broken() -> CallToolResult {
    CallToolResult::error("the disk is full")
}

/// Answers at once, for the test of the client's attributes.
#[mcp::tool]
async fn ping_client() -> String {
    "pong".to_owned()
}

/// Answers at once, for the test of a client over a pipe.
#[mcp::tool]
async fn ping_pipe() -> String {
    "pong".to_owned()
}

/// Takes longer than any caller here waits.
#[mcp::tool]
async fn sleepy() -> String {
    tokio::time::sleep(Duration::from_secs(60)).await;
    "late".to_owned()
}

/// The tests' server, built.
fn server() -> mcp::server::Server {
    McpServer::new("otel-server")
        .tools(mcp::tools![
            deploy,
            deploy_unasked,
            place,
            broken,
            ping_back,
            ping_session,
            ping_foreign,
            prom_ping,
            prom_broken,
            ping_client,
            ping_pipe,
            sleepy
        ])
        .build()
        .expect("a server")
}

async fn serve() -> (String, tokio_util::sync::DropGuard) {
    serve_with(|transport| transport).await
}

/// Serves the tests' server over HTTP, its transport set up by `setup`.
async fn serve_with(
    setup: impl FnOnce(HttpTransport) -> HttpTransport,
) -> (String, tokio_util::sync::DropGuard) {
    let server = server();
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    let stop = tokio_util::sync::CancellationToken::new();
    let shutdown = stop.clone().cancelled_owned();
    let transport = setup(HttpTransport::new(server));
    tokio::spawn(async move { transport.serve(listener, shutdown).await });
    (url, stop.drop_guard())
}

fn client(url: &str) -> Client {
    Client::builder(Implementation::new("otel-client", "1.0.0"))
        .on_elicit(|_: ElicitParams| async {
            let answer = json!({"region": "eu-west-1"});
            Ok(ElicitResult::accept(
                answer.as_object().cloned().unwrap_or_default(),
            ))
        })
        .connect(http_client::connect(url).expect("a URL"))
}

#[test]
fn a_two_round_call_over_http_is_one_trace_from_client_to_server() {
    run(async {
        let (url, _stop) = serve().await;
        let result = client(&url)
            .call_tool("deploy", Some(json!({"name": "db"})))
            .await
            .expect("the result");
        assert_eq!(result.is_error, None);

        // The call, its two rounds on the client, and the server's span of each round.
        let trace = trace_of("tools/call deploy", 5).await;
        assert_eq!(trace.len(), 5, "one trace, nothing else in it: {trace:#?}");
        let by_kind = |wanted: SpanKind| -> Vec<&Span> {
            trace.iter().filter(|span| kind(span) == wanted).collect()
        };
        let calls = by_kind(SpanKind::Internal);
        let rounds = by_kind(SpanKind::Client);
        let served = by_kind(SpanKind::Server);
        assert_eq!((calls.len(), rounds.len(), served.len()), (1, 2, 2));
        let call = calls[0];
        assert!(
            call.parent_span_id.is_empty(),
            "the call is the trace's root"
        );

        for round in &rounds {
            assert_eq!(round.name, "tools/call deploy");
            assert_eq!(
                round.parent_span_id, call.span_id,
                "each round is the call's"
            );
            assert_eq!(
                text(round, "mcp.method.name").as_deref(),
                Some("tools/call")
            );
            assert_eq!(text(round, "gen_ai.tool.name").as_deref(), Some("deploy"));
            assert_eq!(
                text(round, "mcp.protocol.version").as_deref(),
                Some("2026-07-28")
            );
            assert!(text(round, "error.type").is_none());
        }
        let client_ids: Vec<Option<String>> = rounds
            .iter()
            .map(|round| text(round, "jsonrpc.request.id"))
            .collect();
        assert!(client_ids.iter().all(Option::is_some), "{client_ids:?}");
        assert_ne!(client_ids[0], client_ids[1], "every round has its own id");

        for span in &served {
            assert_eq!(span.name, "tools/call deploy");
            let round = rounds
                .iter()
                .find(|round| round.span_id == span.parent_span_id)
                .expect("each server span continues a round's context from _meta");
            assert_eq!(
                text(span, "jsonrpc.request.id"),
                text(round, "jsonrpc.request.id"),
                "the server saw the id the client sent"
            );
            assert_eq!(text(span, "mcp.method.name").as_deref(), Some("tools/call"));
            assert_eq!(text(span, "gen_ai.tool.name").as_deref(), Some("deploy"));
            assert_eq!(
                text(span, "gen_ai.operation.name").as_deref(),
                Some("execute_tool")
            );
            assert_eq!(
                text(span, "mcp.protocol.version").as_deref(),
                Some("2026-07-28")
            );
            assert_eq!(text(span, "network.transport").as_deref(), Some("tcp"));
            assert!(text(span, "error.type").is_none());
            assert!(
                text(span, "mcp.session.id").is_none(),
                "2026 has no sessions"
            );
        }
    });
}

#[test]
fn a_tool_error_is_an_error_type_in_spans_and_in_the_durations() {
    run(async {
        let (url, _stop) = serve().await;
        let client = client(&url);
        client.initialize().await.expect("a 2025-11-25 session");
        let result = client.call_tool("broken", None).await.expect("a result");
        assert_eq!(result.is_error, Some(true));

        let trace = trace_of("tools/call broken", 2).await;
        let server = trace
            .iter()
            .find(|span| kind(span) == SpanKind::Server)
            .expect("the server's span");
        let client_span = trace
            .iter()
            .find(|span| kind(span) == SpanKind::Client)
            .expect("the client's span");
        for span in [server, client_span] {
            assert_eq!(text(span, "error.type").as_deref(), Some("tool_error"));
            let status = span.status.as_ref().expect("a status");
            assert_eq!(status.code, StatusCode::Error as i32);
            assert_eq!(
                text(span, "mcp.protocol.version").as_deref(),
                Some("2025-11-25")
            );
        }
        assert_eq!(server.parent_span_id, client_span.span_id);
        let session = text(server, "mcp.session.id").expect("the session's id");
        assert!(!session.is_empty());

        for metric in [
            "mcp.server.operation.duration",
            "mcp.client.operation.duration",
        ] {
            let points = WORLD.receiver.histogram_points(metric);
            let failed = points
                .iter()
                .filter(|point| {
                    attribute(&point.attributes, "gen_ai.tool.name") == Some("broken")
                        && attribute(&point.attributes, "error.type") == Some("tool_error")
                })
                .map(|point| point.count)
                .max();
            assert!(failed >= Some(1), "{metric}: {points:#?}");
            let point = points
                .iter()
                .find(|point| attribute(&point.attributes, "gen_ai.tool.name") == Some("broken"))
                .expect("a point");
            assert_eq!(
                point.explicit_bounds,
                [
                    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0
                ],
                "the conventions' buckets"
            );
        }
    });
}

#[test]
fn a_forged_request_state_is_counted_and_its_code_recorded() {
    run(async {
        let (url, _stop) = serve().await;
        let client = client(&url);
        let refused = client
            .call_tool_once("ping_back", None, None, Some("forged".to_owned()))
            .await;
        assert!(refused.is_err(), "{refused:?}");

        let trace = trace_of("tools/call ping_back", 2).await;
        let server = trace
            .iter()
            .find(|span| kind(span) == SpanKind::Server)
            .expect("the server's span");
        assert_eq!(text(server, "error.type").as_deref(), Some("-32602"));
        assert_eq!(
            text(server, "rpc.response.status_code").as_deref(),
            Some("-32602")
        );
        let status = server.status.as_ref().expect("a status");
        assert_eq!(status.message, "Invalid or expired requestState");

        assert!(
            WORLD
                .receiver
                .count_of("mcp.server.request_state.rejected", "tools/call")
                >= 1
        );
    });
}

#[test]
fn a_question_the_client_cannot_answer_is_counted_as_a_refused_capability() {
    run(async {
        let (url, _stop) = serve().await;
        // No elicitation handler: the client does not declare the capability the tool needs.
        let client = Client::builder(Implementation::new("otel-client", "1.0.0"))
            .connect(http_client::connect(&url).expect("a URL"));
        let refused = client
            .call_tool("deploy_unasked", Some(json!({"name": "orders"})))
            .await;
        assert!(refused.is_err(), "{refused:?}");

        let trace = trace_of("tools/call deploy_unasked", 3).await;
        let server = trace
            .iter()
            .find(|span| kind(span) == SpanKind::Server)
            .expect("the server's span");
        assert_eq!(text(server, "error.type").as_deref(), Some("-32021"));

        assert!(
            WORLD
                .receiver
                .count_of("mcp.server.capability.refused", "tools/call")
                >= 1
        );
    });
}

#[test]
fn the_server_continues_a_traceparent_any_client_sends_in_meta() {
    run(async {
        let (url, _stop) = serve().await;
        // A client of another SDK: its own trace, written into `_meta` by hand.
        let client = client(&url);
        let params = json!({
            "name": "ping_foreign",
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "other", "version": "1"},
                "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                "tracestate": "vendor=opaque",
            }
        });
        let result: Value = client
            .request_raw("tools/call", &params)
            .await
            .expect("a result");
        assert_eq!(result["content"][0]["text"], "pong");

        let deadline = Instant::now() + Duration::from_secs(20);
        let trace_id = hex("0af7651916cd43dd8448eb211c80319c");
        let server = loop {
            flush().await;
            let found = WORLD
                .receiver
                .spans()
                .into_iter()
                .find(|span| span.trace_id == trace_id);
            if let Some(span) = found {
                break span;
            }
            assert!(Instant::now() < deadline, "no span continued the trace");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert_eq!(kind(&server), SpanKind::Server);
        assert_eq!(server.name, "tools/call ping_foreign");
        assert_eq!(server.parent_span_id, hex("b7ad6b7169203331"));
        assert_eq!(server.trace_state, "vendor=opaque");
    });
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn a_closed_session_records_its_duration() {
    run(async {
        let (url, _stop) = serve().await;
        let client = client(&url);
        client.initialize().await.expect("a 2025-11-25 session");
        client
            .call_tool("ping_session", None)
            .await
            .expect("a result");
        let trace = trace_of("tools/call ping_session", 2).await;
        let session = trace
            .iter()
            .filter(|span| kind(span) == SpanKind::Server)
            .find_map(|span| text(span, "mcp.session.id"))
            .expect("the session's id");
        let before = session_durations();

        // The client ends the session as the transport says, with a DELETE.
        let address = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned();
        let mut stream = tokio::net::TcpStream::connect(&address)
            .await
            .expect("connect");
        let request = format!(
            "DELETE /mcp HTTP/1.1\r\nHost: {address}\r\nMcp-Session-Id: {session}\r\n\
             MCP-Protocol-Version: 2025-11-25\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        tokio::io::AsyncWriteExt::write_all(&mut stream, request.as_bytes())
            .await
            .expect("send");
        let mut answer = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut stream, &mut answer)
            .await
            .expect("read");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

        let deadline = Instant::now() + Duration::from_secs(20);
        while session_durations() <= before {
            assert!(Instant::now() < deadline, "no session duration recorded");
            flush().await;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
}

/// How many 2025-11-25 sessions the latest export says have ended.
fn session_durations() -> u64 {
    WORLD
        .receiver
        .histogram_points("mcp.server.session.duration")
        .iter()
        .filter(|point| attribute(&point.attributes, "mcp.protocol.version") == Some("2025-11-25"))
        .filter(|point| attribute(&point.attributes, "network.protocol.name") == Some("http"))
        .map(|point| point.count)
        .max()
        .unwrap_or(0)
}

#[test]
fn a_call_given_up_ends_its_spans_as_timed_out_and_cancelled() {
    run(async {
        let (url, _stop) = serve().await;
        let client = Client::builder(Implementation::new("otel-client", "1.0.0"))
            .call_timeout(Duration::from_millis(300))
            .connect(http_client::connect(&url).expect("a URL"));
        let gave_up = client.call_tool("sleepy", None).await;
        assert!(gave_up.is_err(), "{gave_up:?}");

        // The call, its round, and the server's span, which ends when the client's
        // cancellation reaches it.
        let trace = trace_of("tools/call sleepy", 3).await;
        let ended_as = |wanted: SpanKind| {
            let span = trace
                .iter()
                .find(|span| kind(span) == wanted)
                .expect("a span of each kind");
            text(span, "error.type")
        };
        assert_eq!(ended_as(SpanKind::Internal).as_deref(), Some("timeout"));
        assert_eq!(ended_as(SpanKind::Client).as_deref(), Some("cancelled"));
        assert_eq!(ended_as(SpanKind::Server).as_deref(), Some("cancelled"));
    });
}
