//! The client side of the tasks extension, against a scripted server: a low-level `Server`
//! whose tasks extension plays each task in memory, one poll at a time. `call_tool` follows a
//! task to its result (answering each input request once, however often the task shows it),
//! turns `failed`, `cancelled` and a passed ttl into their errors, and takes a task made after
//! rounds of questions; the manual API starts, looks at, answers, cancels and waits for tasks
//! from a second client; the client declares the extension unless told not to; and polling
//! keeps to the task's interval and stops with the caller. In memory and over HTTP.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::client::{Client, ClientBuilder, ClientError, ToolStart};
use mcp::protocol::{
    CallToolResult, DetailedTask, ElicitParams, ElicitResult, ExtensionResult, Implementation,
    InputRequest, InputRequests, InputRequiredResult, InputResponses, JsonObject, McpError,
    TASK_RESULT_TYPE, TASKS_EXTENSION, Task, TaskIdParams, TaskStatus, UpdateTaskParams, methods,
};
use mcp::server::{Context, ExtendedOutcome, Extension, Server};
use mcp::tasks::Timestamp;
use serde_json::{Value, json};
use tokio::time::Instant;

/// How often the scripted tasks ask to be polled: short, so the tests run quickly.
const POLL_MS: u64 = 50;

/// What a scripted task does, poll after poll.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Script {
    /// Working; then asks `name` until answered; shows `name` on two more polls after the
    /// answer (the server has not caught up); asks `confirm`; completes with a greeting of the
    /// name.
    Greet,
    /// Working, then failed with a JSON-RPC error.
    Fail,
    /// Working, then cancelled by the server.
    Cancelled,
    /// Working until `tasks/cancel`, then cancelled; with a long interval of its own when
    /// made for the pace test.
    Long,
    /// Working forever, with a ttl of 300 ms.
    Stuck,
    /// Completed at once with the region the call's round was answered with.
    Region,
    /// Working for 2 s from its creation, then completed.
    TwoSeconds,
    /// Asks a new question each time the last one is answered, for ever.
    Endless,
}

/// One task as the server plays it.
struct Played {
    script: Script,
    created_at: String,
    created: Instant,
    ttl_ms: Option<u64>,
    poll_interval_ms: u64,
    polls: u32,
    /// Every answer the task has taken in, by key; a key answered again keeps its first answer.
    answers: InputResponses,
    /// How often `name` was shown after its answer came.
    stale_shows: u32,
    cancel_requested: bool,
    /// Set by the `Region` script at creation.
    region: Option<String>,
}

/// The scripted server's tasks and what it saw.
#[derive(Clone, Default)]
struct Board {
    tasks: Arc<Mutex<HashMap<String, Played>>>,
    next_id: Arc<AtomicU64>,
    /// The `tasks/get` requests, with when they came (on the test's clock).
    gets: Arc<Mutex<Vec<(String, Instant)>>>,
    /// The `tasks/update` requests, in order.
    updates: Arc<Mutex<Vec<UpdateTaskParams>>>,
    /// The `tasks/cancel` requests.
    cancels: Arc<AtomicU32>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn object(value: Value) -> JsonObject {
    value.as_object().cloned().unwrap_or_default()
}

fn elicit(message: &str, field: &str, kind: &str) -> InputRequest {
    let schema =
        json!({"type": "object", "properties": {field: {"type": kind}}, "required": [field]});
    InputRequest::Elicit(ElicitParams::form(message, schema))
}

impl Board {
    /// Makes a task playing `script`: the `CreateTaskResult` members.
    fn create(&self, script: Script, region: Option<String>) -> Task {
        let task_id = format!("task-{}", self.next_id.fetch_add(1, Ordering::SeqCst));
        let now = Timestamp::now().to_string();
        let (ttl_ms, poll_interval_ms) = match script {
            Script::Stuck => (Some(300), POLL_MS),
            Script::TwoSeconds => (None, 100),
            _ => (Some(60_000), POLL_MS),
        };
        let played = Played {
            script,
            created_at: now.clone(),
            created: Instant::now(),
            ttl_ms,
            poll_interval_ms,
            polls: 0,
            answers: InputResponses::new(),
            stale_shows: 0,
            cancel_requested: false,
            region,
        };
        lock(&self.tasks).insert(task_id.clone(), played);
        Task {
            task_id,
            status: TaskStatus::Working,
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl_ms,
            poll_interval_ms: Some(poll_interval_ms),
        }
    }

