//! The client's automatic round loop against macro-built servers: callbacks answer every
//! question, concurrently within a round; the state is echoed; limits and back-off hold; the
//! same callbacks serve a 2025-11-25 session's back-channel.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use mcp::client::{Client, ClientBuilder, ClientError, Resume};
use mcp::protocol::{
    CreateMessageResult, ElicitParams, ElicitResult, Implementation, InputRequiredResult,
    ListRootsResult, Role, Root, SamplingContent,
};
use mcp::{CreateMessageParams, Elicit, ListRoots, McpServer, Sample};
use serde_json::json;

use crate::support::{self, Sure, provision};

#[mcp::tool]
async fn research(
    #[mcp(ask = CreateMessageParams::prompt("Summarize", 20))] summary: Sample,
    roots: ListRoots,
    sure: Elicit<Sure>,
) -> String {
    format!(
        "{} / {} roots / {}",
        summary.text().unwrap_or("-"),
        roots.len(),
        sure.ok
    )
}

static FOREVER: AtomicU32 = AtomicU32::new(0);

/// Never finishes: every round returns only state.
#[mcp::tool]
async fn forever(ctx: mcp::Context) -> Result<String, InputRequiredResult> {
    FOREVER.fetch_add(1, Ordering::SeqCst);
    let next = ctx.request_state().map_or(0, |s| s.len()) + 1;
    Err(InputRequiredResult::new().with_state("x".repeat(next)))
}

/// Never finishes either; not counted, so tests running alongside do not disturb the count
/// of `forever`.
#[mcp::tool]
async fn endless() -> Result<String, InputRequiredResult> {
    Err(InputRequiredResult::new().with_state("again"))
}

fn server() -> McpServer {
    McpServer::new("rounds").tools(mcp::tools![provision, research, forever, endless])
}

fn answering(client: ClientBuilder, asked: Arc<AtomicU32>) -> ClientBuilder {
    client
        .on_elicit(move |params: ElicitParams| {
            let asked = asked.clone();
            async move {
                asked.fetch_add(1, Ordering::SeqCst);
                Ok(support::answer(&params))
            }
        })
        .on_sample(|_params| async {
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: mcp::protocol::OneOrMany::One(SamplingContent::text("short")),
                model: "test".into(),
                stop_reason: None,
                meta: None,
            })
        })
        .on_list_roots(|| async {
            Ok(ListRootsResult {
                roots: vec![Root {
                    uri: "file:///work".into(),
                    name: None,
                    meta: None,
                }],
            })
        })
}

fn builder() -> ClientBuilder {
    Client::builder(Implementation::new("auto", "1"))
}

fn in_memory() -> mcp::transport::Duplex {
    server().serve_in_memory().expect("valid server")
}

fn connect() -> Client {
    builder().connect(in_memory())
}

fn text(result: &mcp::CallToolResult) -> &str {
    result.content[0].as_text().expect("text")
}

#[tokio::test]
async fn a_call_runs_every_round_with_the_callbacks() {
    let asked = Arc::new(AtomicU32::new(0));
    let client = answering(builder(), asked.clone()).connect(in_memory());
    let result = client
        .call_tool("provision", Some(json!({"name": "orders"})))
        .await
        .expect("completes");
    assert_eq!(text(&result), "orders in eu-west-1: true");
    assert_eq!(asked.load(Ordering::SeqCst), 2, "one question per round");
}

#[tokio::test]
async fn mixed_questions_of_one_round_are_all_answered() {
    let client = answering(builder(), Arc::default()).connect(in_memory());
    let result = client.call_tool("research", None).await.expect("completes");
    assert_eq!(text(&result), "short / 1 roots / true");
}

#[tokio::test]
async fn without_handlers_the_server_refuses_for_lack_of_capabilities() {
    let client = connect();
    let error = client
        .call_tool("provision", Some(json!({"name": "x"})))
        .await
        .expect_err("no elicitation handler");
    let ClientError::Rpc(error) = error else {
        panic!("a protocol error: {error}");
    };
    assert_eq!(error.code, -32021);
}

