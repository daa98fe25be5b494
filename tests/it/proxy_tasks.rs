//! Tasks through `mcp::proxy::proxy`: a remote that answers a call with a task makes the
//! proxy answer its caller with a task of its own, polled to its result, asking the remote's
//! questions, cancelling the remote's task with its own; and bound to its caller, as the
//! remote's ids are not (the remote sees only the proxy).
//!
//! The remote serves in this process behind an in-memory transport, reached through our
//! `Client`; the proxy serves over HTTP with a caller per bearer token.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use mcp::BoxFuture;
use mcp::client::{Client, ClientBuilder, ToolStart};
use mcp::protocol::{
    CallToolParams, CallToolResult, ElicitParams, ElicitResult, Implementation, InputRequest,
    InputRequiredResult, JsonObject, McpError, Outcome, Tool,
};
use mcp::server::{Context, McpServer, State, TaskSupport, ToolEntry};
use mcp::{Elicit, Elicited};
use serde_json::{Value, json};

use crate::support::http::{meta, post, serve_with_callers};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// What the remote's tools saw.
#[derive(Default)]
struct Seen {
    /// How many times `quick` ran.
    quick_runs: AtomicUsize,
    /// `hangs` saw its task cancelled.
    cancelled: AtomicBool,
}

/// Answers at once; a task for a caller that takes one.
#[mcp::tool(task = "optional")]
async fn quick(seen: State<Arc<Seen>>) -> &'static str {
    seen.quick_runs.fetch_add(1, Ordering::SeqCst);
    "quick done"
}

/// Runs until cancelled, and records that it was.
#[mcp::tool(task = "optional")]
async fn hangs(ctx: Context, seen: State<Arc<Seen>>) -> &'static str {
    let seen: Arc<Seen> = Arc::clone(&seen);
    let watcher = ctx.clone();
    tokio::spawn(async move {
        watcher.cancelled().await;
        seen.cancelled.store(true, Ordering::SeqCst);
    });
    tokio::time::sleep(Duration::from_secs(3600)).await;
    "finished"
}

/// Reports its progress three times; never a task.
#[mcp::tool]
async fn count(ctx: Context) -> &'static str {
    for step in 1..=3 {
        ctx.progress(f64::from(step), Some(3.0), None).await;
    }
    "counted"
}

/// Archive them?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct Confirm {
    confirm: bool,
}

/// Asks inside its task.
#[mcp::tool(task = "optional")]
async fn archive(#[mcp(key = "confirm")] confirm: Elicited<Confirm>) -> String {
    match confirm {
        Elicited::Accepted(Confirm { confirm: true }) => "Archived 3 posts.".into(),
        other => format!("Not archived ({other:?})"),
    }
}

/// What is your name?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct Name {
    name: String,
}

/// Asks on the call, then runs as a task.
#[mcp::tool(task = "required", ask_before_task)]
async fn asks_first(#[mcp(key = "user_name")] name: Elicit<Name>) -> String {
    format!("Hello, {}!", name.name)
}

/// Asks inside its task and never gets an answer in these tests; records when its task's
/// context is cancelled (written by hand: a macro tool's body runs only once answered).
fn waits(
    ctx: Context,
    _call: CallToolParams,
) -> BoxFuture<Result<Outcome<CallToolResult>, McpError>> {
    Box::pin(async move {
        if let Some(seen) = ctx.state::<Arc<Seen>>() {
            let seen: Arc<Seen> = Arc::clone(&seen);
            let watcher = ctx.clone();
            tokio::spawn(async move {
                watcher.cancelled().await;
                seen.cancelled.store(true, Ordering::SeqCst);
            });
        }
        let schema = json!({"type": "object", "properties": {"go": {"type": "boolean"}}});
        let question = InputRequest::Elicit(ElicitParams::form("Go on?", schema));
        Ok(Outcome::InputRequired(
            InputRequiredResult::new().ask("go", question),
        ))
    })
}

