//! `mcpload`: a closed-loop load generator for MCP Streamable HTTP servers (2026-07-28,
//! sessionless), used by `scripts/bench_peers.sh` (see `BENCHMARKS.md`) and `scripts/soak.sh`.
//!
//! ```text
//! mcpload run  --url http://127.0.0.1:PORT/mcp --scenario echo|mrtr --conc N
//!              [--warmup SECS] [--duration SECS] [--peer LABEL] [--server-pid PID]
//!              [--bearer TOKEN]
//! mcpload wait --url http://127.0.0.1:PORT/mcp [--timeout SECS] [--server-pid PID]
//!              [--bearer TOKEN]
//! mcpload fanout --url http://127.0.0.1:PORT/mcp --listeners N [--trigger-url URL]
//!              [--window W] [--warmup SECS] [--duration SECS] [--peer LABEL] [--server-pid PID]...
//! mcpload tasks --url http://127.0.0.1:PORT/mcp [--concurrency C] [--seconds SECS]
//!              [--warmup SECS] [--count N] [--peer LABEL] [--server-pid PID]... [--redis-pid PID]
//! ```
//!
//! `run` makes N workers on one current-thread tokio runtime; each owns one keep-alive HTTP/1.1
//! connection and sends its next operation as soon as the previous answer has been read and
//! checked. An `echo` operation is one `tools/call echo`; an `mrtr` operation is the full
//! exchange of `provision`: the call, its `input_required` answer, and the retry with
//! `inputResponses` + `requestState`, timed as one. A failed check counts as an error and is not
//! timed. With `--bearer`, every request carries `Authorization: Bearer TOKEN` (an
//! OAuth-protected server). The warm-up is a separate run on fresh connections; only the measured run is reported,
//! as one JSON line on stdout. With `--server-pid`, the server's CPU time (utime + stime) over
//! the measured window and its `VmHWM` are reported too. The process exits on its own 30 s
//! after a run should have ended.
//!
//! `wait` retries one echo call (a fresh connection each try) until it succeeds, then prints the
//! wall-clock time of that success (`ready_unix_ns`), so a caller that noted when it spawned the
//! server gets the startup-to-first-request time.
//!
//! `fanout` measures how fast one resource update reaches N `subscriptions/listen` streams
//! (see `fanout.rs`). `tasks` measures tasks created per second and `tasks/get` latency, or
//! creates exactly `--count` finished tasks for a memory measurement (see `tasks.rs`).

mod fanout;
mod flags;
mod tasks;

use std::borrow::Cow;
use std::future::Future;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST, HeaderName, HeaderValue};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use tokio::time::Instant;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Result<T, E = BoxError> = std::result::Result<T, E>;

/// How long after its planned end a run may go on before the process gives up.
const HARD_DEADLINE_GRACE: Duration = Duration::from_secs(30);
/// How long one request may take after the end of its run before it counts as an error.
const REQUEST_GRACE: Duration = Duration::from_secs(5);
/// How many error messages a run prints to stderr.
const ERRORS_SHOWN: usize = 5;

const PROTOCOL: &str = "2026-07-28";
const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"0.1.0"}}"#;
const ECHO_TEXT: &str = "hello world";
const RETRY_ANSWER: &str =
    r#""inputResponses":{"region":{"action":"accept","content":{"region":"eu-west-1"}}}"#;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.first().map(String::as_str) {
        Some("run") => Options::parse(&args[1..]).and_then(run_command),
        Some("wait") => Options::parse(&args[1..]).and_then(wait_command),
        Some("fanout") => fanout::FanoutOptions::parse(&args[1..]).and_then(fanout::fanout_command),
        Some("tasks") => tasks::TasksOptions::parse(&args[1..]).and_then(tasks::tasks_command),
        _ => Err(USAGE.into()),
    };
    if let Err(error) = outcome {
        eprintln!("mcpload: {error}");
        std::process::exit(1);
    }
}

const USAGE: &str = "usage: mcpload run --url URL --scenario echo|mrtr --conc N [--warmup S] [--duration S] [--peer LABEL] [--server-pid PID] [--bearer TOKEN]\n       mcpload wait --url URL [--timeout S] [--server-pid PID] [--bearer TOKEN]\n       mcpload fanout --url URL --listeners N [--trigger-url URL] [--window W] [--warmup S] [--duration S] [--peer LABEL] [--server-pid PID]...\n       mcpload tasks --url URL [--concurrency C] [--seconds S] [--warmup S] [--count N] [--peer LABEL] [--server-pid PID]... [--redis-pid PID]";

