//! Server push over a connection served by `Server::serve` (stdio, in memory): 2026-07-28
//! `subscriptions/listen` and the 2025-11-25 session's own notifications, driven by
//! `ServerHandle`. The client side is raw JSON lines, so the tests see exactly what goes out.

use std::time::Duration;

use mcp::McpServer;
use mcp::push::Change;
use mcp::server::{LISTENER_QUEUE, MAX_LISTENS, Server};
use mcp::transport::memory;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Says hello.
#[mcp::tool]
async fn hello() -> &'static str {
    "hello"
}

/// The posts so far.
#[mcp::resource("board://messages")]
async fn messages() -> String {
    String::new()
}

/// A server with tools and resources but no prompts.
pub fn board() -> Server {
    McpServer::new("board")
        .tools(mcp::tools![hello])
        .resources(mcp::resources![messages])
        .build()
        .expect("valid")
}

const SUB: &str = "io.modelcontextprotocol/subscriptionId";

/// A raw client on one in-memory connection.
struct Raw {
    to_server: mpsc::Sender<String>,
    from_server: mpsc::Receiver<mcp::transport::Frame>,
}

impl Raw {
    fn connect(server: &Server) -> Self {
        let (ours, theirs) = memory::pair();
        let server = server.clone();
        tokio::spawn(async move { server.serve(theirs).await });
        Self {
            to_server: ours.outgoing,
            from_server: ours.incoming,
        }
    }

    async fn send(&self, message: Value) {
        self.to_server
            .send(message.to_string())
            .await
            .expect("server reads");
    }

    async fn next(&mut self) -> Value {
        let frame = tokio::time::timeout(Duration::from_secs(5), self.from_server.recv())
            .await
            .expect("a message within 5 s")
            .expect("the connection is open")
            .expect("a frame");
        serde_json::from_str(&frame).expect("JSON")
    }

    async fn nothing_for(&mut self, wait: Duration) {
        if let Ok(Some(frame)) = tokio::time::timeout(wait, self.from_server.recv()).await {
            panic!("unexpected message: {frame:?}");
        }
    }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn listen(id: Value, notifications: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
           "params": {"_meta": meta(), "notifications": notifications}})
}

/// Waits until the server has `n` listeners.
async fn listeners(server: &Server, n: usize) {
    for _ in 0..500 {
        if server.push_stats().listeners == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{} listeners, not {n}", server.push_stats().listeners);
}

#[tokio::test]
async fn a_listen_is_acknowledged_with_what_the_server_can_send_and_carries_only_that() {
    let server = board();
    let handle = server.handle();
    let mut client = Raw::connect(&server);
    let asked = json!({"toolsListChanged": true, "promptsListChanged": true,
                       "resourcesListChanged": false,
                       "resourceSubscriptions": ["board://messages", "board://nowhere"]});
    client.send(listen(json!("listen-1"), asked)).await;
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
               "params": {"notifications": {"toolsListChanged": true,
                                            "resourceSubscriptions": ["board://messages"]},
                          "_meta": {SUB: "listen-1"}}}),
        "no prompts to announce, resources lists not asked for, an unknown URI left out"
    );
    handle.notify(Change::PromptsListChanged);
    handle.notify(Change::ResourcesListChanged);
    handle.resource_updated("board://other");
    handle.resource_updated("board://messages");
    handle.notify(Change::ToolsListChanged);
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "board://messages", "_meta": {SUB: "listen-1"}}})
    );
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
               "params": {"_meta": {SUB: "listen-1"}}})
    );
    client.nothing_for(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn several_listens_run_at_once_each_with_its_own_id_and_the_client_ends_one() {
    // One request at a time: listens must not take that place.
    let server = McpServer::new("board")
        .tools(mcp::tools![hello])
        .max_requests_in_flight(1)
        .build()
        .expect("valid");
    let handle = server.handle();
    let mut client = Raw::connect(&server);
    client
        .send(listen(json!(1), json!({"toolsListChanged": true})))
        .await;
    assert_eq!(client.next().await["params"]["_meta"][SUB], 1);
    client
        .send(listen(json!(2), json!({"toolsListChanged": true})))
        .await;
    assert_eq!(client.next().await["params"]["_meta"][SUB], 2);
    // A listen holds no place among the requests in flight: a call still gets through.
    client
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                     "params": {"name": "hello", "_meta": meta()}}))
        .await;
    assert_eq!(client.next().await["id"], 3);
    handle.notify(Change::ToolsListChanged);
    let mut ids = vec![
        client.next().await["params"]["_meta"][SUB].clone(),
        client.next().await["params"]["_meta"][SUB].clone(),
    ];
    ids.sort_by_key(|v| v.as_i64());
    assert_eq!(ids, [json!(1), json!(2)]);
    client
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 1}}),
        )
        .await;
    listeners(&server, 1).await;
    handle.notify(Change::ToolsListChanged);
    assert_eq!(client.next().await["params"]["_meta"][SUB], 2);
    client.nothing_for(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn listens_per_connection_are_bounded() {
    let server = board();
    let mut client = Raw::connect(&server);
    for id in 0..MAX_LISTENS {
        client.send(listen(json!(id), json!({}))).await;
        client.next().await;
    }
    client.send(listen(json!("one-more"), json!({}))).await;
    let refused = client.next().await;
    assert_eq!(refused["id"], "one-more");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
}

#[tokio::test]
async fn a_listener_that_does_not_read_is_ended_and_the_others_keep_hearing() {
    let server = board();
    let handle = server.handle();
    // The slow connection's client never reads once acknowledged.
    let mut slow = Raw::connect(&server);
    slow.send(listen(json!("slow"), json!({"toolsListChanged": true})))
        .await;
    slow.next().await;
    let mut fast = Raw::connect(&server);
    fast.send(listen(json!("fast"), json!({"toolsListChanged": true})))
        .await;
    fast.next().await;
    // More than the listener's queue plus both channels of the in-memory pipe can hold.
    let flood = LISTENER_QUEUE + 2 * mcp::transport::CHANNEL_CAPACITY + 64;
    for n in 0..flood {
        handle.notify(Change::ToolsListChanged);
        assert_eq!(
            fast.next().await["method"],
            "notifications/tools/list_changed",
            "#{n}"
        );
    }
    assert_eq!(server.push_stats().fallen_behind, 1, "only the slow one");
    // The slow client catches up: what was queued, then the end of its listen.
    let mut last = slow.next().await;
    while last.get("method").is_some() {
        last = slow.next().await;
    }
    assert_eq!(last["id"], "slow", "{last}");
    assert_eq!(last["result"]["resultType"], "complete", "{last}");
    assert_eq!(last["result"]["_meta"][SUB], "slow", "{last}");
    assert_eq!(
        slow.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": "slow", "reason": "The server ended the subscription"}})
    );
    listeners(&server, 1).await;
}

#[tokio::test]
async fn listeners_go_away_with_their_connection() {
    let server = board();
    {
        let mut client = Raw::connect(&server);
        client.send(listen(json!(1), json!({}))).await;
        client.next().await;
        client
            .send(json!({"jsonrpc": "2.0", "id": 2, "method": "initialize",
                         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "c", "version": "1"}}}))
            .await;
        client.next().await;
        listeners(&server, 2).await;
    }
    listeners(&server, 0).await;
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
           "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                      "clientInfo": {"name": "c", "version": "1"}}})
}