    /// `tasks/get`: one more poll of the task's script.
    fn get(&self, task_id: &str) -> Result<DetailedTask, McpError> {
        lock(&self.gets).push((task_id.to_owned(), Instant::now()));
        let mut tasks = lock(&self.tasks);
        let played = tasks
            .get_mut(task_id)
            .ok_or_else(|| McpError::invalid_params("Failed to retrieve task: Task not found"))?;
        played.polls += 1;
        let mut view = DetailedTask {
            task: Task {
                task_id: task_id.to_owned(),
                status: TaskStatus::Working,
                status_message: None,
                created_at: played.created_at.clone(),
                last_updated_at: Timestamp::now().to_string(),
                ttl_ms: played.ttl_ms,
                poll_interval_ms: Some(played.poll_interval_ms),
            },
            input_requests: None,
            result: None,
            error: None,
        };
        let ask = |view: &mut DetailedTask, key: &str, request: InputRequest| {
            view.task.status = TaskStatus::InputRequired;
            view.input_requests = Some(InputRequests::from([(key.to_owned(), request)]));
        };
        let first = played.polls == 1;
        match played.script {
            _ if played.cancel_requested => view.task.status = TaskStatus::Cancelled,
            Script::Greet if first => {}
            Script::Greet if played.answers.get("name").is_none() => {
                ask(&mut view, "name", elicit("Your name?", "name", "string"));
            }
            Script::Greet if played.stale_shows < 2 => {
                played.stale_shows += 1;
                ask(&mut view, "name", elicit("Your name?", "name", "string"));
            }
            Script::Greet if played.answers.get("confirm").is_none() => {
                ask(&mut view, "confirm", elicit("Sure?", "ok", "boolean"));
            }
            Script::Greet => {
                let name = played
                    .answers
                    .elicit("name")
                    .and_then(Result::ok)
                    .and_then(|answer| answer.content)
                    .and_then(|content| content.get("name").cloned())
                    .unwrap_or_default();
                let name = name.as_str().unwrap_or("nobody");
                let result = serde_json::to_value(CallToolResult::text(format!("Hello, {name}!")));
                view.task.status = TaskStatus::Completed;
                view.result = result.ok().map(object);
            }
            Script::Fail if first => {}
            Script::Fail => {
                view.task.status = TaskStatus::Failed;
                view.task.status_message = Some("Tool execution failed".into());
                view.error = Some(
                    McpError::new(-32001, "API rate limit exceeded")
                        .with_data(json!({"retryAfterMs": 1000})),
                );
            }
            Script::Cancelled if first => {}
            Script::Cancelled => {
                view.task.status = TaskStatus::Cancelled;
                view.task.status_message = Some("stopped by the operator".into());
            }
            Script::Long | Script::Stuck => {}
            Script::Region => {
                let region = played.region.clone().unwrap_or_default();
                let result = serde_json::to_value(CallToolResult::text(format!("in {region}")));
                view.task.status = TaskStatus::Completed;
                view.result = result.ok().map(object);
            }
            Script::Endless => {
                let key = format!("q-{}", played.answers.0.len());
                ask(&mut view, &key, elicit("Sure?", "ok", "boolean"));
            }
            Script::TwoSeconds if played.created.elapsed() < Duration::from_secs(2) => {}
            Script::TwoSeconds => {
                let result = serde_json::to_value(CallToolResult::text("done"));
                view.task.status = TaskStatus::Completed;
                view.result = result.ok().map(object);
            }
        }
        Ok(view)
    }

    /// `tasks/update`: takes in the answers to keys not answered yet.
    fn update(&self, params: UpdateTaskParams) -> Result<Value, McpError> {
        lock(&self.updates).push(params.clone());
        let mut tasks = lock(&self.tasks);
        let played = tasks
            .get_mut(&params.task_id)
            .ok_or_else(|| McpError::invalid_params("Task not found"))?;
        for (key, answer) in params.input_responses.0 {
            if played.answers.get(&key).is_none() {
                played.answers.insert(key, answer);
            }
        }
        Ok(json!({}))
    }

