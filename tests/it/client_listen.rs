//! `Client::listen` and the re-list hook: against our own server (in memory, over stdio framing
//! and over HTTP, on both revisions, changed through its `ServerHandle`), and against a scripted
//! server for what ours never does (floods of distinct changes, refusals, broken streams) and
//! to see the exact messages the client sends.

use std::time::Duration;

use mcp::client::{Client, ClientBuilder, ClientError, LISTEN_BUFFER, Listen, ListenLost};
use mcp::protocol::{Implementation, RawNotification, SubscriptionFilter, Tool};
use mcp::push::Change;
use mcp::server::{McpServer, Server};
use mcp::transport::{Duplex, Frame, memory, stdio};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Says hello.
#[mcp::tool]
async fn hello() -> &'static str {
    "hello"
}

/// Says goodbye.
#[mcp::tool]
async fn goodbye() -> &'static str {
    "goodbye"
}

/// The posts so far.
#[mcp::resource("board://messages")]
async fn messages() -> String {
    String::new()
}

/// One topic of the board.
#[mcp::resource("board://topics/{topic}")]
async fn topic(topic: String) -> String {
    topic
}

/// Tools and resources, no prompts.
fn board() -> Server {
    McpServer::new("board")
        .tools(mcp::tools![hello])
        .resources(mcp::resources![messages, topic])
        .build()
        .expect("valid")
}

fn builder() -> ClientBuilder {
    Client::builder(Implementation::new("listener", "1"))
}

const MESSAGES: &str = "board://messages";

fn updated(uri: &str) -> Change {
    Change::ResourceUpdated { uri: uri.into() }
}

