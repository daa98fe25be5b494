//! Tasks on the server (the `io.modelcontextprotocol/tasks` extension) on the raw wire: a
//! tool that allows tasks answered with one for a declaring client and at once for the others
//! (or -32021 when it requires one), its status through `tasks/get`, Resolve parameters asked
//! through the task's `input_required` status and answered with `tasks/update`, or asked on
//! the call before the task is made; failures, panics and cancellation; tasks bound to their
//! caller.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp::protocol::McpError;
use mcp::server::{Context, McpServer, Server, State};
use mcp::tasks::{MemoryTaskStore, Tasks};
use mcp::{Elicit, Elicited};
use serde_json::{Value, json};

use crate::support::http::{post, serve_with_callers};
use crate::support::wire::{Wire, meta};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// Declares the tasks extension and form elicitation.
fn declaring() -> Value {
    json!({"extensions": {TASKS: {}}, "elicitation": {"form": {}}})
}

/// Declares form elicitation only.
fn plain() -> Value {
    json!({"elicitation": {"form": {}}})
}

/// Says hello at once; a task when the client takes one.
#[mcp::tool(task = "optional")]
async fn hello(name: String) -> String {
    format!("Hello, {name}!")
}

/// Only ever a task.
#[mcp::tool(task = "required")]
async fn batch() -> &'static str {
    "batch done"
}

/// Never a task.
#[mcp::tool]
async fn plain_tool() -> &'static str {
    "plain"
}

/// A tool error, in a task.
#[mcp::tool(task = "optional")]
async fn refuses() -> Result<&'static str, &'static str> {
    Err("no, thank you")
}

/// A JSON-RPC error, in a task.
#[mcp::tool(task = "optional")]
async fn breaks() -> Result<&'static str, McpError> {
    Err(McpError::invalid_params("the batch id is not known"))
}

/// A panic, in a task.
#[mcp::tool(task = "optional")]
async fn panics() -> &'static str {
    panic!("the tool panicked on purpose")
}

/// What a long job saw of its cancellation.
#[derive(Default)]
struct Seen {
    cancelled: AtomicBool,
    dropped: AtomicBool,
}

/// Sets `dropped` when the job's future is dropped.
struct OnDrop(Arc<Seen>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.dropped.store(true, Ordering::SeqCst);
    }
}

/// Runs until cancelled; records what it saw.
#[mcp::tool(task = "optional")]
async fn long_job(ctx: Context, seen: State<Arc<Seen>>) -> &'static str {
    let seen: Arc<Seen> = Arc::clone(&seen);
    let _guard = OnDrop(seen.clone());
    let watcher = ctx.clone();
    let flag = seen.clone();
    tokio::spawn(async move {
        watcher.cancelled().await;
        flag.cancelled.store(true, Ordering::SeqCst);
    });
    tokio::time::sleep(Duration::from_secs(3600)).await;
    "finished"
}

/// Archive them?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct Confirm {
    confirm: bool,
}

/// Asks inside the task; only ever a task.
#[mcp::tool(task = "required")]
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

/// Asks two things at once, inside the task.
#[mcp::tool(task = "optional")]
async fn two_at_once(
    #[mcp(key = "first")] first: Elicit<Name>,
    #[mcp(key = "second")] second: Elicit<Name>,
) -> String {
    format!("{} and {}", first.name, second.name)
}

/// Reports progress from inside its task, where it must not be sent.
#[mcp::tool(task = "required", ask_before_task)]
async fn reports_in_task(ctx: Context, #[mcp(key = "user_name")] name: Elicit<Name>) -> String {
    ctx.progress(1.0, None, Some("inside".into())).await;
    format!("reported to {}", name.name)
}

/// Asks on the call, then runs as a task.
#[mcp::tool(task = "required", ask_before_task)]
async fn asks_first(#[mcp(key = "user_name")] name: Elicit<Name>) -> String {
    format!("Hello, {}!", name.name)
}