#[derive(Clone, Copy, PartialEq)]
enum Scenario {
    Echo,
    Mrtr,
}

impl Scenario {
    fn name(self) -> &'static str {
        match self {
            Scenario::Echo => "echo",
            Scenario::Mrtr => "mrtr",
        }
    }

    /// HTTP requests per operation.
    fn requests(self) -> u64 {
        match self {
            Scenario::Echo => 1,
            Scenario::Mrtr => 2,
        }
    }
}

struct Options {
    url: String,
    scenario: Scenario,
    conc: usize,
    warmup: f64,
    duration: f64,
    timeout: f64,
    peer: String,
    server_pid: Option<u32>,
    /// The access token sent with every request, if any.
    bearer: Option<String>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self> {
        let mut options = Options {
            url: String::new(),
            scenario: Scenario::Echo,
            conc: 1,
            warmup: 2.0,
            duration: 10.0,
            timeout: 30.0,
            peer: "unnamed".into(),
            server_pid: None,
            bearer: None,
        };
        let mut rest = args.iter();
        while let Some(flag) = rest.next() {
            let value = rest
                .next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
            match flag.as_str() {
                "--url" => options.url = value.clone(),
                "--scenario" => {
                    options.scenario = match value.as_str() {
                        "echo" => Scenario::Echo,
                        "mrtr" => Scenario::Mrtr,
                        other => return Err(format!("unknown scenario {other:?}").into()),
                    }
                }
                "--conc" => options.conc = value.parse()?,
                "--warmup" => options.warmup = value.parse()?,
                "--duration" => options.duration = value.parse()?,
                "--timeout" => options.timeout = value.parse()?,
                "--peer" => options.peer = value.clone(),
                "--server-pid" => options.server_pid = Some(value.parse()?),
                "--bearer" => options.bearer = Some(value.clone()),
                other => return Err(format!("unknown option {other}\n{USAGE}").into()),
            }
        }
        if options.url.is_empty() {
            return Err(format!("--url is required\n{USAGE}").into());
        }
        let finite = |v: f64| v.is_finite();
        if options.conc == 0
            || !finite(options.duration)
            || options.duration <= 0.0
            || !finite(options.warmup)
            || options.warmup < 0.0
        {
            return Err("--conc and --duration must be positive, --warmup not negative".into());
        }
        Ok(options)
    }
}

/// Where the requests go: a loopback address only.
struct Target {
    addr: SocketAddr,
    host: HeaderValue,
    path: hyper::Uri,
    /// `Authorization: Bearer …` for every request, when the server is protected.
    authorization: Option<HeaderValue>,
}

impl Target {
    fn parse(url: &str) -> Result<Self> {
        let rest = url
            .strip_prefix("http://")
            .ok_or("the URL must start with http://")?;
        let (authority, path) = match rest.find('/') {
            Some(slash) => (&rest[..slash], &rest[slash..]),
            None => (rest, "/"),
        };
        let addr = authority
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| format!("{authority} resolves to nothing"))?;
        if !addr.ip().is_loopback() {
            return Err(format!(
                "{authority} is not a loopback address: mcpload only loads loopback targets"
            )
            .into());
        }
        Ok(Target {
            addr,
            host: HeaderValue::from_str(authority)?,
            path: path.parse()?,
            authorization: None,
        })
    }

    /// The target of `options`: its URL, and its bearer token on every request.
    fn of(options: &Options) -> Result<Self> {
        let mut target = Target::parse(&options.url)?;
        if let Some(token) = &options.bearer {
            let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
                .map_err(|_| "--bearer: the token must be printable ASCII")?;
            value.set_sensitive(true);
            target.authorization = Some(value);
        }
        Ok(target)
    }
}

/// The request bodies, built once.
struct Bodies {
    echo: Bytes,
    provision: Bytes,
}

impl Bodies {
    fn new() -> Self {
        Bodies {
            echo: call_body(1, "echo", &format!(r#"{{"text":"{ECHO_TEXT}"}}"#), ""),
            provision: call_body(1, "provision", r#"{"name":"orders"}"#, ""),
        }
    }

    fn retry(token: &str) -> Bytes {
        let token = serde_json::to_string(token).expect("a string serializes");
        let extra = format!(r#"{RETRY_ANSWER},"requestState":{token},"#);
        call_body(2, "provision", r#"{"name":"orders"}"#, &extra)
    }
}

fn call_body(id: u64, tool: &str, arguments: &str, extra: &str) -> Bytes {
    Bytes::from(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments},{extra}{META}}}}}"#
    ))
}