/// The proxy of a remote serving the tools above, as an `McpServer`.
async fn proxy(seen: Arc<Seen>) -> McpServer {
    let (near, far) = mcp::transport::memory::pair();
    let remote = McpServer::new("upstream")
        .tools(mcp::tools![quick, hangs, archive, asks_first, count])
        .tools([
            ToolEntry::from_tool(Tool::new("waits", json!({"type": "object"})), waits)
                .task(TaskSupport::Optional),
        ])
        .state(seen)
        .build()
        .expect("builds");
    tokio::spawn(async move { remote.serve(far).await });
    let client = Client::builder(Implementation::new("proxy", "1.0.0"))
        .accept_tasks(false)
        .connect(near);
    mcp::proxy::proxy("proxy", client)
        .await
        .expect("the proxy reads the remote's listing")
}

/// The proxy over HTTP, each caller named by its bearer token.
async fn serve_proxy(seen: Arc<Seen>) -> (SocketAddr, tokio_util::sync::DropGuard) {
    serve_with_callers(proxy(seen).await.build().expect("builds")).await
}

/// A 2026-07-28 request of `user`'s declaring `capabilities`; the JSON-RPC reply.
async fn post_as(
    addr: SocketAddr,
    user: &str,
    method: &str,
    mut params: Value,
    capabilities: Value,
) -> Value {
    let name = match method {
        "tools/call" => params["name"].as_str().map(str::to_owned),
        _ => params["taskId"].as_str().map(str::to_owned),
    };
    params["_meta"] = meta(capabilities);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    post(addr, body.to_string())
        .routing(method, name.as_deref())
        .header("authorization", &format!("Bearer {user}"))
        .send()
        .await
        .json()
}

fn declaring() -> Value {
    json!({"extensions": {TASKS: {}}, "elicitation": {"form": {}}})
}

