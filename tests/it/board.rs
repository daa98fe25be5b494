//! `examples/board.rs` as a child process, driven by our client's `Client::listen`: over stdio
//! and Streamable HTTP, as a 2026-07-28 listener (`subscriptions/listen`) and a 2025-11-25
//! session (`resources/subscribe`), a post updates `board://messages`, opening a topic and unlocking
//! `clear` change the listings, and each is told to exactly the listeners that asked. Then two
//! instances on one real Redis: a post through one reaches a listener on the other, which
//! reads it back, and an `archive` task started through one is asked, answered, polled and
//! cancelled through the other. And the Python SDK's client listens to the board
//! (`scripts/python_board_listen.py`).

#![cfg(feature = "http")]

use std::process::Command;
use std::time::Duration;

use mcp::client::{Client, Listen};
use mcp::protocol::{Implementation, SubscriptionFilter};
use mcp::push::Change;
use mcp::transport::{Duplex, http_client, stdio};
use serde_json::{Value, json};

use crate::support::process::{ChildGuard, example, free_port, python, root};
use crate::support::redis::RedisServer;

const MESSAGES: &str = "board://messages";

/// What keeps a board process alive; it is killed when this drops, however the test ends.
enum Process {
    Stdio { _child: tokio::process::Child },
    Http { _child: ChildGuard },
}

/// A board process and a client connected to it.
struct Board {
    client: Client,
    _process: Process,
}

impl Board {
    fn stdio() -> Self {
        let mut command = tokio::process::Command::new(example("board"));
        command.env("RUST_LOG", "warn");
        let (duplex, child) = stdio::spawn(command).expect("start the board");
        Self::connect(duplex, Process::Stdio { _child: child })
    }

    fn http(args: &[&str]) -> Self {
        let (child, url) = serve_http(args);
        let duplex = http_client::connect(&url).expect("a URL");
        Self::connect(duplex, Process::Http { _child: child })
    }

    fn connect(duplex: Duplex, process: Process) -> Self {
        let client = Client::builder(Implementation::new("board-test", "1.0.0")).connect(duplex);
        Self {
            client,
            _process: process,
        }
    }

    /// Listens for `filter`, which the board must honour whole.
    async fn listen(&self, filter: SubscriptionFilter) -> Listen {
        let listen = self.client.listen(filter.clone()).await.expect("listening");
        assert_eq!(listen.honoured(), &filter);
        listen
    }

    /// Calls `tool`; its result as JSON.
    async fn call(&self, tool: &str, arguments: Value) -> Value {
        let result = self
            .client
            .call_tool(tool, Some(arguments))
            .await
            .unwrap_or_else(|e| panic!("{tool}: {e}"));
        serde_json::to_value(result).expect("JSON")
    }

