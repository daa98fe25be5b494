//! Per-tool policies and middleware over HTTP: `scopes` (403 with the step-up challenge),
//! `timeout` (a tool error, the function's future dropped), `rate_limit` (per caller, a
//! multi-round call counted once), and ordinary tower layers around every request (an audit
//! layer, tower's own timeout mapped to a clear JSON-RPC error).

#![cfg(feature = "http")]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::Elicit;
use mcp::auth::{AuthError, Identity, ResourceServer, verify_fn};
use mcp::push::Change;
use mcp::server::{McpRequest, McpResponse, McpServer, Server};
use mcp::transport::http::HttpTransport;
use serde_json::{Value, json};
use tokio::net::TcpListener;

use crate::push_http::Events;
use crate::support::Region;
use crate::support::http::{Reply, Running, meta};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// Erases a note.
#[mcp::tool(scopes = ["notes:write"])]
async fn erase_note(id: String) -> String {
    format!("erased {id}")
}

/// Erases every note, as a task when the client can take one.
#[mcp::tool(scopes = ["notes:write", "notes:admin"], task = "optional")]
async fn erase_all() -> String {
    "erased everything".to_owned()
}

/// Set when `slow`'s future is dropped while it runs.
static SLOW_STOPPED: AtomicBool = AtomicBool::new(false);

/// Records its drop in `SLOW_STOPPED`.
struct StopWitness;

impl Drop for StopWitness {
    fn drop(&mut self) {
        SLOW_STOPPED.store(true, Ordering::SeqCst);
    }
}

/// Never finishes in time.
#[mcp::tool(timeout = "200ms")]
async fn slow() -> String {
    let _witness = StopWitness;
    tokio::time::sleep(Duration::from_secs(600)).await;
    "finished".to_owned()
}

/// Set when `slow_task`'s future is dropped while it runs.
static SLOW_TASK_STOPPED: AtomicBool = AtomicBool::new(false);

/// Records its drop in `SLOW_TASK_STOPPED`.
struct TaskStopWitness;

impl Drop for TaskStopWitness {
    fn drop(&mut self) {
        SLOW_TASK_STOPPED.store(true, Ordering::SeqCst);
    }
}

/// Never finishes in time, as a task either.
#[mcp::tool(task = "optional", timeout = "200ms")]
async fn slow_task() -> String {
    let _witness = TaskStopWitness;
    tokio::time::sleep(Duration::from_secs(600)).await;
    "finished".to_owned()
}

/// Twice a minute per caller.
#[mcp::tool(rate_limit = "2/min")]
async fn limited() -> String {
    "done".to_owned()
}

/// Asks a region first; once a minute per caller.
#[mcp::tool(rate_limit = "1/min")]
async fn survey(#[mcp(ask = "Region?".to_owned())] region: Elicit<Region>) -> String {
    format!("surveyed {}", region.region)
}

/// Sleeps `ms` milliseconds.
#[mcp::tool]
async fn nap(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    "rested".to_owned()
}

/// Always fails as a tool.
#[mcp::tool]
async fn broken() -> Result<String, String> {
    Err("the disk is full".to_owned())
}

/// One note, for readers only.
#[mcp::resource("notes://{id}", scopes = ["notes:read"], mime_type = "text/plain")]
async fn note(id: String) -> String {
    format!("note {id}")
}

/// Today's notes, for readers only.
#[mcp::prompt(scopes = ["notes:read"])]
async fn digest() -> String {
    "Summarize today's notes.".to_owned()
}

fn tools() -> McpServer {
    McpServer::new("policies")
        .tools(mcp::tools![
            erase_note, erase_all, slow, slow_task, limited, survey, nap, broken
        ])
        .prompts(mcp::prompts![digest])
        .resources(mcp::resources![note])
}

/// `server` behind bearer tokens written `subject+scope+scope…`.
async fn serve(server: McpServer) -> Running {
    serve_built(server.build().expect("a valid server")).await
}