fn server(seen: Arc<Seen>) -> Server {
    McpServer::new("tasks-test")
        .state(seen)
        .tasks(Tasks::new(MemoryTaskStore::new()).poll_interval(Duration::from_millis(100)))
        .tools(mcp::tools![
            hello,
            batch,
            plain_tool,
            refuses,
            breaks,
            panics,
            long_job,
            archive,
            two_at_once,
            asks_first,
            reports_in_task
        ])
        .build()
        .expect("the server builds")
}

fn wire() -> Wire {
    Wire::new(&server(Arc::default()))
}

/// Starts `tool` as a task; its `CreateTaskResult`.
async fn start(wire: &mut Wire, tool: &str, arguments: Value) -> Value {
    let reply = wire
        .call(
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
            declaring(),
        )
        .await;
    let result = reply["result"].clone();
    assert_eq!(result["resultType"], "task", "{reply}");
    result
}

async fn get(wire: &mut Wire, task_id: &str) -> Value {
    wire.call("tasks/get", json!({"taskId": task_id}), declaring())
        .await
}

/// Polls until the task's status is `status` (or terminal).
async fn until(wire: &mut Wire, task_id: &str, status: &str) -> Value {
    for _ in 0..500 {
        let reply = get(wire, task_id).await;
        let seen = reply["result"]["status"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if seen == status || ["completed", "failed", "cancelled"].contains(&seen.as_str()) {
            return reply["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {task_id} never reached {status}");
}

/// An empty acknowledgement: `resultType: "complete"` and the server's `_meta`, nothing more.
fn assert_ack(reply: &Value) {
    let result = reply["result"].as_object().expect("a result");
    assert_eq!(
        result.get("resultType"),
        Some(&json!("complete")),
        "{reply}"
    );
    assert!(
        result.keys().all(|k| k == "resultType" || k == "_meta"),
        "{reply}"
    );
}

fn text(task: &Value) -> &str {
    task["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test]
async fn discover_advertises_tasks_and_a_declaring_client_gets_a_flat_task() {
    let mut wire = wire();
    let discover = wire.call("server/discover", json!({}), json!({})).await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"][TASKS],
        json!({})
    );

    let task = start(&mut wire, "hello", json!({"name": "Ada"})).await;
    let id = task["taskId"].as_str().expect("a taskId");
    assert_eq!(id.len(), mcp::tasks::TASK_ID_LEN);
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttlMs"], 3_600_000);
    assert_eq!(task["pollIntervalMs"], 100);
    for member in ["createdAt", "lastUpdatedAt"] {
        assert!(
            task[member].as_str().is_some_and(|t| t.ends_with('Z')),
            "{task}"
        );
    }
    for absent in [
        "task",
        "result",
        "error",
        "inputRequests",
        "requestState",
        "ttl",
    ] {
        assert!(task.get(absent).is_none(), "{absent} in {task}");
    }
    // Durable before the answer: the very next tasks/get finds it.
    let first = get(&mut wire, id).await;
    assert_eq!(first["result"]["taskId"], id, "{first}");
    assert_eq!(first["result"]["resultType"], "complete");

    let done = until(&mut wire, id, "completed").await;
    assert_eq!(done["status"], "completed");
    assert_eq!(text(&done), "Hello, Ada!");
    assert!(done.get("error").is_none() && done.get("inputRequests").is_none());
}

#[tokio::test]
async fn without_the_extension_optional_tools_answer_at_once_and_required_ones_are_refused() {
    let mut wire = wire();
    let reply = wire
        .call(
            "tools/call",
            json!({"name": "hello", "arguments": {"name": "Bo"}}),
            plain(),
        )
        .await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "Hello, Bo!");

    let reply = wire
        .call(
            "tools/call",
            json!({"name": "batch", "arguments": {}}),
            plain(),
        )
        .await;
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"]["extensions"],
        json!({TASKS: {}})
    );

    // A tool that allows no task is never one, whatever the client declares.
    let reply = wire
        .call(
            "tools/call",
            json!({"name": "plain_tool", "arguments": {}}),
            declaring(),
        )
        .await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");

    // The task methods are the extension's: -32021 for a client that did not declare it.
    for method in ["tasks/get", "tasks/cancel"] {
        let reply = wire.call(method, json!({"taskId": "x"}), plain()).await;
        assert_eq!(reply["error"]["code"], -32021, "{method}: {reply}");
    }
}

#[tokio::test]
async fn tool_errors_complete_and_protocol_errors_and_panics_fail() {
    let mut wire = wire();
    let refused = start(&mut wire, "refuses", json!({})).await;
    let refused = until(
        &mut wire,
        refused["taskId"].as_str().unwrap_or_default(),
        "completed",
    )
    .await;
    assert_eq!(refused["status"], "completed");
    assert_eq!(refused["result"]["isError"], true);

    let broken = start(&mut wire, "breaks", json!({})).await;
    let broken = until(
        &mut wire,
        broken["taskId"].as_str().unwrap_or_default(),
        "failed",
    )
    .await;
    assert_eq!(broken["status"], "failed", "{broken}");
    assert_eq!(broken["error"]["code"], -32602);
    assert_eq!(broken["error"]["message"], "the batch id is not known");
    assert!(broken.get("result").is_none());

    let panicked = start(&mut wire, "panics", json!({})).await;
    let panicked = until(
        &mut wire,
        panicked["taskId"].as_str().unwrap_or_default(),
        "failed",
    )
    .await;
    assert_eq!(panicked["status"], "failed", "{panicked}");
    assert_eq!(panicked["error"]["code"], -32603);
    // The server still serves.
    let hello = start(&mut wire, "hello", json!({"name": "Cy"})).await;
    assert_eq!(hello["status"], "working");
}

#[tokio::test]
async fn a_resolve_parameter_asks_through_the_task_and_each_key_is_answered_once() {
    let mut wire = wire();
    let task = start(&mut wire, "archive", json!({})).await;
    let id = task["taskId"].as_str().expect("id").to_owned();
    let waiting = until(&mut wire, &id, "input_required").await;
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    let question = &waiting["inputRequests"]["confirm"];
    assert_eq!(question["method"], "elicitation/create", "{waiting}");
    // Polling again shows the same question.
    let again = get(&mut wire, &id).await;
    assert_eq!(again["result"]["inputRequests"]["confirm"], *question);

    let answer = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let ack = wire
        .call(
            "tasks/update",
            json!({"taskId": id, "inputResponses": answer}),
            declaring(),
        )
        .await;
    assert_ack(&ack);
    let done = until(&mut wire, &id, "completed").await;
    assert_eq!(text(&done), "Archived 3 posts.", "{done}");

    // The key was answered: a second answer is ignored, and acknowledged all the same.
    let late = json!({"confirm": {"action": "decline"}});
    let ack = wire
        .call(
            "tasks/update",
            json!({"taskId": id, "inputResponses": late}),
            declaring(),
        )
        .await;
    assert_ack(&ack);
    assert_eq!(
        text(&until(&mut wire, &id, "completed").await),
        "Archived 3 posts."
    );
}

#[tokio::test]
async fn two_questions_answered_one_at_a_time_keep_the_task_waiting_for_the_other() {
    let mut wire = wire();
    let task = start(&mut wire, "two_at_once", json!({})).await;
    let id = task["taskId"].as_str().expect("id").to_owned();
    let waiting = until(&mut wire, &id, "input_required").await;
    let keys: Vec<&String> = waiting["inputRequests"]
        .as_object()
        .expect("map")
        .keys()
        .collect();
    assert_eq!(keys, ["first", "second"], "{waiting}");

    let first = json!({"first": {"action": "accept", "content": {"name": "Ann"}}});
    wire.call(
        "tasks/update",
        json!({"taskId": id, "inputResponses": first}),
        declaring(),
    )
    .await;
    let half = get(&mut wire, &id).await["result"].clone();
    assert_eq!(half["status"], "input_required", "{half}");
    let keys: Vec<&String> = half["inputRequests"]
        .as_object()
        .expect("map")
        .keys()
        .collect();
    assert_eq!(keys, ["second"], "{half}");

    let second = json!({"second": {"action": "accept", "content": {"name": "Ben"}}});
    wire.call(
        "tasks/update",
        json!({"taskId": id, "inputResponses": second}),
        declaring(),
    )
    .await;
    assert_eq!(
        text(&until(&mut wire, &id, "completed").await),
        "Ann and Ben"
    );
}

#[tokio::test]
async fn a_tool_that_asks_first_asks_on_the_call_then_becomes_a_task() {
    let mut wire = wire();
    let round = wire
        .call(
            "tools/call",
            json!({"name": "asks_first", "arguments": {}}),
            declaring(),
        )
        .await;
    let round = round["result"].clone();
    assert_eq!(round["resultType"], "input_required", "{round}");
    assert!(round.get("taskId").is_none());
    let state = round["requestState"].clone();
    assert!(state.is_string());

    let answers = json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}});
    let params = json!({"name": "asks_first", "arguments": {},
                        "inputResponses": answers, "requestState": state});
    let task = wire.call("tools/call", params, declaring()).await["result"].clone();
    assert_eq!(task["resultType"], "task", "{task}");
    assert!(task.get("requestState").is_none() && task.get("inputRequests").is_none());
    let id = task["taskId"].as_str().expect("id").to_owned();
    assert_eq!(
        text(&until(&mut wire, &id, "completed").await),
        "Hello, Alice!"
    );
}