#[derive(Debug, Clone, Copy)]
enum Wire {
    Memory,
    /// Newline-delimited JSON over a byte pipe, as between processes.
    Stdio,
    #[cfg(feature = "http")]
    Http,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Revision {
    V2026,
    V2025,
}

/// What keeps a served connection up.
enum Serving {
    Task(tokio::task::JoinHandle<()>),
    #[cfg(feature = "http")]
    Http {
        _stop: tokio_util::sync::DropGuard,
    },
}

impl Drop for Serving {
    fn drop(&mut self) {
        if let Self::Task(task) = self {
            task.abort();
        }
    }
}

/// A client built by `builder` of `server` over `wire`, in a session on 2025-11-25.
async fn connect(
    server: &Server,
    wire: Wire,
    revision: Revision,
    builder: ClientBuilder,
) -> (Client, Serving) {
    let serve = |server_end: Duplex| {
        let server = server.clone();
        Serving::Task(tokio::spawn(async move { server.serve(server_end).await }))
    };
    let (client_end, serving) = match wire {
        Wire::Memory => {
            let (client_end, server_end) = memory::pair();
            (client_end, serve(server_end))
        }
        Wire::Stdio => {
            let (client_io, server_io) = tokio::io::duplex(64 * 1024);
            let (client_read, client_write) = tokio::io::split(client_io);
            let (server_read, server_write) = tokio::io::split(server_io);
            let limit = mcp::server::DEFAULT_MAX_MESSAGE_SIZE;
            let server_end = stdio::duplex(server_read, server_write, limit);
            (
                stdio::duplex(client_read, client_write, limit),
                serve(server_end),
            )
        }
        #[cfg(feature = "http")]
        Wire::Http => {
            let (url, stop) = crate::support::http::serve(server.clone()).await;
            let duplex = mcp::transport::http_client::connect(&url).expect("a URL");
            (duplex, Serving::Http { _stop: stop })
        }
    };
    let client = builder.connect(client_end);
    if revision == Revision::V2025 {
        client.initialize().await.expect("a session");
    }
    (client, serving)
}

async fn next(listen: &mut Listen) -> Option<Result<Change, ListenLost>> {
    tokio::time::timeout(Duration::from_secs(5), listen.next())
        .await
        .expect("the listen moves within 5 s")
}

/// Waits until the server has `n` listeners, writing to them meanwhile: over HTTP a server
/// notices a closed stream when it next writes to it.
async fn listeners(server: &Server, n: usize) {
    for _ in 0..250 {
        if server.push_stats().listeners == n {
            return;
        }
        server.handle().notify(Change::ToolsListChanged);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{} listeners, not {n}", server.push_stats().listeners);
}

/// A listen for the tools and one resource hears of those, as typed changes, and of nothing
/// else; the changes no listen took reach `notifications()` (only a 2025 session's can).
async fn hears_what_it_asked_for(wire: Wire, revision: Revision) {
    let server = board();
    let handle = server.handle();
    let (client, _serving) = connect(&server, wire, revision, builder()).await;
    let mut notifications = client.notifications().expect("the receiver");
    let asked = SubscriptionFilter::new().tools_changed().resource(MESSAGES);
    let mut listen = client.listen(asked.clone()).await.expect("listening");
    assert_eq!(listen.honoured(), &asked);
    handle.notify(Change::ResourcesListChanged);
    handle.resource_updated("board://topics/news");
    handle.add_tools(mcp::tools![goodbye]).expect("tables");
    handle.resource_updated(MESSAGES);
    assert_eq!(next(&mut listen).await, Some(Ok(Change::ToolsListChanged)));
    assert_eq!(next(&mut listen).await, Some(Ok(updated(MESSAGES))));
    // What came before the last change has been routed by now.
    if revision == Revision::V2025 {
        let untaken = notifications
            .try_recv()
            .expect("the list change no listen took");
        assert_eq!(untaken.method, "notifications/resources/list_changed");
    }
    let leaked = notifications.try_recv().map(|n| n.method);
    assert!(leaked.is_err(), "{leaked:?} reached notifications()");
}

#[tokio::test]
async fn typed_changes_arrive_in_memory_2026() {
    hears_what_it_asked_for(Wire::Memory, Revision::V2026).await;
}

#[tokio::test]
async fn typed_changes_arrive_in_memory_2025() {
    hears_what_it_asked_for(Wire::Memory, Revision::V2025).await;
}

#[tokio::test]
async fn typed_changes_arrive_over_stdio_2026() {
    hears_what_it_asked_for(Wire::Stdio, Revision::V2026).await;
}

#[tokio::test]
async fn typed_changes_arrive_over_stdio_2025() {
    hears_what_it_asked_for(Wire::Stdio, Revision::V2025).await;
}

#[cfg(feature = "http")]
#[tokio::test]
async fn typed_changes_arrive_over_http_2026() {
    hears_what_it_asked_for(Wire::Http, Revision::V2026).await;
}

#[cfg(feature = "http")]
#[tokio::test]
async fn typed_changes_arrive_over_http_2025() {
    hears_what_it_asked_for(Wire::Http, Revision::V2025).await;
}

#[tokio::test]
async fn a_listen_says_what_the_server_acknowledged_2026() {
    let server = board();
    let (client, _serving) = connect(&server, Wire::Memory, Revision::V2026, builder()).await;
    let asked = SubscriptionFilter::new()
        .tools_changed()
        .prompts_changed()
        .resources_changed()
        .resource(MESSAGES)
        .resource("board://nowhere");
    let listen = client.listen(asked).await.expect("listening");
    let granted = SubscriptionFilter::new()
        .tools_changed()
        .resources_changed()
        .resource(MESSAGES);
    assert_eq!(
        listen.honoured(),
        &granted,
        "no prompts, and no resource at board://nowhere"
    );
}

#[tokio::test]
async fn a_session_listen_honours_what_the_server_announces_and_subscribes_2025() {
    let server = board();
    let (client, _serving) = connect(&server, Wire::Memory, Revision::V2025, builder()).await;
    let asked = SubscriptionFilter::new()
        .tools_changed()
        .prompts_changed()
        .resources_changed()
        .resource(MESSAGES);
    let listen = client.listen(asked).await.expect("listening");
    let honoured = SubscriptionFilter::new()
        .tools_changed()
        .resources_changed()
        .resource(MESSAGES);
    assert_eq!(
        listen.honoured(),
        &honoured,
        "the server announces no prompts"
    );
    let refused = client
        .listen(SubscriptionFilter::new().resource("board://nowhere"))
        .await;
    assert!(
        matches!(&refused, Err(ClientError::Rpc(e)) if e.message.contains("board://nowhere")),
        "{refused:?}"
    );
}

/// Two listens at once, each hearing only its own.
async fn two_listens_each_hear_their_own(revision: Revision) {
    let server = board();
    let handle = server.handle();
    let (client, _serving) = connect(&server, Wire::Memory, revision, builder()).await;
    let filter = SubscriptionFilter::new();
    let mut tools = client
        .listen(filter.clone().tools_changed())
        .await
        .expect("listening");
    let watched = filter.resource(MESSAGES).resource("board://topics/a");
    let mut resources = client.listen(watched).await.expect("listening");
    handle.resource_updated(MESSAGES);
    handle.notify(Change::ToolsListChanged);
    handle.resource_updated("board://topics/a");
    assert_eq!(next(&mut tools).await, Some(Ok(Change::ToolsListChanged)));
    assert_eq!(next(&mut resources).await, Some(Ok(updated(MESSAGES))));
    assert_eq!(
        next(&mut resources).await,
        Some(Ok(updated("board://topics/a")))
    );
}

#[tokio::test]
async fn two_listens_each_hear_their_own_2026() {
    two_listens_each_hear_their_own(Revision::V2026).await;
}

#[tokio::test]
async fn two_listens_each_hear_their_own_2025() {
    two_listens_each_hear_their_own(Revision::V2025).await;
}

/// Dropping a 2026-07-28 listen ends it on the server.
async fn dropping_ends_it_on_the_server(wire: Wire) {
    let server = board();
    let (client, _serving) = connect(&server, wire, Revision::V2026, builder()).await;
    let first = client
        .listen(SubscriptionFilter::new().tools_changed())
        .await;
    let second = client
        .listen(SubscriptionFilter::new().tools_changed())
        .await;
    listeners(&server, 2).await;
    drop(first);
    listeners(&server, 1).await;
    let mut second = second.expect("listening");
    server.handle().notify(Change::ToolsListChanged);
    assert_eq!(next(&mut second).await, Some(Ok(Change::ToolsListChanged)));
}

#[tokio::test]
async fn dropping_a_listen_ends_it_in_memory() {
    dropping_ends_it_on_the_server(Wire::Memory).await;
}

#[tokio::test]
async fn dropping_a_listen_ends_it_over_stdio() {
    dropping_ends_it_on_the_server(Wire::Stdio).await;
}

#[cfg(feature = "http")]
#[tokio::test]
async fn dropping_a_listen_closes_its_http_stream() {
    dropping_ends_it_on_the_server(Wire::Http).await;
}

#[tokio::test]
async fn dropping_a_session_listen_unsubscribes_what_no_other_watches_2025() {
    let server = board();
    let handle = server.handle();
    let (client, _serving) = connect(&server, Wire::Memory, Revision::V2025, builder()).await;
    let mut notifications = client.notifications().expect("the receiver");
    let messages = || SubscriptionFilter::new().resource(MESSAGES);
    let first = client.listen(messages()).await.expect("listening");
    let mut second = client.listen(messages()).await.expect("listening");
    let marker = "board://topics/marker";
    let mut markers = client
        .listen(SubscriptionFilter::new().resource(marker))
        .await
        .expect("listening");
    drop(first);
    // The second listen keeps the subscription, whenever the first one's release runs.
    for _ in 0..10 {
        handle.resource_updated(MESSAGES);
        assert_eq!(next(&mut second).await, Some(Ok(updated(MESSAGES))));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    drop(second);
    // Each marker comes after its update on the connection: once the marker is read, an update
    // the session still heard of has reached notifications().
    for attempt in 0.. {
        assert!(attempt < 100, "the session stays subscribed to {MESSAGES}");
        tokio::time::sleep(Duration::from_millis(20)).await;
        handle.resource_updated(MESSAGES);
        handle.resource_updated(marker);
        assert_eq!(next(&mut markers).await, Some(Ok(updated(marker))));
        if notifications.try_recv().is_err() {
            break;
        }
    }
}

#[cfg(feature = "http")]
#[tokio::test]
async fn a_graceful_http_shutdown_closes_a_listen_without_loss() {
    let server = board();
    let (client, serving) = connect(&server, Wire::Http, Revision::V2026, builder()).await;
    let mut listen = client
        .listen(SubscriptionFilter::new().tools_changed())
        .await
        .expect("listening");
    drop(serving);
    assert_eq!(next(&mut listen).await, None, "closed, not lost");
}

/// Calls `hello` with a time limit, so a blocked client fails the test instead of hanging.
async fn hello_answers(client: &Client) {
    let result = tokio::time::timeout(Duration::from_secs(10), client.call_tool("hello", None))
        .await
        .expect("the call is not held up")
        .expect("the call succeeds");
    assert_eq!(result.content[0].as_text(), Some("hello"));
}

#[tokio::test]
async fn a_flood_to_a_listen_nobody_reads_does_not_hold_up_calls() {
    let server = board();
    let handle = server.handle();
    let (client, _serving) = connect(&server, Wire::Memory, Revision::V2026, builder()).await;
    let mut listen = client
        .listen(SubscriptionFilter::new().tools_changed())
        .await
        .expect("listening");
    // Far more than every queue between the server and the listen holds.
    let flood = 4 * (mcp::client::NOTIFICATION_BUFFER + 2 * mcp::transport::CHANNEL_CAPACITY);
    for n in 0..flood {
        handle.notify(Change::ToolsListChanged);
        if n % 32 == 0 {
            // Lets the server deliver as it goes, rather than its bus drop the oldest.
            tokio::task::yield_now().await;
        }
    }
    hello_answers(&client).await;
    assert_eq!(next(&mut listen).await, Some(Ok(Change::ToolsListChanged)));
}

fn names(tools: Vec<Tool>) -> Vec<String> {
    let mut names: Vec<String> = tools.into_iter().map(|t| t.name).collect();
    names.sort();
    names
}

/// The hook gets the new list after each change, and the change goes nowhere else.
async fn the_hook_sees_the_new_tools(wire: Wire, revision: Revision) {
    let server = board();
    let handle = server.handle();
    let (changed, mut heard) = mpsc::channel(8);
    let builder = builder().on_tools_changed(move |tools| {
        let changed = changed.clone();
        async move {
            let _ = changed.send(names(tools)).await;
        }
    });
    let (client, _serving) = connect(&server, wire, revision, builder).await;
    let mut notifications = client.notifications().expect("the receiver");
    let mut hook = async || {
        tokio::time::timeout(Duration::from_secs(5), heard.recv())
            .await
            .expect("the hook within 5 s")
            .expect("a list")
    };
    assert_eq!(
        names(client.list_all_tools().await.expect("tools")),
        ["hello"]
    );
    handle.add_tools(mcp::tools![goodbye]).expect("tables");
    assert_eq!(hook().await, ["goodbye", "hello"]);
    handle.remove_tool("hello").expect("tables");
    assert_eq!(hook().await, ["goodbye"]);
    let leaked = notifications.try_recv().map(|n| n.method);
    assert!(leaked.is_err(), "{leaked:?} reached notifications()");
}

#[tokio::test]
async fn the_hook_sees_the_new_tools_in_memory_2026() {
    the_hook_sees_the_new_tools(Wire::Memory, Revision::V2026).await;
}

#[tokio::test]
async fn the_hook_sees_the_new_tools_in_memory_2025() {
    the_hook_sees_the_new_tools(Wire::Memory, Revision::V2025).await;
}

#[cfg(feature = "http")]
#[tokio::test]
async fn the_hook_sees_the_new_tools_over_http_2026() {
    the_hook_sees_the_new_tools(Wire::Http, Revision::V2026).await;
}

#[cfg(feature = "http")]
#[tokio::test]
async fn the_hook_sees_the_new_tools_over_http_2025() {
    the_hook_sees_the_new_tools(Wire::Http, Revision::V2025).await;
}

/// The server end of a connection, played by the test.
struct Scripted {
    incoming: mpsc::Receiver<Frame>,
    outgoing: mpsc::Sender<String>,
}

fn scripted() -> (Client, Scripted) {
    let (client_end, server_end) = memory::pair();
    let server = Scripted {
        incoming: server_end.incoming,
        outgoing: server_end.outgoing,
    };
    (builder().connect(client_end), server)
}

impl Scripted {
    async fn recv(&mut self) -> Value {
        let frame = tokio::time::timeout(Duration::from_secs(5), self.incoming.recv())
            .await
            .expect("a message within 5 s")
            .expect("the client is connected")
            .expect("a frame");
        serde_json::from_str(&frame).expect("JSON")
    }

    async fn send(&self, message: Value) {
        self.outgoing
            .send(message.to_string())
            .await
            .expect("the client reads");
    }

    /// Reads a listen request and acknowledges `granted`; the request.
    async fn acknowledge(&mut self, granted: Value) -> Value {
        let request = self.recv().await;
        assert_eq!(request["method"], "subscriptions/listen", "{request}");
        self.send(
            json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                         "params": {"notifications": granted,
                                    "_meta": {SUB: request["id"]}}}),
        )
        .await;
        request
    }

    /// Sends `method` on the listen `id`, with `params`.
    async fn tell(&self, id: &Value, method: &str, mut params: Value) {
        params["_meta"] = json!({SUB: id});
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Answers the next request with an empty result: every message sent before this one
    /// has been read by the client once its call returns.
    async fn answer_next(&mut self) {
        let request = self.recv().await;
        self.send(json!({"jsonrpc": "2.0", "id": request["id"],
                         "result": {"resultType": "complete", "content": []}}))
            .await;
    }
}

const SUB: &str = "io.modelcontextprotocol/subscriptionId";

/// `future`, which the scripted server should let finish, within 5 s.
async fn within<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(5), future)
        .await
        .expect("done within 5 s")
}