async fn serve_built(server: Server) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let resource = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let verifier = verify_fn(|token: String| async move {
        let mut parts = token.split('+');
        match parts.next().filter(|s| !s.is_empty()) {
            Some(subject) => Ok(Identity {
                subject: Some(subject.to_owned()),
                scopes: parts.map(str::to_owned).collect(),
                ..Identity::default()
            }),
            None => Err(AuthError::invalid("no caller named")),
        }
    });
    let auth = ResourceServer::new(resource, "https://auth.example.com", verifier)
        .expect("a resource URL");
    Running::on(listener, HttpTransport::new(server).auth(auth))
}

/// A 2026-07-28 `tools/call` of `tool` by the caller of `token`, with `extra` params and the
/// client `capabilities`.
async fn call(s: &Running, token: &str, tool: &str, extra: Value, capabilities: Value) -> Reply {
    let mut params = json!({"name": tool, "arguments": {}, "_meta": meta(capabilities)});
    if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
        params.extend(extra.clone());
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    s.post(body.to_string())
        .routing("tools/call", Some(tool))
        .header("authorization", &format!("Bearer {token}"))
        .send()
        .await
}

async fn call_plain(s: &Running, token: &str, tool: &str, arguments: Value) -> Reply {
    call(s, token, tool, json!({"arguments": arguments}), json!({})).await
}

/// A 2025-11-25 session opened by the caller of `token`: its id.
async fn open_session(s: &Running, token: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}});
    let opened = s
        .post(initialize.to_string())
        .header("authorization", &format!("Bearer {token}"))
        .send()
        .await;
    let session = opened.header("mcp-session-id").expect("a session");
    session.to_owned()
}

/// A `tools/call` of `tool` in the 2025-11-25 `session`.
async fn call_in_session(
    s: &Running,
    session: &str,
    token: &str,
    tool: &str,
    arguments: Value,
) -> Reply {
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": tool, "arguments": arguments}});
    s.post(call.to_string())
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .header("authorization", &format!("Bearer {token}"))
        .send()
        .await
}

fn result(reply: &Reply) -> Value {
    assert_eq!(reply.status, 200, "{reply:?}");
    reply.json()["result"].clone()
}

fn text(reply: &Reply) -> String {
    let result = result(reply);
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"))
        .to_owned()
}

#[tokio::test]
async fn a_caller_without_the_scope_gets_403_with_the_step_up_challenge() {
    let s = serve(tools()).await;
    let refused = call_plain(&s, "alice+notes:read", "erase_note", json!({"id": "7"})).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    let metadata = format!("http://{}/.well-known/oauth-protected-resource/mcp", s.addr);
    assert_eq!(
        refused.header("www-authenticate"),
        Some(
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"notes:write\", \
                 resource_metadata=\"{metadata}\""
            )
            .as_str()
        )
    );
    assert_eq!(
        refused.json()["error"],
        json!({"code": -32003, "message": "The access token lacks a scope this request needs",
               "data": {"requiredScopes": ["notes:write"]}})
    );

    let allowed = call_plain(
        &s,
        "alice+notes:read+notes:write",
        "erase_note",
        json!({"id": "7"}),
    )
    .await;
    assert_eq!(text(&allowed), "erased 7");
}