#[tokio::test(start_paused = true)]
async fn a_call_that_never_finishes_stops_at_the_round_limit_with_backoff() {
    let client = builder().max_rounds(4).connect(in_memory());
    let started = tokio::time::Instant::now();
    let before = FOREVER.load(Ordering::SeqCst);
    let error = client.call_tool("forever", None).await.expect_err("limit");
    assert!(
        matches!(error, ClientError::TooManyRounds { max: 4 }),
        "{error}"
    );
    assert!(error.to_string().contains("max_rounds"), "{error}");
    assert_eq!(
        FOREVER.load(Ordering::SeqCst) - before,
        5,
        "max + 1 requests"
    );
    // State-only rounds wait 50, 100, 200, 250 ms.
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(600),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_persisted_round_resumes_from_another_client_on_another_instance() {
    let keys = || {
        mcp::state::RequestStateSecurity::keys(["shared-secret-0123456789abcdef0123456789"])
            .expect("keys")
    };
    let instance = || {
        server()
            .request_state_security(keys())
            .serve_in_memory()
            .expect("valid server")
    };
    let client = || Client::builder(Implementation::new("client", "1"));
    let first = client()
        .capabilities(serde_json::from_value(json!({"elicitation": {"form": {}}})).expect("caps"))
        .connect(instance());
    let args = json!({"name": "orders"});
    let mcp::Outcome::InputRequired(ask) = first
        .call_tool_once("provision", Some(args.clone()), None, None)
        .await
        .expect("round 1")
    else {
        panic!("asks");
    };
    let saved = serde_json::to_string(&ask).expect("persist");
    let ask: InputRequiredResult = serde_json::from_str(&saved).expect("restore");
    let mut answers = mcp::protocol::InputResponses::new();
    let region = json!({"region": "us-east-1"});
    answers.insert(
        "region",
        ElicitResult::accept(region.as_object().cloned().unwrap_or_default()),
    );
    // A fresh client, connected to another instance with the same keys, picks the round up.
    drop(first);
    let second = answering(client(), Arc::default()).connect(instance());
    let result = second
        .resume_tool(
            "provision",
            Some(args),
            Resume {
                input_responses: Some(answers),
                request_state: ask.request_state,
            },
        )
        .await
        .expect("completes");
    assert_eq!(text(&result), "orders in us-east-1: true");
}

#[tokio::test]
async fn the_same_callbacks_answer_a_legacy_back_channel() {
    let asked = Arc::new(AtomicU32::new(0));
    let client = answering(builder(), asked.clone()).connect(in_memory());
    let init = client.initialize().await.expect("2025-11-25 session");
    assert_eq!(init.protocol_version, "2025-11-25");
    let result = client
        .call_tool("provision", Some(json!({"name": "legacy"})))
        .await
        .expect("completes over the back-channel");
    assert_eq!(text(&result), "legacy in eu-west-1: true");
    assert_eq!(asked.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn requests_after_the_server_is_gone_fail_at_once() {
    let (client_end, server_end) = mcp::transport::memory::pair();
    drop(server_end);
    let client = Client::builder(Implementation::new("c", "1")).connect(client_end);
    tokio::task::yield_now().await;
    let error = tokio::time::timeout(std::time::Duration::from_secs(5), client.discover())
        .await
        .expect("no hang")
        .expect_err("closed");
    assert!(matches!(error, ClientError::Closed), "{error}");
}

/// A server of the old generation only: it knows `initialize`, and nothing of `server/discover`.
async fn old_server() -> mcp::transport::Duplex {
    let (client_end, mut server_end) = mcp::transport::memory::pair();
    tokio::spawn(async move {
        while let Some(Ok(line)) = server_end.incoming.recv().await {
            let request: serde_json::Value = serde_json::from_str(&line).expect("json");
            let Some(id) = request.get("id").cloned() else {
                continue;
            };
            let reply = match request["method"].as_str() {
                Some("initialize") => json!({"jsonrpc": "2.0", "id": id, "result": {
                    "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "old", "version": "0.9"}}}),
                _ => json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32601, "message": "Method not found"}}),
            };
            if server_end.outgoing.send(reply.to_string()).await.is_err() {
                break;
            }
        }
    });
    client_end
}

#[tokio::test]
async fn negotiation_prefers_discover_and_falls_back_to_initialize() {
    let modern = connect();
    assert_eq!(modern.negotiate().await.expect("modern"), "2026-07-28");
    assert_eq!(modern.protocol_version(), "2026-07-28");

    let old = Client::builder(Implementation::new("c", "1")).connect(old_server().await);
    assert_eq!(old.negotiate().await.expect("legacy"), "2025-11-25");
    assert_eq!(old.protocol_version(), "2025-11-25");
}

#[tokio::test(start_paused = true)]
async fn a_call_timeout_bounds_all_rounds() {
    let client = builder()
        .call_timeout(std::time::Duration::from_millis(120))
        .connect(in_memory());
    let error = client
        .call_tool("endless", None)
        .await
        .expect_err("bounded");
    assert!(matches!(error, ClientError::Timeout(_)), "{error}");
}

/// A client end whose messages go to two servers of their own (per-process keys): the `n`th
/// message (from 0) to the second when `to_second(n)`, else to the first; like retries behind a
/// load balancer without shared keys.
fn two_instances(to_second: fn(usize) -> bool) -> mcp::transport::Duplex {
    let first = server().serve_in_memory().expect("valid server");
    let second = server().serve_in_memory().expect("valid server");
    let (client_end, mut balancer) = mcp::transport::memory::pair();
    let answers = balancer.outgoing.clone();
    for mut instance in [first.incoming, second.incoming] {
        let answers = answers.clone();
        tokio::spawn(async move {
            while let Some(Ok(line)) = instance.recv().await {
                let _ = answers.send(line).await;
            }
        });
    }
    let (first, second) = (first.outgoing, second.outgoing);
    tokio::spawn(async move {
        let mut sent = 0;
        while let Some(Ok(line)) = balancer.incoming.recv().await {
            let instance = if to_second(sent) { &second } else { &first };
            let _ = instance.send(line).await;
            sent += 1;
        }
    });
    client_end
}

#[tokio::test]
async fn a_rejected_state_fails_the_call_unless_the_client_restarts_it() {
    // Round 2 of the first attempt lands on the other instance.
    let only_the_second_message = |n| n == 1;
    let duplex = two_instances(only_the_second_message);
    let client = answering(
        Client::builder(Implementation::new("c", "1")),
        Arc::default(),
    )
    .connect(duplex);
    let error = client
        .call_tool("provision", Some(json!({"name": "orders"})))
        .await
        .expect_err("the other instance cannot open the state");
    let ClientError::Rpc(error) = error else {
        panic!("a protocol error: {error}");
    };
    assert!(error.is_invalid_request_state(), "{error:?}");

    let asked = Arc::new(AtomicU32::new(0));
    let duplex = two_instances(only_the_second_message);
    let client = answering(
        Client::builder(Implementation::new("c", "1")),
        asked.clone(),
    )
    .restart_on_invalid_state(1)
    .connect(duplex);
    let result = client
        .call_tool("provision", Some(json!({"name": "orders"})))
        .await
        .expect("the restarted call completes on one instance");
    assert_eq!(text(&result), "orders in eu-west-1: true");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        3,
        "the region is asked again after the restart, then the confirmation"
    );
}

#[tokio::test]
async fn restarts_are_bounded() {
    // Every retry lands on the other instance: no attempt can finish.
    let every_retry = |n| n % 2 == 1;
    let duplex = two_instances(every_retry);
    let asked = Arc::new(AtomicU32::new(0));
    let client = answering(
        Client::builder(Implementation::new("c", "1")),
        asked.clone(),
    )
    .restart_on_invalid_state(2)
    .connect(duplex);
    let error = client
        .call_tool("provision", Some(json!({"name": "orders"})))
        .await
        .expect_err("three attempts, all rejected");
    assert!(
        matches!(&error, ClientError::Rpc(e) if e.is_invalid_request_state()),
        "{error}"
    );
    assert_eq!(
        asked.load(Ordering::SeqCst),
        3,
        "one region question per attempt"
    );
}