/// A call's round trip through the scripted server.
async fn sync(client: &Client, server: &mut Scripted) {
    let (called, ()) = within(async {
        tokio::join!(
            client.call_tool_once("sync", None, None, None),
            server.answer_next()
        )
    })
    .await;
    called.expect("the call returns");
}

async fn first_notification(notifications: &mut mpsc::Receiver<RawNotification>) -> String {
    tokio::time::timeout(Duration::from_secs(5), notifications.recv())
        .await
        .expect("a notification within 5 s")
        .expect("the receiver is open")
        .method
}

#[tokio::test]
async fn a_listen_on_the_wire_hears_only_its_own_grant_and_ends_when_the_server_closes_it() {
    let (client, mut server) = scripted();
    let mut notifications = client.notifications().expect("the receiver");
    let asked = SubscriptionFilter::new().tools_changed().resource(MESSAGES);
    let (listen, request) = within(async {
        tokio::join!(
            client.listen(asked),
            server.acknowledge(json!({"toolsListChanged": true}))
        )
    })
    .await;
    let mut listen = listen.expect("listening");
    assert_eq!(
        listen.honoured(),
        &SubscriptionFilter::new().tools_changed()
    );
    assert!(request["id"].is_string(), "{request}");
    assert_eq!(
        request["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": [MESSAGES]})
    );
    assert_eq!(
        request["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    let id = &request["id"];
    // Not granted, another listen's, then what it asked for.
    server
        .tell(id, "notifications/prompts/list_changed", json!({}))
        .await;
    server
        .tell(
            id,
            "notifications/resources/updated",
            json!({"uri": MESSAGES}),
        )
        .await;
    server
        .tell(
            &json!("listen-999"),
            "notifications/tools/list_changed",
            json!({}),
        )
        .await;
    server
        .tell(id, "notifications/tools/list_changed", json!({}))
        .await;
    // The server closes it: its final result, then (as on stdio) `notifications/cancelled`.
    server
        .send(json!({"jsonrpc": "2.0", "id": id,
                     "result": {"resultType": "complete", "_meta": {SUB: id}}}))
        .await;
    server
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": id, "reason": "shutting down"}}),
        )
        .await;
    server
        .send(json!({"jsonrpc": "2.0", "method": "notifications/message",
                     "params": {"level": "info", "data": "after the listen"}}))
        .await;
    assert_eq!(next(&mut listen).await, Some(Ok(Change::ToolsListChanged)));
    assert_eq!(next(&mut listen).await, None, "closed, not lost");
    assert_eq!(
        first_notification(&mut notifications).await,
        "notifications/message",
        "nothing of the listen reached notifications()"
    );
    // Over already, it is not cancelled when dropped: the client's next message comes next.
    drop(listen);
    client
        .notify("notifications/roots/list_changed", &json!({}))
        .await
        .expect("sent");
    assert_eq!(
        server.recv().await["method"],
        "notifications/roots/list_changed"
    );
}

