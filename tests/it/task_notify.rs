//! Task status notifications (`notifications/tasks`, the tasks extension) through
//! `subscriptions/listen`: a listen is granted its caller's own tasks and hears each status
//! they reach, the task whole every time and its result last; another owner's task is not
//! granted and never heard of; a listen that does not declare the extension is refused with
//! -32021; and across a fleet (a `RedisBus` and a `RedisTaskStore` on a real redis-server) a
//! listener on one instance hears a task that runs on another.
//!
//! The task tool is written by hand (`ToolEntry::from_tool`), and each of its rounds waits at
//! a gate the test opens, so every status is reached only when the test says.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp::BoxFuture;
use mcp::client::{Client, ClientError, Listen};
use mcp::protocol::{
    CallToolParams, CallToolResult, ClientCapabilities, DetailedTask, ElicitParams, Implementation,
    InputRequest, InputRequiredResult, McpError, Outcome, SubscriptionFilter, TASKS_EXTENSION,
    TaskStatus, Tool,
};
use mcp::push::{Change, RedisBus};
use mcp::server::{Context, MAX_LISTENED_TASKS, McpServer, TaskSupport, ToolEntry};
use mcp::tasks::{RedisTaskStore, TaskStore, Tasks};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::push_http::Events;
use crate::support::http::{meta, post, serve_with_callers};
use crate::support::redis::RedisServer;

/// Generous: a Redis bus connects with back-off, on a loaded machine.
const DEADLINE: Duration = Duration::from_secs(20);
const SUB: &str = "io.modelcontextprotocol/subscriptionId";