#[tokio::test]
async fn cancel_drops_the_function_which_sees_it_and_a_finished_task_stays_as_it_is() {
    let seen = Arc::new(Seen::default());
    let mut wire = Wire::new(&server(seen.clone()));
    let task = start(&mut wire, "long_job", json!({})).await;
    let id = task["taskId"].as_str().expect("id").to_owned();
    let ack = wire
        .call("tasks/cancel", json!({"taskId": id}), declaring())
        .await;
    assert_ack(&ack);
    let ended = until(&mut wire, &id, "cancelled").await;
    assert_eq!(ended["status"], "cancelled", "{ended}");
    for _ in 0..100 {
        if seen.dropped.load(Ordering::SeqCst) && seen.cancelled.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        seen.dropped.load(Ordering::SeqCst),
        "the function's future was dropped"
    );
    assert!(
        seen.cancelled.load(Ordering::SeqCst),
        "its context saw the cancellation"
    );

    // Cancelling a finished task acknowledges and changes nothing.
    let done = start(&mut wire, "hello", json!({"name": "Di"})).await;
    let done_id = done["taskId"].as_str().expect("id").to_owned();
    until(&mut wire, &done_id, "completed").await;
    let ack = wire
        .call("tasks/cancel", json!({"taskId": done_id}), declaring())
        .await;
    assert_ack(&ack);
    assert_eq!(
        get(&mut wire, &done_id).await["result"]["status"],
        "completed"
    );
}