#[tokio::test]
async fn dropping_an_open_listen_cancels_its_request() {
    let (client, mut server) = scripted();
    let (listen, request) = within(async {
        tokio::join!(
            client.listen(SubscriptionFilter::new().tools_changed()),
            server.acknowledge(json!({"toolsListChanged": true}))
        )
    })
    .await;
    drop(listen.expect("listening"));
    let cancel = server.recv().await;
    assert_eq!(cancel["method"], "notifications/cancelled", "{cancel}");
    assert_eq!(cancel["params"]["requestId"], request["id"], "{cancel}");
}

#[tokio::test]
async fn a_change_heard_again_before_it_was_read_is_read_once() {
    let (client, mut server) = scripted();
    let (listen, request) = within(async {
        tokio::join!(
            client.listen(SubscriptionFilter::new().tools_changed().resource(MESSAGES)),
            server.acknowledge(
                json!({"toolsListChanged": true, "resourceSubscriptions": [MESSAGES]})
            )
        )
    })
    .await;
    let mut listen = listen.expect("listening");
    let id = &request["id"];
    for _ in 0..300 {
        server
            .tell(id, "notifications/tools/list_changed", json!({}))
            .await;
    }
    server
        .tell(
            id,
            "notifications/resources/updated",
            json!({"uri": MESSAGES}),
        )
        .await;
    for _ in 0..300 {
        server
            .tell(id, "notifications/tools/list_changed", json!({}))
            .await;
    }
    sync(&client, &mut server).await;
    assert_eq!(next(&mut listen).await, Some(Ok(Change::ToolsListChanged)));
    assert_eq!(next(&mut listen).await, Some(Ok(updated(MESSAGES))));
    // Nothing else waits: the next thing read is what the server says next.
    server
        .tell(
            id,
            "notifications/resources/updated",
            json!({"uri": "board://topics/a"}),
        )
        .await;
    assert_eq!(
        next(&mut listen).await,
        Some(Ok(updated("board://topics/a")))
    );
}