#[tokio::test]
async fn a_2025_session_gets_the_same_403_and_challenge() {
    let s = serve(tools()).await;
    let session = open_session(&s, "carol").await;
    let refused = call_in_session(&s, &session, "carol", "erase_note", json!({"id": "7"})).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    assert_eq!(refused.error_code(), -32003);
    assert!(
        refused.header("www-authenticate").is_some_and(
            |c| c.starts_with("Bearer error=\"insufficient_scope\", scope=\"notes:write\"")
        ),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_prompt_needing_a_scope_is_refused_the_same_way() {
    let s = serve(tools()).await;
    let get = |token: &'static str| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                          "params": {"name": "digest", "_meta": meta(json!({}))}});
        s.post(body.to_string())
            .routing("prompts/get", Some("digest"))
            .header("authorization", &format!("Bearer {token}"))
            .send()
    };
    let refused = get("alice").await;
    assert_eq!(refused.status, 403, "{refused:?}");
    assert!(
        refused
            .header("www-authenticate")
            .is_some_and(|c| c.contains("scope=\"notes:read\"")),
        "{refused:?}"
    );
    let allowed = get("alice+notes:read").await;
    assert_eq!(
        result(&allowed)["messages"][0]["content"]["text"],
        "Summarize today's notes."
    );
}

#[tokio::test]
async fn a_resource_needing_a_scope_is_refused_the_same_way_and_listed_for_all() {
    let s = serve(tools()).await;
    let read = |token: &'static str, uri: &'static str| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                          "params": {"uri": uri, "_meta": meta(json!({}))}});
        s.post(body.to_string())
            .routing("resources/read", Some(uri))
            .header("authorization", &format!("Bearer {token}"))
            .send()
    };
    let refused = read("alice", "notes://7").await;
    assert_eq!(refused.status, 403, "{refused:?}");
    assert_eq!(refused.error_code(), -32003);
    assert_eq!(
        refused.json()["error"]["data"]["requiredScopes"],
        json!(["notes:read"])
    );
    assert!(
        refused
            .header("www-authenticate")
            .is_some_and(|c| c.contains("scope=\"notes:read\"")),
        "{refused:?}"
    );
    let allowed = read("alice+notes:read", "notes://7").await;
    assert_eq!(result(&allowed)["contents"][0]["text"], "note 7");

    // A template's instance, added at run time, needs the same.
    let server = tools().build().expect("a valid server");
    let [template] = mcp::resources![note];
    let instance = template.at("notes://today").expect("the template matches");
    assert_eq!(instance.required_scopes(), ["notes:read"]);
    server.handle().add_resources([instance]).expect("added");
    let s = serve_built(server).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list",
                      "params": {"_meta": meta(json!({}))}});
    let listed = s
        .post(body.to_string())
        .routing("resources/list", None)
        .header("authorization", "Bearer nobody")
        .send()
        .await;
    assert_eq!(
        result(&listed)["resources"][0]["uri"],
        "notes://today",
        "{listed:?}"
    );
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                      "params": {"uri": "notes://today", "_meta": meta(json!({}))}});
    let refused = s
        .post(body.to_string())
        .routing("resources/read", Some("notes://today"))
        .header("authorization", "Bearer nobody")
        .send()
        .await;
    assert_eq!(refused.status, 403, "{refused:?}");
}

#[tokio::test]
async fn a_tool_needing_scopes_is_listed_for_every_caller() {
    let s = serve(tools()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                      "params": {"_meta": meta(json!({}))}});
    let listed = s
        .post(body.to_string())
        .routing("tools/list", None)
        .header("authorization", "Bearer nobody")
        .send()
        .await;
    let names: Vec<Value> = result(&listed)["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert!(names.contains(&json!("erase_note")), "{names:?}");
}

#[tokio::test]
async fn a_call_that_would_start_a_task_needs_the_scopes_too() {
    let s = serve(tools()).await;
    let tasks = json!({"extensions": {TASKS: {}}});
    let refused = call(
        &s,
        "alice+notes:write",
        "erase_all",
        json!({}),
        tasks.clone(),
    )
    .await;
    assert_eq!(refused.status, 403, "{refused:?}");
    assert!(
        refused
            .header("www-authenticate")
            .is_some_and(|c| c.contains("scope=\"notes:write notes:admin\"")),
        "{refused:?}"
    );
    let started = call(
        &s,
        "alice+notes:write+notes:admin",
        "erase_all",
        json!({}),
        tasks,
    )
    .await;
    assert_eq!(result(&started)["resultType"], "task", "{started:?}");
}