    async fn read(&self, uri: &str) -> String {
        let read = self
            .client
            .read_resource(uri)
            .await
            .unwrap_or_else(|e| panic!("read {uri}: {e}"));
        let read = serde_json::to_value(read).expect("JSON");
        read["contents"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text in {read}"))
            .to_owned()
    }

    async fn resource_uris(&self) -> Vec<String> {
        let listed = self.client.list_resources(None).await.expect("listed");
        listed.resources.into_iter().map(|r| r.uri).collect()
    }

    async fn tool_names(&self) -> Vec<String> {
        let listed = self.client.list_tools(None).await.expect("listed");
        listed.tools.into_iter().map(|t| t.name).collect()
    }
}

/// The next change `listen` hears.
async fn next(listen: &mut Listen) -> Change {
    tokio::time::timeout(Duration::from_secs(10), listen.next())
        .await
        .expect("a change within 10 s")
        .expect("the listen is open")
        .expect("the listen is not lost")
}

fn updated() -> Change {
    Change::ResourceUpdated {
        uri: MESSAGES.into(),
    }
}

/// A board serving HTTP on a free port, started with `args` besides `--http`; its endpoint.
/// Its log says only what went wrong (a board that cannot start says why).
fn serve_http(args: &[&str]) -> (ChildGuard, String) {
    let addr = format!("127.0.0.1:{}", free_port());
    let mut child = ChildGuard::spawn(
        Command::new(example("board"))
            .args(["--http", &addr])
            .args(args)
            .env("RUST_LOG", "warn"),
    );
    child.wait_listening(&addr);
    (child, format!("http://{addr}/mcp"))
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"))
}

/// The whole board, heard through `Client::listen` by `board`'s client: as a 2026-07-28
/// listener (`subscriptions/listen`) when `modern`, else as a 2025-11-25 session (which the
/// client subscribes to `board://messages`).
async fn tells_what_changed(board: Board, modern: bool) {
    if !modern {
        board.client.initialize().await.expect("initialized");
    }
    let filter = SubscriptionFilter::new()
        .tools_changed()
        .resources_changed()
        .resource(MESSAGES);
    let mut listen = board.listen(filter).await;

    // The post also updates `board://topics/rust`, which nobody follows: not sent.
    let posted = board.call("post", json!({"text": "hello #rust"})).await;
    assert_eq!(text(&posted), "Posted: post 1 on the board.");
    assert_eq!(next(&mut listen).await, updated());
    assert_eq!(board.read(MESSAGES).await, "hello #rust");

    let opened = board.call("open_topic", json!({"topic": "rust"})).await;
    assert_eq!(text(&opened), "Opened board://topics/rust.");
    assert_eq!(next(&mut listen).await, Change::ResourcesListChanged);
    assert_eq!(
        board.resource_uris().await,
        [MESSAGES, "board://topics/rust"]
    );
    assert_eq!(board.read("board://topics/rust").await, "hello #rust");
    let bad = board.call("open_topic", json!({"topic": "no/good"})).await;
    assert_eq!(bad["isError"], true, "{bad}");
    assert_eq!(
        text(&bad),
        "`no/good` is not a topic name: use 1 to 32 ASCII letters, digits, `-` or `_`."
    );

    let unlocked = board.call("unlock", json!({})).await;
    assert_eq!(text(&unlocked), "Unlocked `clear`.");
    assert_eq!(next(&mut listen).await, Change::ToolsListChanged);
    assert_eq!(
        board.tool_names().await,
        ["post", "open_topic", "unlock", "archive", "clear"]
    );
    let cleared = board.call("clear", json!({})).await;
    assert_eq!(text(&cleared), "The board is empty.");
    assert_eq!(next(&mut listen).await, updated());
    assert_eq!(board.read(MESSAGES).await, "");

    // Nothing came between: the update of the open topic that `clear` sent is not followed.
    board.call("post", json!({"text": "again"})).await;
    assert_eq!(next(&mut listen).await, updated());
}

#[tokio::test]
async fn a_2026_listener_over_stdio_hears_every_change() {
    tells_what_changed(Board::stdio(), true).await;
}

#[tokio::test]
async fn a_2025_session_over_stdio_hears_every_change() {
    tells_what_changed(Board::stdio(), false).await;
}

#[tokio::test]
async fn a_2026_listener_over_http_hears_every_change() {
    tells_what_changed(Board::http(&[]), true).await;
}

#[tokio::test]
async fn a_2025_session_over_http_hears_every_change() {
    tells_what_changed(Board::http(&[]), false).await;
}

/// Whether the board was built with `--redis`; if not, says how to run this (and fails in CI,
/// where the workspace's tests build it with the feature).
fn board_has_redis() -> bool {
    if cfg!(feature = "redis") {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but the board was built without the `redis` feature"
    );
    eprintln!(
        "SKIPPED: the board was built without the `redis` feature \
         (cargo test -p mcp --features redis --test it board)"
    );
    false
}

#[tokio::test]
async fn a_post_through_one_instance_reaches_a_listener_on_another() {
    if !board_has_redis() {
        return;
    }
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let url = redis.url();
    let first = Board::http(&["--redis", &url]);
    let second = Board::http(&["--redis", &url]);
    let mut listen = first
        .listen(SubscriptionFilter::new().resource(MESSAGES))
        .await;

    // Pub/sub keeps nothing for a subscriber that is not there yet: wait until both
    // instances' buses are subscribed, with a change the listener did not ask for.
    let probe = r#"{"kind":"prompts_list_changed"}"#;
    let mut subscribers = 0;
    for _ in 0..200 {
        subscribers = redis.publish("board:changes", probe);
        if subscribers == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(subscribers, 2, "both instances subscribe to the bus");

    let posted = second
        .call("post", json!({"text": "from the second"}))
        .await;
    assert_eq!(text(&posted), "Posted: post 1 on the board.");
    assert_eq!(next(&mut listen).await, updated());
    assert_eq!(first.read(MESSAGES).await, "from the second");
    assert_eq!(redis.command(&["LLEN", "board:posts"]).expect("LLEN"), ":1");
}

#[test]
fn the_python_sdk_client_listens_to_the_board() {
    let (_board, url) = serve_http(&[]);
    let output = Command::new(python())
        .arg(root().join("scripts/python_board_listen.py"))
        .arg(&url)
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "version: 2026-07-28",
            "honored: tools=True resources=['board://messages']",
            "event: ResourceUpdated(uri='board://messages')",
            "event: ToolsListChanged()",
            "tools: ['post', 'open_topic', 'unlock', 'archive', 'clear']",
            "board: hello from Python",
        ],
        "{stderr}"
    );
}

