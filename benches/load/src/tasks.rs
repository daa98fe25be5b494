//! `mcpload tasks`: how fast a server makes tasks (the tasks extension,
//! `io.modelcontextprotocol/tasks`) and answers `tasks/get` about them.
//!
//! Two phases on one server, each a closed loop of `--concurrency` workers (one keep-alive
//! HTTP/1.1 connection each) for `--seconds`, after a warm-up of `--warmup` seconds on
//! connections of its own, as `run` does:
//! - **create**: each operation is one `tools/call` of `job` that declares the extension; the
//!   answer must be `resultType: "task"` with a task id;
//! - **get**: each operation is one `tasks/get` (routed by `Mcp-Name: <taskId>`) of a task
//!   made in the create phase (its warm-up included), taken round-robin in the order they were
//!   made; the answer must be that task, `completed` with `done` as its result's text, or
//!   still `working` (counted apart).
//!
//! The run is one JSON object on stdout (a member per phase) and one line for people on
//! stderr. With `--server-pid`, the server's CPU time over each measured window is charged to
//! the phase's operations; with `--redis-pid`, Redis's too, apart.
//!
//! With `--count N`, there is no timing: exactly N tasks are made (by `--concurrency`
//! workers), then each is polled until it is `completed`, so that the caller can read what N
//! finished tasks take in memory.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use hyper::header::HeaderValue;
use serde::Deserialize;
use tokio::time::Instant;

use crate::{
    BoxError, CallError, CallResult, Connection, HARD_DEADLINE_GRACE, Operation, Result, RunResult,
    Target, Tool, final_text, flags, one_run, round, runtime, status_field,
};

/// The `_meta` of every request: the protocol version, and client capabilities that declare
/// the tasks extension.
const TASKS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"0.1.0"}}"#;
/// The text `job`'s tasks complete with.
const DONE: &str = "done";
/// How long `--count` waits for one task to finish.
const FINISH_WAIT: Duration = Duration::from_secs(5);
/// How long a `--count` run may take in all before the process gives up.
const COUNT_DEADLINE: Duration = Duration::from_secs(300);

pub(crate) struct TasksOptions {
    url: String,
    concurrency: usize,
    seconds: f64,
    warmup: f64,
    /// Make exactly this many finished tasks instead of timing the phases.
    count: Option<usize>,
    peer: String,
    /// The server processes whose CPU the operations are charged (one per instance).
    server_pids: Vec<u32>,
    /// The Redis the server keeps its tasks in, charged apart.
    redis_pid: Option<u32>,
}

impl TasksOptions {
    pub(crate) fn parse(args: &[String]) -> Result<Self> {
        let mut options = TasksOptions {
            url: String::new(),
            concurrency: 32,
            seconds: 5.0,
            warmup: 1.0,
            count: None,
            peer: "unnamed".into(),
            server_pids: Vec::new(),
            redis_pid: None,
        };
        for (flag, value) in flags::pairs(args)? {
            match flag {
                "--url" => options.url = value.to_owned(),
                "--concurrency" => options.concurrency = flags::count(flag, value)?,
                "--seconds" => options.seconds = flags::seconds(flag, value)?,
                "--warmup" => options.warmup = flags::seconds_or_zero(flag, value)?,
                "--count" => options.count = Some(flags::count(flag, value)?),
                "--peer" => options.peer = value.to_owned(),
                "--server-pid" => options.server_pids.push(flags::pid(flag, value)?),
                "--redis-pid" => options.redis_pid = Some(flags::pid(flag, value)?),
                other => return Err(flags::unknown(other)),
            }
        }
        flags::required_url(&options.url)?;
        Ok(options)
    }
}

/// `tools/call job`, declaring the tasks extension.
fn job_body() -> Bytes {
    Bytes::from(format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"job","arguments":{{}},{TASKS_META}}}}}"#
    ))
}

/// `tasks/get` of `task_id` (an id as servers make them: no character JSON escapes).
fn get_body(task_id: &str) -> Bytes {
    Bytes::from(format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{{"taskId":"{task_id}",{TASKS_META}}}}}"#
    ))
}

// The answers as far as the checks read them, borrowed from the body.

#[derive(Deserialize)]
struct TaskReply<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow)]
    result: Option<TaskResult<'a>>,
}

/// A `CreateTaskResult` or a `tasks/get` result.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskResult<'a> {
    #[serde(borrow)]
    result_type: Option<Cow<'a, str>>,
    #[serde(borrow)]
    task_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    status: Option<Cow<'a, str>>,
    /// A completed task's `CallToolResult`.
    #[serde(borrow)]
    result: Option<CallResult<'a>>,
}