/// Holds each round of `deploy` until the test lets it through, one gate per caller (by
/// subject; `""` for an anonymous caller), so two callers' tasks move independently.
#[derive(Clone, Default)]
struct Gates(Arc<HashMap<&'static str, Semaphore>>);

impl Gates {
    fn new() -> Self {
        let gates = ["", "alice", "bob"].map(|who| (who, Semaphore::new(0)));
        Self(Arc::new(HashMap::from(gates)))
    }

    /// Lets one round of `who`'s task go.
    fn let_through(&self, who: &str) {
        if let Some(gate) = self.0.get(who) {
            gate.add_permits(1);
        }
    }

    async fn pass(&self, who: &str) {
        if let Some(gate) = self.0.get(who)
            && let Ok(permit) = gate.acquire().await
        {
            permit.forget();
        }
    }
}

/// Asks to confirm, then deploys; each round waits at its caller's gate first.
fn deploy(
    ctx: Context,
    call: CallToolParams,
) -> BoxFuture<Result<Outcome<CallToolResult>, McpError>> {
    Box::pin(async move {
        let who = ctx
            .identity()
            .and_then(|i| i.subject.clone())
            .unwrap_or_default();
        if let Some(gates) = ctx.state::<Gates>() {
            gates.pass(&who).await;
        }
        // A hand-written tool reads its round's answers from the call (a macro-generated
        // wrapper hands them to its context).
        let confirmed = call.input_responses.and_then(|r| r.get("confirm").cloned());
        Ok(match confirmed {
            None => {
                let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
                let ask = InputRequest::Elicit(ElicitParams::form("Deploy?", schema));
                InputRequiredResult::new().ask("confirm", ask).into()
            }
            Some(answer) => {
                CallToolResult::text(format!("Deployed for {who:?}: {}", answer["content"]["ok"]))
                    .into()
            }
        })
    })
}

fn deploy_tool() -> ToolEntry {
    let schema = json!({"type": "object", "properties": {}});
    ToolEntry::from_tool(Tool::new("deploy", schema), deploy).task(TaskSupport::Optional)
}

fn deployer(gates: &Gates) -> McpServer {
    McpServer::new("deployer")
        .tools([deploy_tool()])
        .state(gates.clone())
}

/// A client that declares the tasks extension.
fn tasks_client(duplex: mcp::transport::Duplex) -> Client {
    Client::builder(Implementation::new("c", "1"))
        .capabilities(ClientCapabilities::default().with_extension(TASKS_EXTENSION))
        .connect(duplex)
}

/// Calls `deploy`; the id of the task it was answered with.
async fn start(client: &Client) -> String {
    let task: Value = client
        .request("tools/call", json!({"name": "deploy", "arguments": {}}))
        .await
        .expect("answered");
    assert_eq!(task["resultType"], "task", "{task}");
    task["taskId"].as_str().expect("a task id").to_owned()
}

async fn confirm(client: &Client, task_id: &str) {
    let answer = json!({"action": "accept", "content": {"ok": true}});
    let _: Value = client
        .request(
            "tasks/update",
            json!({"taskId": task_id, "inputResponses": {"confirm": answer}}),
        )
        .await
        .expect("updated");
}

async fn next_task(listen: &mut Listen) -> DetailedTask {
    match tokio::time::timeout(DEADLINE, listen.next()).await {
        Ok(Some(Ok(Change::Task(notification)))) => notification.into_task(),
        Ok(other) => panic!("not a task notification: {other:?}"),
        Err(_) => panic!("no task notification within {DEADLINE:?}"),
    }
}

/// The statuses a listen hears from a task of `deploy`, from `working` to its result:
/// `let_through` lets its next round go, `confirm` (not run until then) answers its question.
async fn hear_every_status(
    listen: &mut Listen,
    let_through: impl Fn(),
    confirm: impl Future<Output = ()>,
) -> DetailedTask {
    let opened = next_task(listen).await;
    assert_eq!(
        opened.task.status,
        TaskStatus::Working,
        "where it stood when the listen opened"
    );
    let_through();
    let asking = next_task(listen).await;
    assert_eq!(asking.task.status, TaskStatus::InputRequired);
    let questions = asking.input_requests.unwrap_or_default();
    assert_eq!(questions.keys().collect::<Vec<_>>(), ["confirm"]);
    confirm.await;
    assert_eq!(next_task(listen).await.task.status, TaskStatus::Working);
    let_through();
    let done = next_task(listen).await;
    assert_eq!(done.task.status, TaskStatus::Completed, "{done:?}");
    done
}

#[tokio::test]
async fn a_listener_granted_its_own_task_hears_each_status_and_the_result_last() {
    let gates = Gates::new();
    let server = deployer(&gates).build().expect("builds");
    let client = tasks_client(server.serve_in_memory());
    let task_id = start(&client).await;

    let asked = SubscriptionFilter::new()
        .task(&task_id)
        .task("no-such-task");
    let mut listen = client.listen(asked).await.expect("opens");
    assert_eq!(
        listen.honoured(),
        &SubscriptionFilter::new().task(&task_id),
        "a task that does not exist is left out"
    );
    let done = hear_every_status(
        &mut listen,
        || gates.let_through(""),
        confirm(&client, &task_id),
    )
    .await;
    let text = done
        .result
        .as_ref()
        .map(|r| r["content"][0]["text"].clone());
    assert_eq!(text, Some(json!("Deployed for \"\": true")));
    let got: DetailedTask = client
        .request("tasks/get", json!({"taskId": task_id}))
        .await
        .expect("tasks/get");
    assert_eq!(got, done, "the task whole, as tasks/get shows it");
    let more = tokio::time::timeout(Duration::from_millis(300), listen.next()).await;
    assert!(more.is_err(), "nothing after the result: {more:?}");
}

#[tokio::test]
async fn a_task_cancelled_while_it_runs_is_heard_cancelled() {
    let gates = Gates::new();
    let server = deployer(&gates).build().expect("builds");
    let client = tasks_client(server.serve_in_memory());
    let task_id = start(&client).await;
    let mut listen = client
        .listen(SubscriptionFilter::new().task(&task_id))
        .await
        .expect("opens");
    assert_eq!(
        next_task(&mut listen).await.task.status,
        TaskStatus::Working
    );
    let _: Value = client
        .request("tasks/cancel", json!({"taskId": task_id}))
        .await
        .expect("cancelled");
    let cancelled = next_task(&mut listen).await;
    assert_eq!(cancelled.task.status, TaskStatus::Cancelled);
    assert_eq!(cancelled.task.task_id, task_id);
}

#[tokio::test]
async fn a_listen_for_tasks_that_does_not_declare_the_extension_is_refused_with_32021() {
    let gates = Gates::new();
    let server = deployer(&gates).build().expect("builds");
    let task_id = start(&tasks_client(server.serve_in_memory())).await;
    let undeclared = Client::builder(Implementation::new("c", "1"))
        .accept_tasks(false)
        .connect(server.serve_in_memory());
    match undeclared
        .listen(SubscriptionFilter::new().task(&task_id))
        .await
    {
        Err(ClientError::Rpc(error)) => {
            assert_eq!(error.code, -32021, "{error}");
            assert_eq!(
                error.data,
                Some(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}))
            );
        }
        other => panic!("not refused: {other:?}"),
    }
    // Asking for no task needs nothing declared.
    let listen = undeclared
        .listen(SubscriptionFilter::new().tools_changed())
        .await
        .expect("opens");
    assert_eq!(
        listen.honoured(),
        &SubscriptionFilter::new().tools_changed()
    );
}