#[tokio::test]
async fn a_listen_nobody_reads_is_lost_once_its_buffer_fills_and_the_server_is_told() {
    let (client, mut server) = scripted();
    let (listen, request) = within(async {
        tokio::join!(
            client.listen(SubscriptionFilter::new().resource("board://tree")),
            server.acknowledge(json!({"resourceSubscriptions": ["board://tree"]}))
        )
    })
    .await;
    let mut listen = listen.expect("listening");
    let id = &request["id"];
    // Updates of sub-resources, each a different change.
    for n in 0..=LISTEN_BUFFER {
        let uri = format!("board://tree/{n}");
        server
            .tell(id, "notifications/resources/updated", json!({"uri": uri}))
            .await;
    }
    let cancel = server.recv().await;
    assert_eq!(cancel["method"], "notifications/cancelled", "{cancel}");
    assert_eq!(cancel["params"]["requestId"], *id, "{cancel}");
    // The connection serves calls as before.
    sync(&client, &mut server).await;
    for n in 0..LISTEN_BUFFER {
        let uri = format!("board://tree/{n}");
        assert_eq!(next(&mut listen).await, Some(Ok(updated(&uri))));
    }
    assert_eq!(next(&mut listen).await, Some(Err(ListenLost::FellBehind)));
    assert_eq!(next(&mut listen).await, None);
}