/// One keep-alive HTTP/1.1 connection.
struct Connection {
    send: SendRequest<Full<Bytes>>,
}

impl Connection {
    async fn open(target: &Target) -> Result<Self> {
        let stream = tokio::net::TcpStream::connect(target.addr).await?;
        stream.set_nodelay(true)?;
        let (send, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Connection { send })
    }

    /// POSTs one `tools/call` and returns the body of a 200 answer (the `data:` of its last
    /// event if the server answered with a stream).
    async fn call(&mut self, target: &Target, tool: Tool, body: Bytes) -> Result<Bytes, CallError> {
        let name = HeaderValue::from_static(tool.name());
        self.request(target, "tools/call", Some(name), body).await
    }

    /// POSTs one request of `method` (routed by `name` in `Mcp-Name`) and returns the body of
    /// a 200 answer, as [`call`](Self::call) does.
    async fn request(
        &mut self,
        target: &Target,
        method: &'static str,
        name: Option<HeaderValue>,
        body: Bytes,
    ) -> Result<Bytes, CallError> {
        let request = post(target, body, method, name);
        self.send
            .ready()
            .await
            .map_err(|e| CallError::Transport(e.into()))?;
        let response = self
            .send
            .send_request(request)
            .await
            .map_err(|e| CallError::Transport(e.into()))?;
        let status = response.status();
        let event_stream = response
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| CallError::Transport(e.into()))?
            .to_bytes();
        if status != hyper::StatusCode::OK {
            return Err(CallError::Answer(format!(
                "HTTP {status}: {}",
                String::from_utf8_lossy(&body)
            )));
        }
        if event_stream {
            let data = last_event_data(&body)?;
            return Ok(body.slice_ref(data));
        }
        Ok(body)
    }
}

/// A 2026-07-28 POST of `body` to the target, with the routing headers of `method` (and the
/// `name` it is routed by: the tool's, the task id).
fn post(
    target: &Target,
    body: Bytes,
    method: &'static str,
    name: Option<HeaderValue>,
) -> hyper::Request<Full<Bytes>> {
    let mut request = hyper::Request::new(Full::new(body));
    *request.method_mut() = hyper::Method::POST;
    *request.uri_mut() = target.path.clone();
    let headers = request.headers_mut();
    headers.insert(HOST, target.host.clone());
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(
        ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    headers.insert(MCP_PROTOCOL_VERSION, HeaderValue::from_static(PROTOCOL));
    headers.insert(MCP_METHOD, HeaderValue::from_static(method));
    if let Some(name) = name {
        headers.insert(MCP_NAME, name);
    }
    if let Some(authorization) = &target.authorization {
        headers.insert(AUTHORIZATION, authorization.clone());
    }
    request
}

#[derive(Clone, Copy)]
enum Tool {
    Echo,
    Provision,
    Touch,
    Job,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Echo => "echo",
            Tool::Provision => "provision",
            Tool::Touch => "touch",
            Tool::Job => "job",
        }
    }
}

/// The `data:` of the last event of an SSE body (a server may answer a POST with a stream).
fn last_event_data(body: &[u8]) -> Result<&[u8], CallError> {
    let text =
        std::str::from_utf8(body).map_err(|_| CallError::Answer("SSE body is not UTF-8".into()))?;
    text.lines()
        .rev()
        .find_map(|line| line.strip_prefix("data:"))
        .map(|data| data.trim().as_bytes())
        .ok_or_else(|| CallError::Answer(format!("SSE body without data: {text}")))
}

enum CallError {
    /// The connection broke: open a new one.
    Transport(BoxError),
    /// The server answered, but not what the scenario expects.
    Answer(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Transport(e) => write!(f, "transport: {e}"),
            CallError::Answer(e) => write!(f, "answer: {e}"),
        }
    }
}

// The answers as far as the checks read them, borrowed from the body (unknown members skipped).

#[derive(Deserialize)]
struct Reply<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow)]
    result: Option<CallResult<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallResult<'a> {
    #[serde(borrow)]
    result_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Vec<Block<'a>>,
    is_error: Option<bool>,
    #[serde(borrow)]
    input_requests: Option<InputRequests<'a>>,
    #[serde(borrow)]
    request_state: Option<Cow<'a, str>>,
}