/// A 2026-07-28 request declaring the tasks extension and form elicitation, to the board at
/// `url`, with its routing headers; the JSON-RPC reply.
async fn rpc(url: &str, method: &str, mut params: Value) -> Value {
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .expect("a loopback address");
    let capabilities = json!({
        "extensions": {"io.modelcontextprotocol/tasks": {}},
        "elicitation": {"form": {}},
    });
    params["_meta"] = crate::support::http::meta(capabilities);
    let name = match method {
        "tools/call" => params["name"].as_str().map(str::to_owned),
        _ => params["taskId"].as_str().map(str::to_owned),
    };
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    crate::support::http::post(addr, body.to_string())
        .routing(method, name.as_deref())
        .send()
        .await
        .json()
}

/// Polls task `id` through the board at `url` until its status is `status`.
async fn task_until(url: &str, id: &str, status: &str) -> Value {
    let mut last = Value::Null;
    for _ in 0..400 {
        last = rpc(url, "tasks/get", json!({"taskId": id})).await;
        if last["result"]["status"] == status {
            return last["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("task {id} never reached {status}: {last}");
}

#[tokio::test]
async fn an_archive_started_on_one_instance_is_answered_polled_and_cancelled_through_another() {
    if !board_has_redis() {
        return;
    }
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let url = redis.url();
    let (_first, first) = serve_http(&["--redis", &url]);
    let (_second, second) = serve_http(&["--redis", &url]);
    let confirm = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});

    // Started through the first; asked, answered and finished through the second.
    let params = json!({"name": "archive", "arguments": {"delay_ms": 100}});
    let started = rpc(&first, "tools/call", params).await;
    assert_eq!(started["result"]["resultType"], "task", "{started}");
    let id = started["result"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned();
    let waiting = task_until(&second, &id, "input_required").await;
    assert_eq!(
        waiting["inputRequests"]["confirm"]["method"], "elicitation/create",
        "{waiting}"
    );
    let update = json!({"taskId": id, "inputResponses": confirm});
    let ack = rpc(&second, "tasks/update", update).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("taskId").is_none(), "{ack}");
    let done = task_until(&second, &id, "completed").await;
    assert_eq!(text(&done["result"]), "Archived 0 posts.");

    // A long one, started and answered the same way, cancelled through the second: only its
    // runner, on the first, writes `cancelled`, once it has dropped the function.
    let params = json!({"name": "archive", "arguments": {"delay_ms": 600_000}});
    let started = rpc(&first, "tools/call", params).await;
    let id = started["result"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned();
    task_until(&second, &id, "input_required").await;
    let update = json!({"taskId": id, "inputResponses": confirm});
    rpc(&second, "tasks/update", update).await;
    task_until(&first, &id, "working").await;
    let ack = rpc(&second, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("taskId").is_none(), "{ack}");
    task_until(&first, &id, "cancelled").await;
    let keys = redis.command(&["KEYS", "mcp:tasks:*"]).expect("KEYS");
    assert!(!keys.is_empty(), "the tasks live in Redis");
}