#[tokio::test]
async fn questions_left_unanswered_for_the_ttl_fail_the_task() {
    let server = McpServer::new("short-lived")
        .tasks(Tasks::default().ttl(Duration::from_millis(300)))
        .tools(mcp::tools![archive])
        .build()
        .expect("the server builds");
    let mut wire = Wire::new(&server);
    let task = start(&mut wire, "archive", json!({})).await;
    let id = task["taskId"].as_str().expect("id").to_owned();
    assert_eq!(
        until(&mut wire, &id, "input_required").await["status"],
        "input_required"
    );
    let ended = until(&mut wire, &id, "failed").await;
    assert_eq!(ended["status"], "failed", "{ended}");
    assert_eq!(ended["error"]["code"], -32603);
    assert!(
        ended["statusMessage"]
            .as_str()
            .is_some_and(|m| m.contains("unanswered"))
    );
}

#[tokio::test]
async fn a_full_store_refuses_new_tasks_saying_so_and_keeps_serving() {
    let mut limits = mcp::tasks::TaskLimits::default();
    limits.total = 1;
    let server = McpServer::new("small")
        .tasks(Tasks::new(MemoryTaskStore::with_limits(limits)))
        .tools(mcp::tools![hello])
        .build()
        .expect("the server builds");
    let mut wire = Wire::new(&server);
    let first = start(&mut wire, "hello", json!({"name": "A"})).await;
    let params = json!({"name": "hello", "arguments": {"name": "B"}});
    let refused = wire.call("tools/call", params, declaring()).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Too many tasks")),
        "{refused}"
    );
    let id = first["taskId"].as_str().expect("id");
    assert_eq!(
        until(&mut wire, id, "completed").await["status"],
        "completed"
    );
}