impl CallResult<'_> {
    /// Whether `inputRequests.region` is an `elicitation/create` request.
    fn elicits_region(&self) -> bool {
        let region = self.input_requests.as_ref().and_then(|r| r.region.as_ref());
        region.is_some_and(|r| r.method == "elicitation/create")
    }
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct InputRequests<'a> {
    #[serde(borrow)]
    region: Option<InputRequest<'a>>,
}

#[derive(Deserialize)]
struct InputRequest<'a> {
    #[serde(borrow)]
    method: Cow<'a, str>,
}

/// The JSON-RPC `result` of an answer, checked to be one.
fn result_of(body: &[u8]) -> Result<CallResult<'_>, CallError> {
    let shown = || String::from_utf8_lossy(body).into_owned();
    let reply: Reply<'_> = serde_json::from_slice(body)
        .map_err(|e| CallError::Answer(format!("not a JSON-RPC answer ({e}): {}", shown())))?;
    if reply.jsonrpc != "2.0" {
        return Err(CallError::Answer(format!("not JSON-RPC 2.0: {}", shown())));
    }
    reply
        .result
        .ok_or_else(|| CallError::Answer(format!("no result: {}", shown())))
}

/// The text of a complete `CallToolResult` that is not an error.
fn final_text<'r>(result: &'r CallResult<'_>, body: &[u8]) -> Result<&'r str, CallError> {
    let shown = || String::from_utf8_lossy(body).into_owned();
    if result.is_error == Some(true) {
        return Err(CallError::Answer(format!("tool error: {}", shown())));
    }
    if result
        .result_type
        .as_deref()
        .is_some_and(|k| k != "complete")
    {
        return Err(CallError::Answer(format!(
            "resultType is not complete: {}",
            shown()
        )));
    }
    result
        .content
        .iter()
        .find(|block| block.kind == "text")
        .and_then(|block| block.text.as_deref())
        .ok_or_else(|| CallError::Answer(format!("no text content: {}", shown())))
}

/// What each worker of a closed loop repeats on its connection, every answer checked.
trait Operation: Sync + 'static {
    fn once(
        &self,
        connection: &mut Connection,
        target: &Target,
    ) -> impl Future<Output = Result<(), CallError>> + Send;
}

/// An operation of `run`'s scenario.
struct ScenarioOperation {
    bodies: Bodies,
    scenario: Scenario,
}

impl Operation for ScenarioOperation {
    fn once(
        &self,
        connection: &mut Connection,
        target: &Target,
    ) -> impl Future<Output = Result<(), CallError>> + Send {
        operation(connection, target, &self.bodies, self.scenario)
    }
}

/// One operation of the scenario, every answer checked.
async fn operation(
    connection: &mut Connection,
    target: &Target,
    bodies: &Bodies,
    scenario: Scenario,
) -> Result<(), CallError> {
    match scenario {
        Scenario::Echo => {
            let body = connection
                .call(target, Tool::Echo, bodies.echo.clone())
                .await?;
            let result = result_of(&body)?;
            let text = final_text(&result, &body)?;
            if text != ECHO_TEXT {
                return Err(CallError::Answer(format!("echo answered {text:?}")));
            }
        }
        Scenario::Mrtr => {
            let body = connection
                .call(target, Tool::Provision, bodies.provision.clone())
                .await?;
            let first = result_of(&body)?;
            let shown = || String::from_utf8_lossy(&body).into_owned();
            if first.result_type.as_deref() != Some("input_required") {
                return Err(CallError::Answer(format!(
                    "round 1 is not input_required: {}",
                    shown()
                )));
            }
            if !first.elicits_region() {
                return Err(CallError::Answer(format!(
                    "round 1 does not elicit region: {}",
                    shown()
                )));
            }
            let token = first
                .request_state
                .as_deref()
                .filter(|t| !t.is_empty())
                .ok_or_else(|| {
                    CallError::Answer(format!("round 1 has no requestState: {}", shown()))
                })?;
            let retry = Bodies::retry(token);
            let body = connection.call(target, Tool::Provision, retry).await?;
            let second = result_of(&body)?;
            let text = final_text(&second, &body)?;
            if !text.contains("eu-west-1") {
                return Err(CallError::Answer(format!("round 2 answered {text:?}")));
            }
        }
    }
    Ok(())
}