fn task_of(body: &[u8]) -> Result<TaskResult<'_>, CallError> {
    let shown = || String::from_utf8_lossy(body).into_owned();
    let reply: TaskReply<'_> = serde_json::from_slice(body)
        .map_err(|e| CallError::Answer(format!("not a JSON-RPC answer ({e}): {}", shown())))?;
    if reply.jsonrpc != "2.0" {
        return Err(CallError::Answer(format!("not JSON-RPC 2.0: {}", shown())));
    }
    reply
        .result
        .ok_or_else(|| CallError::Answer(format!("no result: {}", shown())))
}

/// The id of the task a `tools/call` was answered with.
fn created_task(body: &[u8]) -> Result<String, CallError> {
    let task = task_of(body)?;
    if task.result_type.as_deref() != Some("task") {
        return Err(CallError::Answer(format!(
            "not answered with a task: {}",
            String::from_utf8_lossy(body)
        )));
    }
    match task.task_id {
        Some(id) if !id.is_empty() => Ok(id.into_owned()),
        _ => Err(CallError::Answer(format!(
            "a task without an id: {}",
            String::from_utf8_lossy(body)
        ))),
    }
}

#[derive(Debug, PartialEq)]
enum Polled {
    Working,
    Completed,
}

/// What `tasks/get` of `task_id` said: the task, working or completed with `done`.
fn polled(body: &[u8], task_id: &str) -> Result<Polled, CallError> {
    let shown = || String::from_utf8_lossy(body).into_owned();
    let task = task_of(body)?;
    if task.result_type.as_deref() != Some("complete") || task.task_id.as_deref() != Some(task_id) {
        return Err(CallError::Answer(format!(
            "not task {task_id}: {}",
            shown()
        )));
    }
    match task.status.as_deref() {
        Some("working") => Ok(Polled::Working),
        Some("completed") => {
            let result = task.result.as_ref().ok_or_else(|| {
                CallError::Answer(format!("completed without a result: {}", shown()))
            })?;
            let text = final_text(result, body)?;
            if text != DONE {
                return Err(CallError::Answer(format!(
                    "the task completed with {text:?}"
                )));
            }
            Ok(Polled::Completed)
        }
        _ => Err(CallError::Answer(format!("unexpected status: {}", shown()))),
    }
}

/// Makes a task; keeps its id.
struct Create {
    body: Bytes,
    made: Mutex<Vec<String>>,
}

impl Create {
    fn new() -> Self {
        Self {
            body: job_body(),
            made: Mutex::default(),
        }
    }