#[tokio::test]
async fn a_2025_session_hears_list_changes_and_updates_of_what_it_subscribed_to() {
    let server = board();
    let handle = server.handle();
    let mut client = Raw::connect(&server);
    client.send(initialize()).await;
    let init = client.next().await;
    assert_eq!(
        init["result"]["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert_eq!(
        init["result"]["capabilities"]["tools"],
        json!({"listChanged": true})
    );
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                     "params": {"uri": "board://messages"}}),
        )
        .await;
    assert_eq!(client.next().await["id"], 1);
    handle.notify(Change::ToolsListChanged);
    // No prompts: nothing to announce.
    handle.notify(Change::PromptsListChanged);
    handle.resource_updated("board://elsewhere");
    handle.resource_updated("board://messages");
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "board://messages"}})
    );
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "resources/unsubscribe",
                     "params": {"uri": "board://messages"}}),
        )
        .await;
    assert_eq!(client.next().await["id"], 2);
    handle.resource_updated("board://messages");
    client.nothing_for(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn a_2025_session_cannot_listen() {
    let server = board();
    let mut client = Raw::connect(&server);
    client.send(initialize()).await;
    client.next().await;
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                     "params": {"notifications": {"toolsListChanged": true}}}),
        )
        .await;
    assert_eq!(client.next().await["error"]["code"], -32601);
}

#[tokio::test]
async fn a_context_reaches_the_handle() {
    /// Announces that the tools changed.
    #[mcp::tool]
    async fn change(ctx: mcp::Context) -> &'static str {
        ctx.server().notify(Change::ToolsListChanged);
        "changed"
    }
    let server = McpServer::new("changing")
        .tools(mcp::tools![change])
        .build()
        .expect("valid");
    let mut client = Raw::connect(&server);
    client
        .send(listen(json!("l"), json!({"toolsListChanged": true})))
        .await;
    client.next().await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "change", "_meta": meta()}}))
        .await;
    let mut methods = [client.next().await, client.next().await]
        .map(|m| m.get("method").cloned().unwrap_or(m["id"].clone()));
    methods.sort_by_key(|m| m.to_string());
    assert_eq!(
        methods,
        [json!("notifications/tools/list_changed"), json!(1)]
    );
}

#[tokio::test]
async fn a_2025_session_that_falls_behind_is_told_everything_may_have_changed() {
    let server = board();
    let handle = server.handle();
    let mut client = Raw::connect(&server);
    client.send(initialize()).await;
    client.next().await;
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                     "params": {"uri": "board://messages"}}),
        )
        .await;
    client.next().await;
    listeners(&server, 1).await;
    // The client reads nothing while more than its queue and the pipe can hold is sent.
    let flood = LISTENER_QUEUE + 2 * mcp::transport::CHANNEL_CAPACITY + 64;
    for _ in 0..flood {
        handle.notify(Change::ToolsListChanged);
    }
    let mut heard = Vec::new();
    while let Ok(Some(Ok(line))) =
        tokio::time::timeout(Duration::from_millis(300), client.from_server.recv()).await
    {
        heard.push(serde_json::from_str::<Value>(&line).expect("JSON"));
    }
    let ended = server.push_stats().fallen_behind;
    assert!(ended >= 1, "the session never fell behind");
    assert!(heard.len() < flood, "some changes were dropped");
    // Each time it fell behind, it was told to re-read every list and what it subscribed to.
    let resync = [
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "board://messages"}}),
    ];
    let told = heard.windows(3).filter(|w| *w == resync).count();
    assert_eq!(told as u64, ended, "resyncs among {} messages", heard.len());
    // And it keeps hearing.
    handle.notify(Change::ResourcesListChanged);
    assert_eq!(
        client.next().await["method"],
        "notifications/resources/list_changed"
    );
    listeners(&server, 1).await;
}