#[tokio::test]
async fn a_refused_listen_is_the_error_and_one_that_fails_later_is_lost() {
    let (client, mut server) = scripted();
    let refuse = async {
        let request = server.recv().await;
        server
            .send(json!({"jsonrpc": "2.0", "id": request["id"],
                         "error": {"code": -32601, "message": "Method not found"}}))
            .await;
    };
    let (refused, ()) = within(async {
        tokio::join!(
            client.listen(SubscriptionFilter::new().tools_changed()),
            refuse
        )
    })
    .await;
    assert!(
        matches!(&refused, Err(ClientError::Rpc(e)) if e.code == -32601),
        "{refused:?}"
    );
    let (listen, request) = within(async {
        tokio::join!(
            client.listen(SubscriptionFilter::new().tools_changed()),
            server.acknowledge(json!({"toolsListChanged": true}))
        )
    })
    .await;
    let mut listen = listen.expect("listening");
    server
        .send(json!({"jsonrpc": "2.0", "id": request["id"],
                     "error": {"code": -32603, "message": "the stream broke"}}))
        .await;
    let lost = next(&mut listen).await;
    assert!(
        matches!(&lost, Some(Err(ListenLost::Failed(e))) if e.code == -32603),
        "{lost:?}"
    );
    assert_eq!(next(&mut listen).await, None);
}