static ERRORS_PRINTED: AtomicUsize = AtomicUsize::new(0);

fn report_error(error: &CallError) {
    if ERRORS_PRINTED.fetch_add(1, Ordering::Relaxed) < ERRORS_SHOWN {
        eprintln!("mcpload: error: {error}");
    }
}

struct WorkerStats {
    ok: u64,
    errors: u64,
    latency_ns: Histogram<u64>,
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1_000, 120_000_000_000, 3).expect("valid histogram bounds")
}

async fn worker<O: Operation>(
    target: &'static Target,
    op: &'static O,
    mut connection: Option<Connection>,
    end: Instant,
) -> WorkerStats {
    let mut stats = WorkerStats {
        ok: 0,
        errors: 0,
        latency_ns: histogram(),
    };
    while Instant::now() < end {
        let conn = match connection.as_mut() {
            Some(conn) => conn,
            None => match Connection::open(target).await {
                Ok(conn) => connection.insert(conn),
                Err(error) => {
                    stats.errors += 1;
                    report_error(&CallError::Transport(error));
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let start = Instant::now();
        let outcome = tokio::time::timeout_at(end + REQUEST_GRACE, op.once(conn, target)).await;
        let done = Instant::now();
        match outcome {
            Ok(Ok(())) if done <= end => {
                stats.ok += 1;
                let ns = u64::try_from((done - start).as_nanos()).unwrap_or(u64::MAX);
                stats.latency_ns.saturating_record(ns);
            }
            Ok(Ok(())) => {} // finished after the end of the run: not counted
            Ok(Err(error)) => {
                if done <= end {
                    stats.errors += 1;
                    report_error(&error);
                }
                if matches!(error, CallError::Transport(_)) {
                    connection = None;
                }
            }
            Err(_elapsed) => {
                stats.errors += 1;
                report_error(&CallError::Answer(
                    "no answer within 5 s after the end of the run".into(),
                ));
                break;
            }
        }
    }
    stats
}

/// CPU time (user + system) of some processes so far, summed; `None` if one is gone.
fn cpu_of(pids: &[u32]) -> Option<f64> {
    pids.iter()
        .map(|pid| cpu_seconds(&pid.to_string()))
        .sum::<Option<f64>>()
}

/// CPU time (user + system) of a process so far, from `/proc/PID/stat`.
fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    Some(ticks as f64 / hz.max(1) as f64)
}

/// A `kB` line of `/proc/PID/status` (`VmHWM`, `VmRSS`, `Threads`).
fn status_field(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|line| {
        let value = line.strip_prefix(field)?.strip_prefix(':')?;
        value.split_whitespace().next()?.parse().ok()
    })
}

struct RunResult {
    ok: u64,
    errors: u64,
    latency_ns: Histogram<u64>,
    /// The CPU time each of the watched processes used over the run, in their order.
    cpu_s: Vec<Option<f64>>,
    loadgen_cpu_s: Option<f64>,
}

/// One bounded run: open the connections, then `duration` of closed-loop operations; the CPU
/// time of the processes `watched` is taken over exactly that window.
async fn one_run<O: Operation>(
    target: &'static Target,
    op: &'static O,
    conc: usize,
    duration: Duration,
    watched: &[u32],
) -> Result<RunResult> {
    let mut connections = Vec::with_capacity(conc);
    for _ in 0..conc {
        connections.push(Connection::open(target).await?);
    }
    let cpu = || -> Vec<Option<f64>> {
        watched
            .iter()
            .map(|pid| cpu_seconds(&pid.to_string()))
            .collect()
    };
    let cpu_start = cpu();
    let loadgen_cpu_start = cpu_seconds("self");
    let end = Instant::now() + duration;
    let workers: Vec<_> = connections
        .into_iter()
        .map(|conn| tokio::spawn(worker(target, op, Some(conn), end)))
        .collect();
    tokio::time::sleep_until(end).await;
    let cpu_end = cpu();
    let loadgen_cpu_end = cpu_seconds("self");
    let mut result = RunResult {
        ok: 0,
        errors: 0,
        latency_ns: histogram(),
        cpu_s: cpu_start
            .into_iter()
            .zip(cpu_end)
            .map(|(a, b)| a.zip(b).map(|(a, b)| b - a))
            .collect(),
        loadgen_cpu_s: loadgen_cpu_start.zip(loadgen_cpu_end).map(|(a, b)| b - a),
    };
    for handle in workers {
        let stats = handle.await?;
        result.ok += stats.ok;
        result.errors += stats.errors;
        result.latency_ns.add(&stats.latency_ns)?;
    }
    Ok(result)
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

fn run_command(options: Options) -> Result<()> {
    let target: &'static Target = Box::leak(Box::new(Target::of(&options)?));
    let (scenario, conc) = (options.scenario, options.conc);
    let op: &'static ScenarioOperation = Box::leak(Box::new(ScenarioOperation {
        bodies: Bodies::new(),
        scenario,
    }));
    let warmup = Duration::from_secs_f64(options.warmup);
    let duration = Duration::from_secs_f64(options.duration);
    let limit = warmup + duration + HARD_DEADLINE_GRACE;
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!(
            "mcpload: hard deadline ({} s) reached, giving up",
            limit.as_secs_f64()
        );
        std::process::exit(3);
    });
    let result = runtime()?.block_on(async {
        if !warmup.is_zero() {
            one_run(target, op, conc, warmup, &[]).await?;
        }
        one_run(target, op, conc, duration, options.server_pid.as_slice()).await
    })?;
    let server_cpu_s = result.cpu_s.first().copied().flatten();
    let secs = duration.as_secs_f64();
    let ms = |q: f64| result.latency_ns.value_at_quantile(q) as f64 / 1e6;
    let ops_per_s = result.ok as f64 / secs;
    let server_cpu_us_per_op = server_cpu_s
        .filter(|_| result.ok > 0)
        .map(|cpu| cpu * 1e6 / result.ok as f64);
    let line = serde_json::json!({
        "peer": options.peer,
        "scenario": scenario.name(),
        "conc": conc,
        "duration_s": secs,
        "warmup_s": warmup.as_secs_f64(),
        "ops": result.ok,
        "errors": result.errors,
        "ops_per_s": round(ops_per_s, 1),
        "http_req_per_s": round(ops_per_s * scenario.requests() as f64, 1),
        "p50_ms": round(ms(0.50), 3),
        "p99_ms": round(ms(0.99), 3),
        "max_ms": round(result.latency_ns.max() as f64 / 1e6, 3),
        "mean_ms": round(result.latency_ns.mean() / 1e6, 3),
        "server_cpu_s": server_cpu_s.map(|v| round(v, 2)),
        "server_cpu_util": server_cpu_s.map(|v| round(v / secs, 3)),
        "server_cpu_us_per_op": server_cpu_us_per_op.map(|v| round(v, 1)),
        "loadgen_cpu_util": result.loadgen_cpu_s.map(|v| round(v / secs, 3)),
        "server_vm_hwm_kb": options.server_pid.and_then(|pid| status_field(pid, "VmHWM")),
        "server_vm_rss_kb": options.server_pid.and_then(|pid| status_field(pid, "VmRSS")),
        "server_threads": options.server_pid.and_then(|pid| status_field(pid, "Threads")),
    });
    println!("{line}");
    Ok(())
}

fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

fn wait_command(options: Options) -> Result<()> {
    let target = Target::of(&options)?;
    let bodies = Bodies::new();
    let deadline = Instant::now() + Duration::from_secs_f64(options.timeout);
    let mut attempts = 0u64;
    runtime()?.block_on(async {
        loop {
            attempts += 1;
            let outcome = match Connection::open(&target).await {
                Ok(mut conn) => operation(&mut conn, &target, &bodies, Scenario::Echo)
                    .await
                    .map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            match outcome {
                Ok(()) => break,
                Err(error) if Instant::now() >= deadline => {
                    return Err(format!(
                        "no successful echo within {} s: {error}",
                        options.timeout
                    )
                    .into());
                }
                Err(_) => {}
            }
            if let Some(pid) = options.server_pid
                && !std::path::Path::new(&format!("/proc/{pid}")).exists()
            {
                return Err(format!("server process {pid} exited before answering").into());
            }
            tokio::time::sleep(Duration::from_micros(500)).await;
        }
        Ok::<_, BoxError>(())
    })?;
    let ready = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos();
    println!(
        "{}",
        serde_json::json!({ "ready_unix_ns": ready.to_string(), "attempts": attempts })
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Answers as the three servers sent them (captured with curl).
    const PY_ECHO: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"hello world","type":"text"}],"isError":false,"resultType":"complete","structuredContent":{"result":"hello world"},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"peer-bench","version":""}}}}"#;
    const RMCP_ECHO: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hello world"}],"isError":false}}"#;
    const RMCP_ROUND1: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"region":{"method":"elicitation/create","params":{"message":"Which region should 'orders' live in?","mode":"form","requestedSchema":{"properties":{"region":{"type":"string"}},"required":["region"],"type":"object"}}}},"requestState":"rs1.AAABojsk8P1wcm92aXNpb24tdjE.VDpPpkpNoRz7uuY9XVk-lbp_k3BZAj0USK2UWU4hA_s"}}"#;
    const MCP_ROUND2: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"Provisioned 'orders' in eu-west-1."}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"0.1.0"}}}}"#;
    const REJECTED: &str = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid or expired requestState","data":{"reason":"invalid_request_state"}}}"#;

    fn text_of(body: &str) -> Result<String, String> {
        let result = result_of(body.as_bytes()).map_err(|e| e.to_string())?;
        final_text(&result, body.as_bytes())
            .map(str::to_owned)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn echo_answers_of_every_peer_pass() {
        assert_eq!(text_of(PY_ECHO).as_deref(), Ok(ECHO_TEXT));
        assert_eq!(text_of(RMCP_ECHO).as_deref(), Ok(ECHO_TEXT));
        assert!(text_of(MCP_ROUND2).is_ok_and(|t| t.contains("eu-west-1")));
    }

    #[test]
    fn errors_and_tool_errors_fail() {
        assert!(text_of(REJECTED).is_err_and(|e| e.contains("no result")));
        let tool_error = RMCP_ECHO.replace(r#""isError":false"#, r#""isError":true"#);
        assert!(text_of(&tool_error).is_err_and(|e| e.contains("tool error")));
        assert!(text_of(RMCP_ROUND1).is_err_and(|e| e.contains("not complete")));
        assert!(text_of("<html>").is_err());
    }

    #[test]
    fn round_one_is_read() {
        let result = result_of(RMCP_ROUND1.as_bytes()).map_err(|e| e.to_string());
        let result = result.expect("a result");
        assert_eq!(result.result_type.as_deref(), Some("input_required"));
        assert!(result.elicits_region());
        assert!(result.request_state.is_some_and(|t| t.starts_with("rs1.")));
        let echo = result_of(RMCP_ECHO.as_bytes()).map_err(|e| e.to_string());
        assert!(!echo.expect("a result").elicits_region());
    }

    #[test]
    fn an_event_stream_answer_is_read_from_its_last_data() {
        let body = format!("event: message\ndata: {RMCP_ECHO}\n\n");
        let data = last_event_data(body.as_bytes()).map_err(|e| e.to_string());
        assert_eq!(data.expect("data"), RMCP_ECHO.as_bytes());
    }

    #[test]
    fn the_retry_carries_the_answer_and_the_token() {
        let body = Bodies::retry("a\"b");
        let value: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(value["params"]["requestState"], "a\"b");
        assert_eq!(
            value["params"]["inputResponses"]["region"]["content"]["region"],
            "eu-west-1"
        );
        assert_eq!(
            value["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            PROTOCOL
        );
    }

    #[test]
    fn a_bearer_token_goes_with_every_request() {
        let mut options = Options::parse(&[
            "--url".into(),
            "http://127.0.0.1:8000/mcp".into(),
            "--bearer".into(),
            "abc.def".into(),
        ])
        .map_err(|e| e.to_string())
        .expect("options");
        let target = Target::of(&options)
            .map_err(|e| e.to_string())
            .expect("target");
        let request = post(&target, Bytes::new(), "tools/call", None);
        assert_eq!(request.headers()[AUTHORIZATION], "Bearer abc.def");
        options.bearer = None;
        let target = Target::of(&options)
            .map_err(|e| e.to_string())
            .expect("target");
        let request = post(&target, Bytes::new(), "tools/call", None);
        assert!(!request.headers().contains_key(AUTHORIZATION));
        options.bearer = Some("line\nbreak".into());
        assert!(Target::of(&options).is_err());
    }

    #[test]
    fn only_loopback_targets() {
        assert!(Target::parse("http://127.0.0.1:8000/mcp").is_ok());
        assert!(Target::parse("http://10.1.2.3:8000/mcp").is_err());
        assert!(Target::parse("https://127.0.0.1:8000/mcp").is_err());
    }
}