    fn cancel(&self, task_id: &str) -> Result<Value, McpError> {
        self.cancels.fetch_add(1, Ordering::SeqCst);
        let mut tasks = lock(&self.tasks);
        let played = tasks
            .get_mut(task_id)
            .ok_or_else(|| McpError::invalid_params("Task not found"))?;
        played.cancel_requested = true;
        Ok(json!({}))
    }

    /// How many `tasks/get` requests came for `task_id`.
    fn gets_of(&self, task_id: &str) -> Vec<Instant> {
        let gets = lock(&self.gets);
        gets.iter()
            .filter(|(id, _)| id == task_id)
            .map(|(_, at)| *at)
            .collect()
    }

    /// The keys of each `tasks/update` for `task_id`, in order.
    fn updates_of(&self, task_id: &str) -> Vec<Vec<String>> {
        let updates = lock(&self.updates);
        updates
            .iter()
            .filter(|update| update.task_id == task_id)
            .map(|update| update.input_responses.0.keys().cloned().collect())
            .collect()
    }
}

fn task_result(task: Task) -> ExtendedOutcome<CallToolResult> {
    let body = serde_json::to_value(task).map(object).unwrap_or_default();
    ExtensionResult::new(TASK_RESULT_TYPE, body).into()
}

/// The scripted server: the tasks extension over `board`, and tools named after the scripts
/// (`greet`, `fail`, `cancelled`, `long`, `stuck`, `two_seconds`), `region` (asks for a region
/// in a round of its own, then makes a task of the call), and `sees` (says whether the client
/// declared the extension on the call).
fn server(board: &Board) -> Server {
    let (get, update, cancel, call) = (board.clone(), board.clone(), board.clone(), board.clone());
    let tasks = Extension::new(TASKS_EXTENSION)
        .method(methods::TASKS_GET, move |_ctx: Context, p: TaskIdParams| {
            let board = get.clone();
            async move { board.get(&p.task_id) }
        })
        .method(
            methods::TASKS_UPDATE,
            move |_ctx: Context, p: UpdateTaskParams| {
                let board = update.clone();
                async move { board.update(p) }
            },
        )
        .method(
            methods::TASKS_CANCEL,
            move |_ctx: Context, p: TaskIdParams| {
                let board = cancel.clone();
                async move { board.cancel(&p.task_id) }
            },
        )
        .result_type(TASK_RESULT_TYPE, [methods::TOOLS_CALL]);
    Server::builder(Implementation::new("tasks", "1.0.0"))
        .extension(tasks)
        .on_call_tool(move |ctx, params| {
            let board = call.clone();
            async move {
                let script = match params.name.as_str() {
                    "sees" => {
                        let declared = ctx.client_extension(TASKS_EXTENSION).is_some();
                        return Ok(CallToolResult::text(declared.to_string()).into());
                    }
                    "region" => {
                        let answer = params
                            .input_responses
                            .as_ref()
                            .and_then(|responses| responses.elicit("region"))
                            .and_then(Result::ok)
                            .and_then(|answer| answer.content)
                            .and_then(|content| content.get("region").cloned());
                        let Some(Value::String(region)) = answer else {
                            let ask = InputRequiredResult::new()
                                .ask("region", elicit("Which region?", "region", "string"))
                                .with_state("asked-region");
                            return Ok(ask.into());
                        };
                        return Ok(task_result(board.create(Script::Region, Some(region))));
                    }
                    "greet" => Script::Greet,
                    "fail" => Script::Fail,
                    "cancelled" => Script::Cancelled,
                    "long" => Script::Long,
                    "stuck" => Script::Stuck,
                    "two_seconds" => Script::TwoSeconds,
                    "endless" => Script::Endless,
                    other => return Err(McpError::invalid_params(format!("Unknown tool {other}"))),
                };
                Ok(task_result(board.create(script, None)))
            }
        })
        .build()
        .expect("the server builds")
}

/// Questions the scripted user answered, by message.
#[derive(Clone, Default)]
struct Asked(Arc<Mutex<Vec<String>>>);

impl Asked {
    fn messages(&self) -> Vec<String> {
        lock(&self.0).clone()
    }
}

/// A client whose user is called Ada, is sure, and lives in eu-west-1.
fn answering(asked: &Asked) -> ClientBuilder {
    let asked = asked.clone();
    Client::builder(Implementation::new("tasks-client", "1.0.0")).on_elicit(move |question| {
        let asked = asked.clone();
        async move {
            let message = question.message().to_owned();
            lock(&asked.0).push(message.clone());
            let content = match message.as_str() {
                "Your name?" => json!({"name": "Ada"}),
                "Which region?" => json!({"region": "eu-west-1"}),
                _ => json!({"ok": true}),
            };
            Ok(ElicitResult::accept(object(content)))
        }
    })
}

fn text(result: &CallToolResult) -> &str {
    result.content[0].as_text().unwrap_or_default()
}

// The scenarios, each given a way to connect clients to the scripted server.

async fn a_task_is_followed_to_its_result_answering_each_request_once(
    board: &Board,
    connect: impl Fn(ClientBuilder) -> Client,
) {
    let asked = Asked::default();
    let client = connect(answering(&asked));
    let result = client.call_tool("greet", None).await.expect("the result");
    assert_eq!(text(&result), "Hello, Ada!");
    assert_eq!(result.is_error, None);
    // `name` was shown on three polls and answered once; `confirm` answered once.
    assert_eq!(asked.messages(), ["Your name?", "Sure?"]);
    assert_eq!(board.updates_of("task-0"), [["name"], ["confirm"]]);
    // working, name, name again twice, confirm, completed.
    assert_eq!(board.gets_of("task-0").len(), 6);
}

async fn a_failed_task_is_the_json_rpc_error_of_the_call(
    connect: impl Fn(ClientBuilder) -> Client,
) {
    let client = connect(answering(&Asked::default()));
    let error = client.call_tool("fail", None).await.expect_err("failed");
    let ClientError::Rpc(error) = error else {
        panic!("not the task's JSON-RPC error: {error:?}");
    };
    assert_eq!(error.code, -32001);
    assert_eq!(error.message, "API rate limit exceeded");
    assert_eq!(error.data, Some(json!({"retryAfterMs": 1000})));
}

async fn questions_before_the_task_are_rounds_then_the_task_is_followed(
    board: &Board,
    connect: impl Fn(ClientBuilder) -> Client,
) {
    let asked = Asked::default();
    let client = connect(answering(&asked));
    let result = client.call_tool("region", None).await.expect("the result");
    assert_eq!(text(&result), "in eu-west-1");
    assert_eq!(asked.messages(), ["Which region?"]);
    assert_eq!(board.gets_of("task-0").len(), 1);
    assert!(board.updates_of("task-0").is_empty());
}

async fn a_second_client_follows_a_task_the_first_started(
    board: &Board,
    connect: impl Fn(ClientBuilder) -> Client,
) {
    let starter = connect(Client::builder(Implementation::new("starter", "1")));
    let ToolStart::Task(task) = starter.start_tool("greet", None).await.expect("a start") else {
        panic!("greet runs as a task");
    };
    assert_eq!(task.status, TaskStatus::Working);
    assert_eq!(task.poll_interval_ms, Some(POLL_MS));
    let id = task.task_id;

    let asked = Asked::default();
    let other = connect(answering(&asked));
    let seen = other.get_task(&id).await.expect("tasks/get");
    assert_eq!(seen.task.status, TaskStatus::Working);
    let seen = other.get_task(&id).await.expect("tasks/get");
    assert_eq!(seen.task.status, TaskStatus::InputRequired);
    let requests = seen.input_requests.unwrap_or_default();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["name"]);
    let mut answers = InputResponses::new();
    answers.insert(
        "name",
        ElicitResult::accept(object(json!({"name": "Grace"}))),
    );
    other.update_task(&id, answers).await.expect("tasks/update");