#[tokio::test]
async fn an_unknown_task_is_invalid_params_and_unknown_methods_are_not_found() {
    let mut wire = wire();
    for method in ["tasks/get", "tasks/cancel"] {
        let reply = wire
            .call(method, json!({"taskId": "nope"}), declaring())
            .await;
        assert_eq!(reply["error"]["code"], -32602, "{method}: {reply}");
    }
    let params = json!({"taskId": "nope", "inputResponses": {}});
    let reply = wire.call("tasks/update", params, declaring()).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    for method in ["tasks/result", "tasks/list"] {
        let reply = wire
            .call(method, json!({"taskId": "nope"}), declaring())
            .await;
        assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
    }
}

/// A 2026-07-28 request of `user`'s, declaring the tasks extension, to the server at `addr`
/// (see [`serve_with_callers`]); the reply.
async fn post_as(
    addr: SocketAddr,
    user: &str,
    method: &str,
    params: Value,
    name: Option<&str>,
) -> Value {
    let mut params = params;
    params["_meta"] = meta(declaring());
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    post(addr, body.to_string())
        .routing(method, name)
        .header("authorization", &format!("Bearer {user}"))
        .send()
        .await
        .json()
}

#[tokio::test]
async fn another_callers_task_is_not_found() {
    let (addr, _stop) = serve_with_callers(server(Arc::default())).await;
    let params = json!({"name": "hello", "arguments": {"name": "Eve"}});
    let task = post_as(addr, "alice", "tools/call", params, Some("hello")).await;
    let id = task["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let own = post_as(addr, "alice", "tasks/get", json!({"taskId": id}), Some(&id)).await;
    assert_eq!(own["result"]["taskId"], id, "{own}");
    for method in ["tasks/get", "tasks/cancel"] {
        let other = post_as(addr, "mallory", method, json!({"taskId": id}), Some(&id)).await;
        assert_eq!(other["error"]["code"], -32602, "{method}: {other}");
    }
    // Mcp-Name carries the task id, for balancers to route by.
    let params = json!({"taskId": id});
    let elsewhere = post_as(addr, "alice", "tasks/get", params, Some("t2")).await;
    assert_eq!(elsewhere["error"]["code"], -32020, "{elsewhere}");
}

/// Our client against this runtime: `archive` (a task-required tool that asks inside its
/// task) and `asks_first` (asks on the call, then a task) come back as plain results, with the
/// questions answered by the client's elicitation handler; over in-memory and HTTP.
mod with_our_client {
    use mcp::client::{Client, ClientBuilder, ToolStart};
    use mcp::protocol::{ElicitResult, Implementation, JsonObject};
    use mcp::transport::http_client;

    use super::*;

    /// Says yes, and that the user is called Alice.
    fn answering() -> ClientBuilder {
        Client::builder(Implementation::new("tasks-client", "1.0.0")).on_elicit(|question| {
            let content = match question.message().contains("name") {
                true => json!({"name": "Alice"}),
                false => json!({"confirm": true}),
            };
            let content: JsonObject = content.as_object().cloned().unwrap_or_default();
            async move { Ok(ElicitResult::accept(content)) }
        })
    }

    async fn runs_tasks_to_their_results(client: Client) {
        let archived = client.call_tool("archive", None).await.expect("archived");
        assert_eq!(archived.content[0].as_text(), Some("Archived 3 posts."));
        let hello = client.call_tool("asks_first", None).await.expect("greeted");
        assert_eq!(hello.content[0].as_text(), Some("Hello, Alice!"));

        // By hand: started, cancelled, and seen cancelled.
        let started = client.start_tool("long_job", None).await.expect("started");
        let ToolStart::Task(task) = started else {
            panic!("long_job runs as a task for a client that takes one");
        };
        client.cancel_task(&task.task_id).await.expect("cancelled");
        let error = client
            .wait_task(&task.task_id)
            .await
            .expect_err("cancelled");
        assert!(
            matches!(error, mcp::client::ClientError::TaskCancelled { .. }),
            "{error:?}"
        );
    }

    /// 2025-11-25 has no extensions: a tool that allows tasks answers in the call, and a
    /// task-required one is refused with -32021.
    #[tokio::test]
    async fn a_2025_session_gets_plain_answers() {
        let server = server(Arc::default());
        let client = answering().connect(server.serve_in_memory());
        client.initialize().await.expect("a 2025-11-25 session");
        let args = json!({"name": "Old"});
        let hello = client
            .call_tool("hello", Some(args))
            .await
            .expect("greeted");
        assert_eq!(hello.content[0].as_text(), Some("Hello, Old!"));
        let error = client
            .call_tool("archive", None)
            .await
            .expect_err("refused");
        let mcp::client::ClientError::Rpc(error) = error else {
            panic!("a JSON-RPC error: {error:?}");
        };
        assert_eq!(error.code, -32021, "{error:?}");
    }

    #[tokio::test]
    async fn in_memory() {
        let server = server(Arc::default());
        let client = answering().connect(server.serve_in_memory());
        runs_tasks_to_their_results(client).await;
    }

    #[tokio::test]
    async fn over_http() {
        let (url, _stop) = crate::support::http::serve(server(Arc::default())).await;
        let client = answering().connect(http_client::connect(&url).expect("a URL"));
        runs_tasks_to_their_results(client).await;
    }
}

#[tokio::test]
async fn a_task_body_past_its_gate_sends_no_progress_though_the_call_asked_for_it() {
    let mut wire = wire();
    let call = json!({"name": "reports_in_task", "arguments": {}});
    let asked = wire.call("tools/call", call.clone(), declaring()).await;
    let state = asked["result"]["requestState"].clone();
    assert!(state.is_string(), "asked first: {asked}");
    let mut params = call;
    params["inputResponses"] =
        json!({"user_name": {"action": "accept", "content": {"name": "Ada"}}});
    params["requestState"] = state;
    params["_meta"] = meta(declaring());
    params["_meta"]["progressToken"] = json!("p1");
    let line = json!({"jsonrpc": "2.0", "id": 1000, "method": "tools/call", "params": params});
    let (mut heard, created) = wire.exchange(line.to_string()).await;
    let id = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let mut status = String::new();
    for n in 2..500 {
        let params = json!({"taskId": id, "_meta": meta(declaring())});
        let line = json!({"jsonrpc": "2.0", "id": n, "method": "tasks/get", "params": params});
        let (more, reply) = wire.exchange(line.to_string()).await;
        heard.extend(more);
        status = reply["result"]["status"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if status == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(status, "completed");
    assert!(
        heard
            .iter()
            .all(|n| n["method"] != "notifications/progress"),
        "progress is not sent on tasks: {heard:?}"
    );
}