#[tokio::test]
async fn a_listen_names_at_most_the_bound_of_tasks_and_a_server_without_tasks_grants_none() {
    let gates = Gates::new();
    let server = deployer(&gates).build().expect("builds");
    let client = tasks_client(server.serve_in_memory());
    let too_many = (0..=MAX_LISTENED_TASKS).map(|n| format!("t-{n}"));
    match client
        .listen(SubscriptionFilter::new().tasks(too_many))
        .await
    {
        Err(ClientError::Rpc(error)) => assert_eq!(error.code, -32602, "{error}"),
        other => panic!("not refused: {other:?}"),
    }

    let plain = McpServer::new("plain").build().expect("builds");
    assert!(plain.capabilities().extensions.is_none(), "no tasks here");
    let client = tasks_client(plain.serve_in_memory());
    let listen = client
        .listen(SubscriptionFilter::new().task("t-1"))
        .await
        .expect("opens");
    assert_eq!(listen.honoured(), &SubscriptionFilter::new());
}

/// One 2026-07-28 request of `who`'s, declaring the tasks extension, over HTTP.
fn request_of(
    addr: SocketAddr,
    who: &str,
    method: &str,
    name: Option<&str>,
    params: Value,
) -> crate::support::http::Request {
    let mut params = params;
    params["_meta"] = meta(json!({"extensions": {TASKS_EXTENSION: {}}}));
    let body = json!({"jsonrpc": "2.0", "id": method, "method": method, "params": params});
    post(addr, body.to_string())
        .routing(method, name)
        .header("authorization", &format!("Bearer {who}"))
}

/// The result of one request of `who`'s (its last event, when answered with a stream).
async fn call(
    addr: SocketAddr,
    who: &str,
    method: &str,
    name: Option<&str>,
    params: Value,
) -> Value {
    let reply = request_of(addr, who, method, name, params).send().await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let message = match reply.header("content-type") {
        Some(t) if t.starts_with("text/event-stream") => reply.events().pop().expect("an answer"),
        _ => reply.json(),
    };
    message
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("not a result: {message}"))
}

async fn start_as(addr: SocketAddr, who: &str) -> String {
    let task = call(
        addr,
        who,
        "tools/call",
        Some("deploy"),
        json!({"name": "deploy", "arguments": {}}),
    )
    .await;
    assert_eq!(task["resultType"], "task", "{task}");
    task["taskId"].as_str().expect("a task id").to_owned()
}

async fn get_as(addr: SocketAddr, who: &str, task_id: &str) -> Value {
    call(
        addr,
        who,
        "tasks/get",
        Some(task_id),
        json!({"taskId": task_id}),
    )
    .await
}

/// Opens `who`'s listen `id` for `task_ids`; its events, after the acknowledgement (returned).
async fn listen_as(addr: SocketAddr, who: &str, id: &str, task_ids: &[&str]) -> (Events, Value) {
    let mut params = json!({"notifications": {"taskIds": task_ids}});
    params["_meta"] = meta(json!({"extensions": {TASKS_EXTENSION: {}}}));
    let body =
        json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params});
    let stream = post(addr, body.to_string())
        .routing("subscriptions/listen", None)
        .header("authorization", &format!("Bearer {who}"))
        .open()
        .await;
    let mut events = Events::new(stream);
    let ack = events.next().await.expect("an acknowledgement");
    (events, ack)
}

/// The next `notifications/tasks` of a listen, checked to be its, and to show the task as
/// its owner's `tasks/get` does now (nothing moves while the test holds the gate): its
/// params without their `_meta`.
async fn next_on(events: &mut Events, listen: &str, addr: SocketAddr, who: &str) -> Value {
    let note = events.next().await.expect("a notification");
    assert_eq!(note["method"], "notifications/tasks", "{note}");
    let mut params = note["params"].clone();
    let tag = params.as_object_mut().and_then(|p| p.remove("_meta"));
    assert_eq!(tag, Some(json!({SUB: listen})));
    let task_id = params["taskId"].as_str().expect("a task id").to_owned();
    let mut got = get_as(addr, who, &task_id).await;
    if let Some(got) = got.as_object_mut() {
        got.remove("resultType");
        got.remove("_meta");
    }
    assert_eq!(params, got, "as tasks/get shows it");
    params
}