    // The rest from the id alone: the stale `name` is answered again (this client never
    // answered it) and ignored by the server, `confirm` answered, the result returned.
    let result = other.wait_task(&id).await.expect("the result");
    assert_eq!(text(&result), "Hello, Grace!");
    assert_eq!(asked.messages(), ["Your name?", "Sure?"]);
    assert_eq!(board.updates_of(&id), [["name"], ["name"], ["confirm"]]);

    // A task cancelled from one client ends the other's wait.
    let ToolStart::Task(task) = starter.start_tool("long", None).await.expect("a start") else {
        panic!("long runs as a task");
    };
    let waiting = tokio::spawn({
        let starter = starter.clone();
        let id = task.task_id.clone();
        async move { starter.wait_task(&id).await }
    });
    other
        .cancel_task(&task.task_id)
        .await
        .expect("tasks/cancel");
    let seen = other.get_task(&task.task_id).await.expect("tasks/get");
    assert_eq!(seen.task.status, TaskStatus::Cancelled);
    let error = waiting.await.expect("joined").expect_err("cancelled");
    assert!(
        matches!(&error, ClientError::TaskCancelled { task_id, message: None } if *task_id == task.task_id),
        "{error:?}"
    );
    assert_eq!(board.cancels.load(Ordering::SeqCst), 1);