#[tokio::test]
async fn a_listen_is_lost_with_its_connection() {
    let (client, mut server) = scripted();
    let (listen, _) = within(async {
        tokio::join!(
            client.listen(SubscriptionFilter::new().tools_changed()),
            server.acknowledge(json!({"toolsListChanged": true}))
        )
    })
    .await;
    let mut listen = listen.expect("listening");
    drop(server);
    assert_eq!(next(&mut listen).await, Some(Err(ListenLost::Disconnected)));
    assert_eq!(next(&mut listen).await, None);
    let again = client
        .listen(SubscriptionFilter::new().tools_changed())
        .await;
    assert!(matches!(again, Err(ClientError::Closed)), "{again:?}");
}

#[tokio::test]
async fn a_session_listen_subscribes_hears_of_sub_resources_and_unsubscribes_2025() {
    let (client, mut server) = scripted();
    let mut notifications = client.notifications().expect("the receiver");
    let open_session = async {
        let initialize = server.recv().await;
        server
            .send(json!({"jsonrpc": "2.0", "id": initialize["id"], "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"resources": {"subscribe": true}},
                "serverInfo": {"name": "scripted", "version": "1"}}}))
            .await;
        assert_eq!(server.recv().await["method"], "notifications/initialized");
    };
    let (session, ()) = within(async { tokio::join!(client.initialize(), open_session) }).await;
    session.expect("a session");
    let subscribe = async {
        let request = server.recv().await;
        server
            .send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {}}))
            .await;
        request
    };
    let watched = SubscriptionFilter::new()
        .tools_changed()
        .resource("board://tree")
        .resource("board://tree");
    let (listen, request) = within(async { tokio::join!(client.listen(watched), subscribe) }).await;
    let mut listen = listen.expect("listening");
    assert_eq!(request["method"], "resources/subscribe", "{request}");
    assert_eq!(
        request["params"],
        json!({"uri": "board://tree"}),
        "{request}"
    );
    assert_eq!(
        listen.honoured(),
        &SubscriptionFilter::new().resource("board://tree"),
        "the server announces no changes of its tools; the resource counts once"
    );
    for uri in ["board://treehouse", "board://tree/leaf"] {
        server
            .send(
                json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                         "params": {"uri": uri}}),
            )
            .await;
    }
    assert_eq!(
        next(&mut listen).await,
        Some(Ok(updated("board://tree/leaf")))
    );
    let untaken = notifications
        .try_recv()
        .expect("the update no listen watches");
    assert_eq!(untaken.method, "notifications/resources/updated");
    drop(listen);
    let unsubscribe = server.recv().await;
    assert_eq!(
        unsubscribe["method"], "resources/unsubscribe",
        "{unsubscribe}"
    );
    assert_eq!(unsubscribe["params"], json!({"uri": "board://tree"}));
}

#[tokio::test]
async fn list_all_tools_follows_the_cursor_and_gives_up_on_a_listing_without_end() {
    let (client, mut server) = scripted();
    let tool = |name: &str| json!({"name": name, "inputSchema": {"type": "object"}});
    let pages = async {
        let first = server.recv().await;
        assert_eq!(first["params"].get("cursor"), None, "{first}");
        server
            .send(json!({"jsonrpc": "2.0", "id": first["id"], "result": {
                "resultType": "complete", "tools": [tool("a")], "nextCursor": "page-2"}}))
            .await;
        let second = server.recv().await;
        assert_eq!(second["params"]["cursor"], "page-2", "{second}");
        server
            .send(json!({"jsonrpc": "2.0", "id": second["id"], "result": {
                "resultType": "complete", "tools": [tool("b")]}}))
            .await;
    };
    let (tools, ()) = within(async { tokio::join!(client.list_all_tools(), pages) }).await;
    assert_eq!(names(tools.expect("every page")), ["a", "b"]);
    let endless = async {
        for n in 0..mcp::client::MAX_LIST_PAGES {
            let request = server.recv().await;
            server
                .send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {
                    "resultType": "complete", "tools": [], "nextCursor": format!("{n}")}}))
                .await;
        }
    };
    let (tools, ()) = within(async { tokio::join!(client.list_all_tools(), endless) }).await;
    assert!(
        matches!(tools, Err(ClientError::TooManyPages { max }) if max == mcp::client::MAX_LIST_PAGES),
        "{tools:?}"
    );
}
