//! `examples/board.rs` as a child process, driven by our client: over stdio and Streamable
//! HTTP, as a 2026-07-28 listener (`subscriptions/listen`) and a 2025-11-25 session
//! (`resources/subscribe`), a post updates `board://messages`, opening a topic and unlocking
//! `clear` change the listings, and each is told to exactly the listeners that asked. Then two
//! instances on one real Redis: a post through one reaches a listener on the other, which
//! reads it back. And the Python SDK's client listens to the board
//! (`scripts/python_board_listen.py`).

#![cfg(feature = "http")]

use std::process::Command;
use std::time::Duration;

use mcp::client::Client;
use mcp::protocol::{Implementation, RawNotification};
use mcp::transport::{Duplex, http_client, stdio};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::support::process::{ChildGuard, example, free_port, python, root};
use crate::support::redis::RedisServer;

const SUB: &str = "io.modelcontextprotocol/subscriptionId";
const MESSAGES: &str = "board://messages";

/// What keeps a board process alive; it is killed when this drops, however the test ends.
enum Process {
    Stdio { _child: tokio::process::Child },
    Http { _child: ChildGuard },
}

/// A board process and a client connected to it.
struct Board {
    client: Client,
    notes: mpsc::Receiver<RawNotification>,
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
        let notes = client.notifications().expect("the first to ask");
        Self {
            client,
            notes,
            _process: process,
        }
    }

    /// Opens a 2026-07-28 listen for `filter`; its subscription id, from the acknowledgement
    /// (which must honour `filter` whole). The listen lasts as long as the test's runtime.
    async fn listen(&mut self, filter: Value) -> Value {
        let client = self.client.clone();
        let params = json!({"notifications": filter});
        tokio::spawn(async move {
            // Its answer comes only when the server ends the listen.
            let _ = client
                .request::<Value>("subscriptions/listen", params)
                .await;
        });
        let ack = self.next_note().await;
        let id = ack["params"]["_meta"][SUB].clone();
        assert!(id.is_number() || id.is_string(), "{ack}");
        assert_eq!(
            ack,
            json!({"method": "notifications/subscriptions/acknowledged",
                   "params": {"notifications": filter, "_meta": {SUB: id}}})
        );
        id
    }

    /// Opens a 2025-11-25 session subscribed to `board://messages`.
    async fn subscribe(&self) {
        self.client.initialize().await.expect("initialized");
        let subscribed: Value = self
            .client
            .request("resources/subscribe", json!({"uri": MESSAGES}))
            .await
            .expect("subscribed");
        assert_eq!(subscribed, json!({}));
    }

    /// The next notification, as `{"method", "params"}`.
    async fn next_note(&mut self) -> Value {
        let note = tokio::time::timeout(Duration::from_secs(10), self.notes.recv())
            .await
            .expect("a notification within 10 s")
            .expect("the connection is open");
        let params: Value = note
            .params
            .map(|p| serde_json::from_str(p.get()).expect("JSON params"))
            .unwrap_or(Value::Null);
        json!({"method": note.method, "params": params})
    }

    /// The next notification, which must be `method` with `params` (plus the listen's
    /// subscription id in `_meta` when `listen` is one).
    async fn expect_note(&mut self, listen: Option<&Value>, method: &str, mut params: Value) {
        if let Some(id) = listen {
            params["_meta"] = json!({SUB: id});
        }
        let expected = if params.as_object().is_some_and(|p| p.is_empty()) {
            json!({"method": method, "params": Value::Null})
        } else {
            json!({"method": method, "params": params})
        };
        assert_eq!(self.next_note().await, expected);
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

/// The whole board, heard by `board`'s client: as a 2026-07-28 listener when `modern`, else
/// as a 2025-11-25 session subscribed to `board://messages`.
async fn tells_what_changed(mut board: Board, modern: bool) {
    let listen = if modern {
        let filter = json!({"toolsListChanged": true, "resourcesListChanged": true,
                            "resourceSubscriptions": [MESSAGES]});
        Some(board.listen(filter).await)
    } else {
        board.subscribe().await;
        None
    };
    let listen = listen.as_ref();
    let updated = json!({"uri": MESSAGES});

    // The post also updates `board://topics/rust`, which nobody follows: not sent.
    let posted = board.call("post", json!({"text": "hello #rust"})).await;
    assert_eq!(text(&posted), "Posted: post 1 on the board.");
    board
        .expect_note(listen, "notifications/resources/updated", updated.clone())
        .await;
    assert_eq!(board.read(MESSAGES).await, "hello #rust");

    let opened = board.call("open_topic", json!({"topic": "rust"})).await;
    assert_eq!(text(&opened), "Opened board://topics/rust.");
    board
        .expect_note(listen, "notifications/resources/list_changed", json!({}))
        .await;
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
    board
        .expect_note(listen, "notifications/tools/list_changed", json!({}))
        .await;
    assert_eq!(
        board.tool_names().await,
        ["post", "open_topic", "unlock", "clear"]
    );
    let cleared = board.call("clear", json!({})).await;
    assert_eq!(text(&cleared), "The board is empty.");
    board
        .expect_note(listen, "notifications/resources/updated", updated.clone())
        .await;
    assert_eq!(board.read(MESSAGES).await, "");

    // Nothing came between: the update of the open topic that `clear` sent is not followed.
    board.call("post", json!({"text": "again"})).await;
    board
        .expect_note(listen, "notifications/resources/updated", updated)
        .await;
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
    let mut first = Board::http(&["--redis", &url]);
    let second = Board::http(&["--redis", &url]);
    let filter = json!({"resourceSubscriptions": [MESSAGES]});
    let listen = first.listen(filter).await;

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
    first
        .expect_note(
            Some(&listen),
            "notifications/resources/updated",
            json!({"uri": MESSAGES}),
        )
        .await;
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
            "tools: ['post', 'open_topic', 'unlock', 'clear']",
            "board: hello from Python",
        ],
        "{stderr}"
    );
}