    let unknown = other.get_task("task-none").await.expect_err("no such task");
    assert!(
        matches!(&unknown, ClientError::Rpc(e) if e.code == -32602),
        "{unknown:?}"
    );
}

fn in_memory(board: &Board) -> impl Fn(ClientBuilder) -> Client + use<> {
    let server = server(board);
    move |builder| builder.connect(server.serve_in_memory())
}

#[tokio::test]
async fn call_tool_follows_a_task_answering_each_request_once() {
    let board = Board::default();
    a_task_is_followed_to_its_result_answering_each_request_once(&board, in_memory(&board)).await;
}

#[tokio::test]
async fn a_task_that_asks_for_ever_is_cut_off_after_max_rounds_updates() {
    let board = Board::default();
    let client = in_memory(&board)(answering(&Asked::default()).max_rounds(3));
    let error = client
        .call_tool("endless", None)
        .await
        .expect_err("cut off");
    assert!(
        matches!(error, ClientError::TooManyRounds { max: 3 }),
        "{error:?}"
    );
    assert_eq!(
        board.updates_of("task-0").len(),
        3,
        "three rounds answered, no fourth"
    );
}

#[tokio::test]
async fn a_failed_task_is_the_calls_json_rpc_error() {
    a_failed_task_is_the_json_rpc_error_of_the_call(in_memory(&Board::default())).await;
}