/// `user`'s call of `tool`, declaring the tasks extension: the task it made.
async fn start(addr: SocketAddr, user: &str, tool: &str) -> String {
    let params = json!({"name": tool, "arguments": {}});
    let reply = post_as(addr, user, "tools/call", params, declaring()).await;
    assert_eq!(reply["result"]["resultType"], "task", "{reply}");
    reply["result"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned()
}

async fn get(addr: SocketAddr, user: &str, task_id: &str) -> Value {
    let params = json!({"taskId": task_id});
    post_as(addr, user, "tasks/get", params, declaring()).await
}

/// Polls `user`'s task until its status is `status` (or it ended).
async fn until(addr: SocketAddr, user: &str, task_id: &str, status: &str) -> Value {
    for _ in 0..500 {
        let reply = get(addr, user, task_id).await;
        let seen = reply["result"]["status"].as_str().unwrap_or_default();
        if seen == status || ["completed", "failed", "cancelled"].contains(&seen) {
            return reply["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task_id} never reached {status}");
}

#[tokio::test]
async fn a_remote_task_is_a_proxy_task_polled_to_its_result() {
    let seen = Arc::new(Seen::default());
    let (addr, _stop) = serve_proxy(seen.clone()).await;
    let id = start(addr, "alice", "quick").await;
    let done = until(addr, "alice", &id, "completed").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "quick done", "{done}");
    assert_eq!(
        seen.quick_runs.load(Ordering::SeqCst),
        1,
        "the remote ran it once"
    );

    // A caller that does not take tasks gets the result in the call.
    let params = json!({"name": "quick", "arguments": {}});
    let reply = post_as(addr, "alice", "tools/call", params, json!({})).await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "quick done");
}

#[tokio::test]
async fn cancelling_the_proxys_task_cancels_the_remotes() {
    let seen = Arc::new(Seen::default());
    let (addr, _stop) = serve_proxy(seen.clone()).await;
    let id = start(addr, "alice", "hangs").await;
    let ack = post_as(
        addr,
        "alice",
        "tasks/cancel",
        json!({"taskId": id}),
        declaring(),
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let ended = until(addr, "alice", &id, "cancelled").await;
    assert_eq!(ended["status"], "cancelled", "{ended}");
    for _ in 0..500 {
        if seen.cancelled.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the remote's task was never cancelled");
}

#[tokio::test]
async fn cancelling_the_proxys_task_while_it_asks_cancels_the_remotes() {
    let seen = Arc::new(Seen::default());
    let (addr, _stop) = serve_proxy(seen.clone()).await;
    let id = start(addr, "alice", "waits").await;
    let asking = until(addr, "alice", &id, "input_required").await;
    assert_eq!(asking["status"], "input_required", "{asking}");
    let params = json!({"taskId": id});
    let ack = post_as(addr, "alice", "tasks/cancel", params, declaring()).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let ended = until(addr, "alice", &id, "cancelled").await;
    assert_eq!(ended["status"], "cancelled", "{ended}");
    for _ in 0..500 {
        if seen.cancelled.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the remote's task, waiting for its answer, was never cancelled");
}

#[tokio::test]
async fn a_remote_tasks_question_is_the_proxy_tasks_and_its_answer_goes_back() {
    let (addr, _stop) = serve_proxy(Arc::default()).await;
    let id = start(addr, "alice", "archive").await;
    let asking = until(addr, "alice", &id, "input_required").await;
    assert_eq!(asking["status"], "input_required", "{asking}");
    let question = &asking["inputRequests"]["confirm"];
    assert_eq!(question["method"], "elicitation/create", "{asking}");

    let answers = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let params = json!({"taskId": id, "inputResponses": answers});
    let ack = post_as(addr, "alice", "tasks/update", params, declaring()).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = until(addr, "alice", &id, "completed").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "Archived 3 posts.");
}

#[tokio::test]
async fn another_callers_task_is_not_found_through_the_proxy() {
    let (addr, _stop) = serve_proxy(Arc::default()).await;
    let id = start(addr, "alice", "hangs").await;
    let own = get(addr, "alice", &id).await;
    assert_eq!(own["result"]["taskId"], id, "{own}");

    let forged = "0123456789abcdef0123456789abcdef";
    for task_id in [id.as_str(), forged] {
        for method in ["tasks/get", "tasks/cancel"] {
            let params = json!({"taskId": task_id});
            let other = post_as(addr, "mallory", method, params, declaring()).await;
            assert_eq!(
                other["error"]["code"], -32602,
                "{method} {task_id}: {other}"
            );
        }
        let answers = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
        let params = json!({"taskId": task_id, "inputResponses": answers});
        let other = post_as(addr, "mallory", "tasks/update", params, declaring()).await;
        assert_eq!(
            other["error"]["code"], -32602,
            "tasks/update {task_id}: {other}"
        );
    }
    let still = get(addr, "alice", &id).await;
    assert_eq!(still["result"]["status"], "working", "{still}");
}

/// Says yes, and that the user is called Alice.
fn answering() -> ClientBuilder {
    let builder = Client::builder(Implementation::new("caller", "1.0.0"));
    // A proxy that never ends its task fails the test rather than hanging it.
    builder
        .call_timeout(Duration::from_secs(30))
        .on_elicit(|question| {
            let content = match question.message().contains("name") {
                true => json!({"name": "Alice"}),
                false => json!({"confirm": true}),
            };
            let content: JsonObject = content.as_object().cloned().unwrap_or_default();
            async move { Ok(ElicitResult::accept(content)) }
        })
}

#[tokio::test]
async fn our_client_follows_a_proxied_task_asking_before_and_inside_it() {
    let server = proxy(Arc::default()).await.build().expect("builds");
    let (near, far) = mcp::transport::memory::pair();
    tokio::spawn(async move { server.serve(far).await });
    let client = answering().connect(near);

    let started = client.start_tool("archive", None).await.expect("started");
    let ToolStart::Task(task) = started else {
        panic!("the remote's task is a task here too: {started:?}");
    };
    let archived = client.wait_task(&task.task_id).await.expect("archived");
    assert_eq!(archived.content[0].as_text(), Some("Archived 3 posts."));

    // Asked on the call (the proxy passes the round through), then a task.
    let hello = client.call_tool("asks_first", None).await.expect("greeted");
    assert_eq!(hello.content[0].as_text(), Some("Hello, Alice!"));
}

#[tokio::test]
async fn a_caller_that_takes_tasks_still_hears_the_progress_of_a_call_answered_in_it() {
    let server = proxy(Arc::default()).await.build().expect("builds");
    let (near, far) = mcp::transport::memory::pair();
    tokio::spawn(async move { server.serve(far).await });
    // Our client declares the tasks extension on every request.
    let client = answering().connect(near);
    let (mut progress, call) = client.call_tool_with_progress("count", None);
    let (result, steps) = tokio::join!(call, async {
        let mut steps = Vec::new();
        while let Some(report) = progress.next().await {
            steps.push(report.progress);
        }
        steps
    });
    let result = result.expect("the call ends");
    assert_eq!(result.content[0].as_text(), Some("counted"));
    assert_eq!(steps, [1.0, 2.0, 3.0]);
}