    fn take_made(&self) -> Vec<String> {
        std::mem::take(&mut *self.made.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Operation for Create {
    async fn once(&self, connection: &mut Connection, target: &Target) -> Result<(), CallError> {
        let body = connection
            .call(target, Tool::Job, self.body.clone())
            .await?;
        let id = created_task(&body)?;
        self.made.lock().unwrap_or_else(|e| e.into_inner()).push(id);
        Ok(())
    }
}

/// Polls the tasks made, round-robin.
struct Get {
    ids: Vec<String>,
    next: AtomicUsize,
    /// Answers that found the task still working.
    working: AtomicU64,
    /// Poll a working task again until it finishes (`--count`), instead of counting it.
    until_finished: bool,
}

impl Get {
    fn new(ids: Vec<String>, until_finished: bool) -> Self {
        Self {
            ids,
            next: AtomicUsize::new(0),
            working: AtomicU64::new(0),
            until_finished,
        }
    }
}

impl Operation for Get {
    async fn once(&self, connection: &mut Connection, target: &Target) -> Result<(), CallError> {
        let n = self.next.fetch_add(1, Ordering::Relaxed) % self.ids.len();
        let id = self.ids[n].as_str();
        let name = HeaderValue::from_str(id)
            .map_err(|_| CallError::Answer(format!("task id {id:?} is no header value")))?;
        let give_up = Instant::now() + FINISH_WAIT;
        loop {
            let body = connection
                .request(target, "tasks/get", Some(name.clone()), get_body(id))
                .await?;
            match polled(&body, id)? {
                Polled::Completed => return Ok(()),
                Polled::Working => {
                    self.working.fetch_add(1, Ordering::Relaxed);
                    if !self.until_finished {
                        return Ok(());
                    }
                }
            }
            if Instant::now() >= give_up {
                return Err(CallError::Answer(format!(
                    "task {id} still working after {FINISH_WAIT:?}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
}

/// Runs `op` exactly `count` times over `concurrency` connections; the first failure ends it.
async fn exactly<O: Operation>(
    target: &'static Target,
    op: &'static O,
    count: usize,
    concurrency: usize,
) -> Result<()> {
    let claimed = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..concurrency.min(count))
        .map(|_| {
            let claimed = claimed.clone();
            tokio::spawn(async move {
                let mut connection = Connection::open(target).await?;
                while claimed.fetch_add(1, Ordering::Relaxed) < count {
                    op.once(&mut connection, target)
                        .await
                        .map_err(|e| e.to_string())?;
                }
                Ok::<_, BoxError>(())
            })
        })
        .collect();
    for worker in workers {
        worker.await??;
    }
    Ok(())
}

/// One phase as reported: its measured run.
fn phase(run: &RunResult, secs: f64, servers: usize) -> serde_json::Value {
    let ms = |q: f64| run.latency_ns.value_at_quantile(q) as f64 / 1e6;
    let server_cpu: Option<f64> = match servers {
        0 => None,
        _ => run.cpu_s[..servers].iter().copied().sum(),
    };
    let redis_cpu = run.cpu_s[servers..].first().copied().flatten();
    let per_op = |cpu: Option<f64>| {
        cpu.filter(|_| run.ok > 0)
            .map(|v| round(v * 1e6 / run.ok as f64, 1))
    };
    serde_json::json!({
        "ops": run.ok,
        "errors": run.errors,
        "ops_per_s": round(run.ok as f64 / secs, 1),
        "p50_ms": round(ms(0.50), 3),
        "p99_ms": round(ms(0.99), 3),
        "max_ms": round(run.latency_ns.max() as f64 / 1e6, 3),
        "server_cpu_util": server_cpu.map(|v| round(v / secs, 3)),
        "server_cpu_us_per_op": per_op(server_cpu),
        "redis_cpu_util": redis_cpu.map(|v| round(v / secs, 3)),
        "redis_cpu_us_per_op": per_op(redis_cpu),
        "loadgen_cpu_util": run.loadgen_cpu_s.map(|v| round(v / secs, 3)),
    })
}

/// Exits the process if the run goes on `limit` past its start.
fn deadline(limit: Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!(
            "mcpload: hard deadline ({} s) reached, giving up",
            limit.as_secs_f64()
        );
        std::process::exit(3);
    });
}

pub(crate) fn tasks_command(options: TasksOptions) -> Result<()> {
    let target: &'static Target = Box::leak(Box::new(Target::parse(&options.url)?));
    if let Some(count) = options.count {
        return count_command(&options, target, count);
    }
    let warmup = Duration::from_secs_f64(options.warmup);
    let duration = Duration::from_secs_f64(options.seconds);
    deadline(2 * (warmup + duration) + HARD_DEADLINE_GRACE);
    let conc = options.concurrency;
    let mut watched = options.server_pids.clone();
    watched.extend(options.redis_pid);
    let create: &'static Create = Box::leak(Box::new(Create::new()));
    let (created, held, get, got) = runtime()?.block_on(async {
        if !warmup.is_zero() {
            one_run(target, create, conc, warmup, &[]).await?;
        }
        let created = one_run(target, create, conc, duration, &watched).await?;
        let ids = create.take_made();
        if ids.is_empty() {
            return Err::<_, BoxError>("the create phase made no task to get".into());
        }
        let held = ids.len();
        let get: &'static Get = Box::leak(Box::new(Get::new(ids, false)));
        if !warmup.is_zero() {
            one_run(target, get, conc, warmup, &[]).await?;
        }
        let got = one_run(target, get, conc, duration, &watched).await?;
        Ok((created, held, get, got))
    })?;
    let secs = duration.as_secs_f64();
    let servers = options.server_pids.len();
    let errors = created.errors + got.errors;
    let server = options.server_pids.first().copied();
    let line = serde_json::json!({
        "peer": options.peer,
        "scenario": "tasks",
        "concurrency": conc,
        "duration_s": secs,
        "warmup_s": warmup.as_secs_f64(),
        "create": phase(&created, secs, servers),
        "tasks_made": held,
        "get": phase(&got, secs, servers),
        "gets_working": get.working.load(Ordering::Relaxed),
        "errors": errors,
        "server_vm_rss_kb": server.and_then(|pid| status_field(pid, "VmRSS")),
        "server_vm_hwm_kb": server.and_then(|pid| status_field(pid, "VmHWM")),
    });
    println!("{line}");
    let (c, g) = (&line["create"], &line["get"]);
    eprintln!(
        "   {} c={conc}: create {} tasks/s (p50 {} ms, p99 {} ms, server {} µs/op, redis {} µs/op); \
         get {} /s over {held} tasks (p50 {} ms, p99 {} ms, server {} µs/op, redis {} µs/op); {errors} errors",
        options.peer,
        c["ops_per_s"],
        c["p50_ms"],
        c["p99_ms"],
        c["server_cpu_us_per_op"],
        c["redis_cpu_us_per_op"],
        g["ops_per_s"],
        g["p50_ms"],
        g["p99_ms"],
        g["server_cpu_us_per_op"],
        g["redis_cpu_us_per_op"],
    );
    if errors > 0 {
        return Err(format!("{errors} operations failed").into());
    }
    Ok(())
}

/// `--count`: exactly `count` tasks made, then each polled until it is `completed`.
fn count_command(options: &TasksOptions, target: &'static Target, count: usize) -> Result<()> {
    deadline(COUNT_DEADLINE);
    let conc = options.concurrency;
    let create: &'static Create = Box::leak(Box::new(Create::new()));
    let start = Instant::now();
    let get = runtime()?.block_on(async {
        exactly(target, create, count, conc).await?;
        let ids = create.take_made();
        if ids.len() != count {
            return Err::<_, BoxError>(format!("made {} tasks, not {count}", ids.len()).into());
        }
        let get: &'static Get = Box::leak(Box::new(Get::new(ids, true)));
        exactly(target, get, count, conc).await?;
        Ok(get)
    })?;
    let line = serde_json::json!({
        "peer": options.peer,
        "scenario": "tasks-count",
        "concurrency": conc,
        "made": count,
        "finished": get.ids.len(),
        "polls_working": get.working.load(Ordering::Relaxed),
        "seconds": round(start.elapsed().as_secs_f64(), 3),
    });
    println!("{line}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // As bench_server answered (captured with curl).
    const CREATED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","createdAt":"2026-12-04T20:11:05.573Z","lastUpdatedAt":"2026-12-04T20:11:05.573Z","pollIntervalMs":1000,"status":"working","taskId":"KFQZ50NutEcSFPFMUedJoFhUPusUYZp-","ttlMs":3600000,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"0.1.0"}}}}"#;
    const COMPLETED: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","createdAt":"2026-12-04T20:11:05.573Z","lastUpdatedAt":"2026-12-04T20:11:05.574Z","pollIntervalMs":1000,"result":{"content":[{"text":"done","type":"text"}]},"status":"completed","taskId":"KFQZ50NutEcSFPFMUedJoFhUPusUYZp-","ttlMs":3600000,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"0.1.0"}}}}"#;
    const ID: &str = "KFQZ50NutEcSFPFMUedJoFhUPusUYZp-";

    #[test]
    fn the_bodies_declare_the_extension() {
        for body in [job_body(), get_body(ID)] {
            let value: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
            let meta = &value["params"]["_meta"];
            assert_eq!(
                meta["io.modelcontextprotocol/protocolVersion"],
                "2026-07-28"
            );
            assert!(
                meta["io.modelcontextprotocol/clientCapabilities"]["extensions"]
                    ["io.modelcontextprotocol/tasks"]
                    .is_object()
            );
        }
        let get: serde_json::Value = serde_json::from_slice(&get_body(ID)).expect("JSON");
        assert_eq!(get["method"], "tasks/get");
        assert_eq!(get["params"]["taskId"], ID);
    }

    #[test]
    fn a_task_answer_gives_its_id() {
        assert_eq!(created_task(CREATED.as_bytes()).ok().as_deref(), Some(ID));
        let plain = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"done"}]}}"#;
        assert!(created_task(plain.as_bytes()).is_err());
        let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"The task store is unavailable"}}"#;
        assert!(created_task(error.as_bytes()).is_err());
    }

    #[test]
    fn a_poll_finds_the_task_working_or_done() {
        assert_eq!(
            polled(COMPLETED.as_bytes(), ID).ok(),
            Some(Polled::Completed)
        );
        let working = CREATED.replace(r#""resultType":"task""#, r#""resultType":"complete""#);
        assert_eq!(polled(working.as_bytes(), ID).ok(), Some(Polled::Working));
        assert!(polled(COMPLETED.as_bytes(), "another").is_err());
        let wrong = COMPLETED.replace(r#""text":"done""#, r#""text":"nope""#);
        assert!(polled(wrong.as_bytes(), ID).is_err());
        let failed = working.replace(r#""status":"working""#, r#""status":"failed""#);
        assert!(polled(failed.as_bytes(), ID).is_err());
    }
}