#[tokio::test]
async fn a_cancelled_task_is_task_cancelled_with_the_servers_message() {
    let client = in_memory(&Board::default())(answering(&Asked::default()));
    let error = client
        .call_tool("cancelled", None)
        .await
        .expect_err("cancelled");
    assert!(
        matches!(&error, ClientError::TaskCancelled { task_id, message: Some(m) }
            if task_id == "task-0" && m == "stopped by the operator"),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_task_still_working_at_its_ttl_is_task_expired() {
    let board = Board::default();
    let client = in_memory(&board)(answering(&Asked::default()));
    let error = client.call_tool("stuck", None).await.expect_err("expired");
    assert!(
        matches!(&error, ClientError::TaskExpired { task_id, ttl_ms: 300 } if task_id == "task-0"),
        "{error:?}"
    );
    // Polled until about 300 ms after its creation, 50 ms and more apart: a handful at most.
    let polls = board.gets_of("task-0").len();
    assert!((1..=7).contains(&polls), "{polls} polls");
    assert_eq!(
        board.cancels.load(Ordering::SeqCst),
        0,
        "nothing is cancelled"
    );
}

#[tokio::test]
async fn questions_asked_before_the_task_are_answered_as_rounds() {
    let board = Board::default();
    questions_before_the_task_are_rounds_then_the_task_is_followed(&board, in_memory(&board)).await;
}

#[tokio::test]
async fn the_manual_api_starts_looks_answers_cancels_and_waits_from_a_second_client() {
    let board = Board::default();
    a_second_client_follows_a_task_the_first_started(&board, in_memory(&board)).await;
}

#[tokio::test]
async fn the_client_declares_the_extension_unless_told_not_to() {
    let connect = in_memory(&Board::default());
    let default = connect(Client::builder(Implementation::new("c", "1")));
    let result = default.call_tool("sees", None).await.expect("a result");
    assert_eq!(text(&result), "true");
    let declining = connect(Client::builder(Implementation::new("c", "1")).accept_tasks(false));
    let result = declining.call_tool("sees", None).await.expect("a result");
    assert_eq!(text(&result), "false");

    // Not declaring, it is refused a tool that only runs as a task, and the task methods.
    let error = declining
        .call_tool("greet", None)
        .await
        .expect_err("refused");
    assert!(
        matches!(&error, ClientError::Rpc(e) if e.code == -32021),
        "{error:?}"
    );
    let error = declining.get_task("task-0").await.expect_err("refused");
    assert!(
        matches!(&error, ClientError::Rpc(e) if e.code == -32021),
        "{error:?}"
    );
}

#[tokio::test]
async fn call_tool_once_hands_over_a_task_it_cannot_take() {
    let board = Board::default();
    let client = in_memory(&board)(answering(&Asked::default()));
    let error = client
        .call_tool_once("greet", None, None, None)
        .await
        .expect_err("a task");
    let ClientError::UnexpectedTask(task) = error else {
        panic!("not the task: {error:?}");
    };
    let result = client.wait_task(&task.task_id).await.expect("the result");
    assert_eq!(text(&result), "Hello, Ada!");
}

#[tokio::test(start_paused = true)]
async fn polls_keep_to_the_tasks_interval_and_back_off_while_nothing_changes() {
    let board = Board::default();
    let client = in_memory(&board)(answering(&Asked::default()));
    let started = Instant::now();
    let result = client.call_tool("two_seconds", None).await.expect("done");
    assert_eq!(text(&result), "done");
    let gets = board.gets_of("task-0");
    // The task asks for 100 ms and works 2 s: 100, 150, 225, 337, 500, 500... apart, not 20
    // polls at its interval, and never closer than it asks.
    assert!((6..=9).contains(&gets.len()), "{} polls", gets.len());
    let mut previous = started;
    for at in &gets {
        let gap = at.duration_since(previous);
        assert!(gap >= Duration::from_millis(100), "{gap:?} between polls");
        assert!(gap <= Duration::from_millis(500), "{gap:?} between polls");
        previous = *at;
    }
}

#[tokio::test(start_paused = true)]
async fn a_dropped_call_polls_no_more() {
    let board = Board::default();
    let client = in_memory(&board)(answering(&Asked::default()));
    let call = client.call_tool("long", None);
    tokio::time::timeout(Duration::from_secs(1), call)
        .await
        .expect_err("still working");
    let polled = board.gets_of("task-0").len();
    assert!(polled >= 3, "{polled} polls");
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert_eq!(board.gets_of("task-0").len(), polled);
    assert_eq!(board.cancels.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn the_call_timeout_bounds_the_wait_for_a_task() {
    let board = Board::default();
    let builder = answering(&Asked::default()).call_timeout(Duration::from_secs(2));
    let client = in_memory(&board)(builder);
    let error = client.call_tool("long", None).await.expect_err("timed out");
    assert!(matches!(error, ClientError::Timeout(_)), "{error:?}");
    let polled = board.gets_of("task-0").len();
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert_eq!(board.gets_of("task-0").len(), polled);
}

#[cfg(feature = "http")]
mod over_http {
    use mcp::client::{Client, ClientBuilder};
    use mcp::transport::http_client;
    use tokio_util::sync::DropGuard;

    use super::{Board, server};

    async fn started(board: &Board) -> (impl Fn(ClientBuilder) -> Client + use<>, DropGuard) {
        let (url, stop) = crate::support::http::serve(server(board)).await;
        let connect = move |builder: ClientBuilder| {
            builder.connect(http_client::connect(&url).expect("a URL"))
        };
        (connect, stop)
    }

    #[tokio::test]
    async fn call_tool_follows_a_task_answering_each_request_once() {
        let board = Board::default();
        let (connect, _stop) = started(&board).await;
        super::a_task_is_followed_to_its_result_answering_each_request_once(&board, connect).await;
    }

    #[tokio::test]
    async fn a_failed_task_is_the_calls_json_rpc_error() {
        let (connect, _stop) = started(&Board::default()).await;
        super::a_failed_task_is_the_json_rpc_error_of_the_call(connect).await;
    }

    #[tokio::test]
    async fn questions_asked_before_the_task_are_answered_as_rounds() {
        let board = Board::default();
        let (connect, _stop) = started(&board).await;
        super::questions_before_the_task_are_rounds_then_the_task_is_followed(&board, connect)
            .await;
    }

    #[tokio::test]
    async fn the_manual_api_starts_looks_answers_cancels_and_waits_from_a_second_client() {
        let board = Board::default();
        let (connect, _stop) = started(&board).await;
        super::a_second_client_follows_a_task_the_first_started(&board, connect).await;
    }
}