#[tokio::test]
async fn a_round_past_its_timeout_is_a_tool_error_and_the_function_is_dropped() {
    let s = serve(tools()).await;
    SLOW_STOPPED.store(false, Ordering::SeqCst);
    let reply = call_plain(&s, "alice", "slow", json!({})).await;
    let result = result(&reply);
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "Tool slow timed out after 200ms and was stopped"
    );
    assert!(
        SLOW_STOPPED.load(Ordering::SeqCst),
        "the function's future was not dropped"
    );
}

#[tokio::test]
async fn a_task_is_bounded_by_the_timeout_too() {
    let s = serve(tools()).await;
    SLOW_TASK_STOPPED.store(false, Ordering::SeqCst);
    let tasks = json!({"extensions": {TASKS: {}}});
    let started = call(&s, "dana", "slow_task", json!({}), tasks.clone()).await;
    let started = result(&started);
    assert_eq!(started["resultType"], "task", "{started}");
    let id = started["taskId"].as_str().expect("a taskId").to_owned();
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
                      "params": {"taskId": id, "_meta": meta(tasks)}});
    let mut task = Value::Null;
    for _ in 0..500 {
        let reply = s
            .post(body.to_string())
            .routing("tasks/get", Some(&id))
            .header("authorization", "Bearer dana")
            .send()
            .await;
        task = result(&reply);
        if task["status"] != "working" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["result"]["isError"], true, "{task}");
    assert_eq!(
        task["result"]["content"][0]["text"],
        "Tool slow_task timed out after 200ms and was stopped"
    );
    assert!(SLOW_TASK_STOPPED.load(Ordering::SeqCst));
}

#[tokio::test]
async fn each_caller_has_its_own_rate_budget() {
    let s = serve(tools()).await;
    for _ in 0..2 {
        assert_eq!(
            text(&call_plain(&s, "alice", "limited", json!({})).await),
            "done"
        );
    }
    let over = result(&call_plain(&s, "alice", "limited", json!({})).await);
    assert_eq!(over["isError"], true, "{over}");
    let message = over["content"][0]["text"].as_str().expect("a message");
    assert!(
        message.starts_with("Rate limit exceeded for tool limited: try again in "),
        "{message}"
    );
    assert_eq!(
        text(&call_plain(&s, "bob", "limited", json!({})).await),
        "done"
    );
}

#[tokio::test]
async fn a_multi_round_call_counts_once_against_the_rate() {
    let s = serve(tools()).await;
    let elicitation = json!({"elicitation": {"form": {}}});
    let first = call(&s, "alice", "survey", json!({}), elicitation.clone()).await;
    let first = result(&first);
    assert_eq!(first["resultType"], "input_required", "{first}");
    let state = first["requestState"].as_str().expect("a requestState");
    let answers = json!({"region": {"action": "accept", "content": {"region": "eu-west-1"}}});
    let second = json!({"inputResponses": answers, "requestState": state});
    let done = call(&s, "alice", "survey", second, elicitation.clone()).await;
    assert_eq!(text(&done), "surveyed eu-west-1");
    // A new call is a second one within the minute.
    let again = result(&call(&s, "alice", "survey", json!({}), elicitation).await);
    assert_eq!(again["isError"], true, "{again}");
}

/// One line per request an audit layer saw.
type AuditLog = Arc<Mutex<Vec<String>>>;