async fn until_status(addr: SocketAddr, who: &str, task_id: &str, status: &str) {
    let deadline = Instant::now() + DEADLINE;
    while get_as(addr, who, task_id).await["status"] != status {
        assert!(
            Instant::now() < deadline,
            "not {status} within {DEADLINE:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn over_http_a_listen_hears_its_callers_task_and_never_another_owners() {
    let gates = Gates::new();
    let (addr, _stop) = serve_with_callers(deployer(&gates).build().expect("builds")).await;
    let alices = start_as(addr, "alice").await;
    let bobs = start_as(addr, "bob").await;

    let (mut alice, ack) = listen_as(addr, "alice", "l-alice", &[&alices, &bobs, "nope"]).await;
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
               "params": {"notifications": {"taskIds": [alices]}, "_meta": {SUB: "l-alice"}}}),
        "bob's task and an unknown one left out"
    );
    let (mut bob, ack) = listen_as(addr, "bob", "l-bob", &[&alices]).await;
    assert_eq!(
        ack["params"]["notifications"],
        json!({}),
        "alice's task is not bob's"
    );

    let opened = next_on(&mut alice, "l-alice", addr, "alice").await;
    assert_eq!(
        (&opened["taskId"], &opened["status"]),
        (&json!(alices), &json!("working"))
    );
    // Bob's task asks first: alice's listen, which named it, hears nothing of it.
    gates.let_through("bob");
    until_status(addr, "bob", &bobs, "input_required").await;
    gates.let_through("alice");
    let asking = next_on(&mut alice, "l-alice", addr, "alice").await;
    assert_eq!(
        (&asking["taskId"], &asking["status"]),
        (&json!(alices), &json!("input_required"))
    );
    assert_eq!(
        asking["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );

    let answer = json!({"action": "accept", "content": {"ok": true}});
    let update = json!({"taskId": alices, "inputResponses": {"confirm": answer}});
    call(addr, "alice", "tasks/update", Some(&alices), update).await;
    let working = next_on(&mut alice, "l-alice", addr, "alice").await;
    assert_eq!(working["status"], "working");
    gates.let_through("alice");
    let done = next_on(&mut alice, "l-alice", addr, "alice").await;
    assert_eq!(done["status"], "completed");
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "Deployed for \"alice\": true"}])
    );

    for (events, who) in [(&mut alice, "alice"), (&mut bob, "bob")] {
        let more = tokio::time::timeout(Duration::from_millis(300), events.next()).await;
        assert!(more.is_err(), "nothing more for {who}: {more:?}");
    }
}

#[tokio::test]
async fn across_a_fleet_a_listener_on_one_instance_hears_a_task_running_on_another() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let gates = Gates::new();
    let instance = || {
        let bus = RedisBus::new(&redis.url(), "test:task-notify").expect("a bus");
        let store = RedisTaskStore::builder(redis.url())
            .prefix("test:task-notify:")
            .build()
            .expect("a store");
        let server = deployer(&gates)
            .notification_bus(bus.clone())
            .tasks(Tasks::new(store))
            .build()
            .expect("builds");
        (server, bus)
    };
    let ((a, bus_a), (b, bus_b)) = (instance(), instance());
    let deadline = Instant::now() + DEADLINE;
    while !(bus_a.is_connected() && bus_b.is_connected()) {
        assert!(
            Instant::now() < deadline,
            "buses not connected within {DEADLINE:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (url_a, _stop_a) = crate::support::http::serve(a).await;
    let (url_b, _stop_b) = crate::support::http::serve(b).await;
    let connect =
        |url: &str| tasks_client(mcp::transport::http_client::connect(url).expect("a URL"));
    let (on_a, on_b) = (connect(&url_a), connect(&url_b));

    // The task runs on B; its listener is on A, and answers through A.
    let task_id = start(&on_b).await;
    let mut listen = on_a
        .listen(SubscriptionFilter::new().task(&task_id))
        .await
        .expect("opens");
    assert_eq!(listen.honoured(), &SubscriptionFilter::new().task(&task_id));
    let done = hear_every_status(
        &mut listen,
        || gates.let_through(""),
        confirm(&on_a, &task_id),
    )
    .await;
    let text = done
        .result
        .as_ref()
        .map(|r| r["content"][0]["text"].clone());
    assert_eq!(text, Some(json!("Deployed for \"\": true")));
}

#[tokio::test]
async fn a_task_whose_runner_died_is_heard_failed_from_the_instance_that_sweeps_it() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let lease = Duration::from_millis(300);
    let store = || {
        RedisTaskStore::builder(redis.url())
            .prefix("test:task-sweep:")
            .lease(lease)
            .build()
            .expect("a store")
    };
    // A runner that made a task and died: its store handle never renews the lease.
    let task_id = {
        let dead = store();
        let task = dead
            .create("", Duration::from_secs(60), None)
            .await
            .expect("created");
        task.task_id
    };
    let gates = Gates::new();
    let server = deployer(&gates)
        .tasks(Tasks::new(store()))
        .build()
        .expect("builds");
    let client = tasks_client(server.serve_in_memory());
    // The listen is this instance's first brush with tasks: its upkeep starts there.
    let mut listen = client
        .listen(SubscriptionFilter::new().task(&task_id))
        .await
        .expect("opens");
    assert_eq!(listen.honoured(), &SubscriptionFilter::new().task(&task_id));
    let mut status = next_task(&mut listen).await.task.status;
    assert_eq!(status, TaskStatus::Working, "the state at grant");
    while status == TaskStatus::Working {
        status = next_task(&mut listen).await.task.status;
    }
    assert_eq!(status, TaskStatus::Failed, "swept once the lease ran out");
}