#[tokio::test]
async fn a_tower_layer_sees_method_target_caller_and_outcome() {
    let log = AuditLog::default();
    let (requests, outcomes) = (log.clone(), log.clone());
    let audit = tower::ServiceBuilder::new()
        .map_request(move |request: McpRequest| {
            let caller = request.identity().and_then(|i| i.subject.clone());
            requests.lock().expect("log").push(format!(
                "{} {} {} by {}",
                request.protocol_version(),
                request.method(),
                request.target().unwrap_or("-"),
                caller.unwrap_or_default()
            ));
            request
        })
        .map_response(move |response: McpResponse| {
            let outcome = match (response.error(), response.is_tool_error()) {
                (Some(error), _) => format!("error {}", error.code),
                (None, true) => "tool error".to_owned(),
                (None, false) => "ok".to_owned(),
            };
            outcomes.lock().expect("log").push(outcome);
            response
        });
    let s = serve(tools().layer(audit)).await;
    call_plain(&s, "alice", "nap", json!({"ms": 1})).await;
    call_plain(&s, "alice", "broken", json!({})).await;
    call_plain(&s, "bob", "nope", json!({})).await;
    assert_eq!(
        *log.lock().expect("log"),
        [
            "2026-07-28 tools/call nap by alice",
            "ok",
            "2026-07-28 tools/call broken by alice",
            "tool error",
            "2026-07-28 tools/call nope by bob",
            "error -32602",
        ]
    );
}

#[tokio::test]
async fn tower_timeout_answers_with_a_clear_json_rpc_error() {
    let s = serve(
        tools().layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(
            100,
        ))),
    )
    .await;
    let reply = call_plain(&s, "alice", "nap", json!({"ms": 10_000})).await;
    assert_eq!(
        reply.json()["error"],
        json!({"code": -32001, "message": "Request timed out"})
    );
    assert_eq!(
        text(&call_plain(&s, "alice", "nap", json!({"ms": 1})).await),
        "rested"
    );
}

#[tokio::test]
async fn load_shedding_answers_503_with_retry_after_on_both_wires() {
    let s = serve(
        tools()
            .layer(tower::limit::ConcurrencyLimitLayer::new(1))
            .layer(tower::load_shed::LoadShedLayer::new()),
    )
    .await;
    // Opened first: `initialize` goes through the layers, and would be shed too.
    let session = open_session(&s, "carol").await;

    let s = Arc::new(s);
    let busy = tokio::spawn({
        let s = s.clone();
        async move { call_plain(&s, "alice", "nap", json!({"ms": 1_500})).await }
    });
    // The nap holds the only slot once the server has seen it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let shed = call_plain(&s, "bob", "nap", json!({"ms": 1})).await;
    assert_eq!(shed.status, 503, "{shed:?}");
    assert_eq!(shed.header("retry-after"), Some("1"), "{shed:?}");
    assert_eq!(shed.error_code(), -32005, "{shed:?}");

    let legacy = call_in_session(&s, &session, "carol", "nap", json!({"ms": 1})).await;
    assert_eq!(legacy.status, 503, "{legacy:?}");
    assert_eq!(legacy.header("retry-after"), Some("1"), "{legacy:?}");
    assert_eq!(legacy.error_code(), -32005, "{legacy:?}");

    assert_eq!(text(&busy.await.expect("the nap")), "rested");
    assert_eq!(
        text(&call_plain(&s, "bob", "nap", json!({"ms": 1})).await),
        "rested"
    );
}

#[tokio::test]
async fn a_listen_outlives_a_timeout_layer() {
    let server = tools()
        .layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(
            100,
        )))
        .build()
        .expect("a valid server");
    let s = serve_built(server.clone()).await;
    let body = json!({"jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen",
                      "params": {"_meta": meta(json!({})),
                                 "notifications": {"toolsListChanged": true}}});
    let stream = s
        .post(body.to_string())
        .routing("subscriptions/listen", None)
        .header("authorization", "Bearer erin")
        .open()
        .await;
    let mut events = Events::new(stream);
    let ack = events.next().await.expect("an acknowledgement");
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.handle().notify(Change::ToolsListChanged);
    let heard = events.next().await.expect("the change");
    assert_eq!(
        heard["method"], "notifications/tools/list_changed",
        "{heard}"
    );
}
