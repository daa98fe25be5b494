//! What an `McpServer` offers, changed while it runs through its `ServerHandle`: the listings
//! and calls over the wire on both revisions, calls and rounds in flight across a change,
//! cursors, completions, subscriptions, capabilities, the changes announced to this instance's
//! listeners (and not on the bus), and listings under concurrent changes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp::protocol::{CallToolParams, CallToolResult, McpError, Outcome, Tool};
use mcp::push::{Change, LocalBus, NotificationBus};
use mcp::server::{ChangeError, Context, McpServer, Server, ToolEntry};
use mcp::transport::{Duplex, memory};
use mcp::{BoxFuture, Elicit};
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::support::Region;

/// Echoes its text.
#[mcp::tool]
async fn echo(text: String) -> String {
    text
}

/// Echoes its text, louder: replaces `echo`.
#[mcp::tool(name = "echo")]
async fn echo_loud(text: String) -> String {
    text.to_uppercase()
}

/// Empties the board.
#[mcp::tool]
async fn clear() -> String {
    "Cleared.".to_owned()
}

async fn names(prefix: String) -> Vec<String> {
    ["Ada", "Alan", "Grace"]
        .iter()
        .filter(|n| n.starts_with(&prefix))
        .map(|n| n.to_string())
        .collect()
}

/// Greets someone.
#[mcp::prompt]
async fn greeting(#[mcp(complete = names)] name: String) -> String {
    format!("Say hello to {name}.")
}

/// The posts so far.
#[mcp::resource("board://messages", mime_type = "text/plain")]
async fn messages() -> String {
    "first post".to_owned()
}

/// One topic of the board.
#[mcp::resource("board://topics/{topic}")]
async fn topic(topic: String) -> String {
    format!("about {topic}")
}

/// Let through by `GATE`, so a test can change the tables while it runs.
static STARTED: AtomicBool = AtomicBool::new(false);
static GATE: Notify = Notify::const_new();

/// Waits for the test, then answers as the old function.
#[mcp::tool]
async fn slow() -> String {
    STARTED.store(true, Ordering::SeqCst);
    GATE.notified().await;
    "old slow".to_owned()
}

/// The function that replaces `slow` while a call of it runs.
#[mcp::tool(name = "slow")]
async fn slow_new() -> String {
    "new slow".to_owned()
}

/// Asks a region before provisioning.
#[mcp::tool]
async fn place(name: String, region: Elicit<Region>) -> String {
    format!("{name} placed in {}", region.region)
}

/// `place` after a redeploy: same arguments and question, new wording.
#[mcp::tool(name = "place")]
async fn place_v2(name: String, region: Elicit<Region>) -> String {
    format!("v2: {name} placed in {}", region.region)
}

/// A JSON-RPC client on the raw wire, of either revision.
struct Wire {
    duplex: Duplex,
    legacy: bool,
    next_id: i64,
    /// Responses that arrived while another was awaited.
    early: HashMap<i64, Value>,
}

impl Wire {
    /// A connection, with its 2025-11-25 session initialized when `legacy`.
    async fn open(server: &Server, legacy: bool) -> Self {
        let mut wire = Self::raw(server, legacy);
        if legacy {
            let init = wire
                .request(
                    "initialize",
                    json!({"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "1"}}),
                )
                .await;
            assert!(init.get("result").is_some(), "{init}");
            wire.line(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .await;
        }
        wire
    }

    /// A connection with nothing sent yet.
    fn raw(server: &Server, legacy: bool) -> Self {
        let (duplex, end) = memory::pair();
        let server = server.clone();
        tokio::spawn(async move { server.serve(end).await });
        Self {
            duplex,
            legacy,
            next_id: 0,
            early: HashMap::new(),
        }
    }

    async fn line(&mut self, message: Value) {
        self.duplex
            .outgoing
            .send(message.to_string())
            .await
            .expect("server alive");
    }

    async fn send(&mut self, method: &str, mut params: Value) -> i64 {
        self.next_id += 1;
        if !self.legacy && method != "initialize" {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            });
        }
        let id = self.next_id;
        self.line(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    async fn recv(&mut self, id: i64) -> Value {
        if let Some(response) = self.early.remove(&id) {
            return response;
        }
        loop {
            let line = tokio::time::timeout(Duration::from_secs(10), self.duplex.incoming.recv())
                .await
                .expect("an answer within 10 s")
                .expect("server alive")
                .expect("a line");
            let message: Value = serde_json::from_str(&line).expect("JSON");
            match message["id"].as_i64() {
                Some(got) if got == id => return message,
                Some(other) => {
                    self.early.insert(other, message);
                }
                None => {} // a notification
            }
        }
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params).await;
        self.recv(id).await
    }

    async fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params).await;
        response
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{method} failed: {response}"))
    }

    async fn names(&mut self, method: &str, field: &str, key: &str) -> Vec<String> {
        self.result(method, json!({})).await[field]
            .as_array()
            .expect("a list")
            .iter()
            .map(|t| t[key].as_str().expect("a name").to_owned())
            .collect()
    }

    async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
            .await
    }

    /// What `server/discover` advertises now.
    async fn capabilities(&mut self) -> Value {
        self.result("server/discover", json!({})).await["capabilities"].clone()
    }
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {response}"))
}

fn error_message(response: &Value) -> &str {
    response["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

fn board() -> Server {
    McpServer::new("board")
        .tools(mcp::tools![echo])
        .build()
        .expect("the server builds")
}

#[tokio::test]
async fn tools_prompts_and_resources_change_on_the_wire_of_both_revisions() {
    for legacy in [false, true] {
        let server = board();
        let handle = server.handle();
        let mut wire = Wire::open(&server, legacy).await;
        assert_eq!(wire.names("tools/list", "tools", "name").await, ["echo"]);

        handle.add_tools(mcp::tools![clear]).expect("added");
        assert_eq!(
            wire.names("tools/list", "tools", "name").await,
            ["echo", "clear"]
        );
        assert_eq!(text(&wire.call("clear", json!({})).await), "Cleared.");

        // Replaced in place: same name, same position, the new function answers.
        handle.add_tools(mcp::tools![echo_loud]).expect("replaced");
        assert_eq!(
            wire.names("tools/list", "tools", "name").await,
            ["echo", "clear"]
        );
        assert_eq!(text(&wire.call("echo", json!({"text": "hi"})).await), "HI");

        assert!(handle.remove_tool("clear").expect("tables"));
        assert_eq!(wire.names("tools/list", "tools", "name").await, ["echo"]);
        let gone = wire.call("clear", json!({})).await;
        assert_eq!(gone["error"]["code"], -32602, "{gone}");
        assert_eq!(error_message(&gone), "Unknown tool: clear");

        handle.add_prompts(mcp::prompts![greeting]).expect("added");
        assert_eq!(
            wire.names("prompts/list", "prompts", "name").await,
            ["greeting"]
        );
        let got = wire
            .result(
                "prompts/get",
                json!({"name": "greeting", "arguments": {"name": "Ada"}}),
            )
            .await;
        assert_eq!(got["messages"][0]["content"]["text"], "Say hello to Ada.");

        handle
            .add_resources(mcp::resources![messages, topic])
            .expect("added");
        assert_eq!(
            wire.names("resources/list", "resources", "uri").await,
            ["board://messages"]
        );
        assert_eq!(
            wire.names(
                "resources/templates/list",
                "resourceTemplates",
                "uriTemplate"
            )
            .await,
            ["board://topics/{topic}"]
        );
        let read = wire
            .result("resources/read", json!({"uri": "board://topics/rust"}))
            .await;
        assert_eq!(read["contents"][0]["text"], "about rust");

        assert!(
            handle
                .remove_resource("board://topics/{topic}")
                .expect("tables")
        );
        assert!(handle.remove_prompt("greeting").expect("tables"));
        assert!(
            wire.names(
                "resources/templates/list",
                "resourceTemplates",
                "uriTemplate"
            )
            .await
            .is_empty()
        );
        assert!(
            wire.names("prompts/list", "prompts", "name")
                .await
                .is_empty()
        );
        let unread = wire
            .request("resources/read", json!({"uri": "board://topics/rust"}))
            .await;
        assert!(unread.get("error").is_some(), "{unread}");
    }
}

#[tokio::test]
async fn a_template_instance_is_a_static_resource_read_with_its_variables() {
    let [template] = mcp::resources![topic];
    assert!(template.at("board://elsewhere/rust").is_none());
    let [plain] = mcp::resources![messages];
    assert!(plain.at("board://messages").is_none(), "not a template");

    for legacy in [false, true] {
        let server = board();
        let handle = server.handle();
        let mut wire = Wire::open(&server, legacy).await;
        let rust = template.at("board://topics/rust").expect("it matches");
        handle.add_resources([rust]).expect("added");
        let listed = wire.result("resources/list", json!({})).await;
        assert_eq!(
            listed["resources"],
            json!([{"uri": "board://topics/rust", "name": "topic",
                    "description": "One topic of the board."}]),
            "{listed}"
        );
        assert!(
            wire.names(
                "resources/templates/list",
                "resourceTemplates",
                "uriTemplate"
            )
            .await
            .is_empty()
        );
        let read = wire
            .result("resources/read", json!({"uri": "board://topics/rust"}))
            .await;
        assert_eq!(read["contents"][0]["text"], "about rust");
        // Only the instance is there, not every URI its template matches.
        let other = wire
            .request("resources/read", json!({"uri": "board://topics/go"}))
            .await;
        assert!(other.get("error").is_some(), "{other}");
        if legacy {
            wire.result("resources/subscribe", json!({"uri": "board://topics/rust"}))
                .await;
        }
        assert!(
            handle
                .remove_resource("board://topics/rust")
                .expect("tables")
        );
        let gone = wire
            .request("resources/read", json!({"uri": "board://topics/rust"}))
            .await;
        assert!(gone.get("error").is_some(), "{gone}");
    }
}

#[tokio::test]
async fn a_call_in_flight_finishes_with_the_function_it_started_with() {
    let server = McpServer::new("board")
        .tools(mcp::tools![slow])
        .build()
        .expect("builds");
    let handle = server.handle();
    let mut wire = Wire::open(&server, false).await;
    let running = wire
        .send("tools/call", json!({"name": "slow", "arguments": {}}))
        .await;
    while !STARTED.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    assert!(handle.remove_tool("slow").expect("tables"));
    let refused = wire.call("slow", json!({})).await;
    assert_eq!(error_message(&refused), "Unknown tool: slow");
    handle.add_tools(mcp::tools![slow_new]).expect("added");
    assert_eq!(text(&wire.call("slow", json!({})).await), "new slow");

    GATE.notify_one();
    assert_eq!(text(&wire.recv(running).await), "old slow");
}

/// Round one of `place`: the question and the sealed state to answer it with.
async fn first_round(wire: &mut Wire) -> Value {
    let asked = wire
        .result(
            "tools/call",
            json!({"name": "place", "arguments": {"name": "db"}}),
        )
        .await;
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    asked
}

async fn second_round(wire: &mut Wire, asked: &Value) -> Value {
    let key = asked["inputRequests"]
        .as_object()
        .and_then(|r| r.keys().next().cloned())
        .expect("one question");
    wire.request(
        "tools/call",
        json!({
            "name": "place",
            "arguments": {"name": "db"},
            "inputResponses": {key: {"action": "accept", "content": {"region": "eu-west-1"}}},
            "requestState": asked["requestState"],
        }),
    )
    .await
}

#[tokio::test]
async fn a_round_of_a_removed_tool_is_refused_and_of_a_replaced_one_continues() {
    let server = McpServer::new("deployer")
        .tools(mcp::tools![place])
        .build()
        .expect("builds");
    let handle = server.handle();
    let mut wire = Wire::open(&server, false).await;

    // Replaced between rounds: the state is bound to the tool's name and arguments, which
    // still match, so the new function gets the answer.
    let asked = first_round(&mut wire).await;
    handle.add_tools(mcp::tools![place_v2]).expect("replaced");
    let done = second_round(&mut wire, &asked).await;
    assert_eq!(text(&done), "v2: db placed in eu-west-1");

    // Removed between rounds: the next round is a call of a tool the server no longer has.
    let asked = first_round(&mut wire).await;
    assert!(handle.remove_tool("place").expect("tables"));
    let refused = second_round(&mut wire, &asked).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(error_message(&refused), "Unknown tool: place");
}

#[tokio::test]
async fn a_cursor_from_before_a_change_is_refused_and_one_after_it_works() {
    let server = McpServer::new("paged")
        .page_size(1)
        .tools(mcp::tools![echo, clear])
        .build()
        .expect("builds");
    let handle = server.handle();
    let mut wire = Wire::open(&server, false).await;
    let first = wire.result("tools/list", json!({})).await;
    let cursor = first["nextCursor"].clone();
    assert!(cursor.is_string(), "{first}");

    handle.add_tools(mcp::tools![slow_new]).expect("added");
    let stale = wire.request("tools/list", json!({"cursor": cursor})).await;
    assert_eq!(stale["error"]["code"], -32602, "{stale}");
    assert!(error_message(&stale).contains("list again"), "{stale}");

    // Listed again from the start, every page follows the new table.
    let mut names = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let params = if cursor.is_null() {
            json!({})
        } else {
            json!({"cursor": cursor})
        };
        let page = wire.result("tools/list", params).await;
        names.extend(
            page["tools"]
                .as_array()
                .expect("tools")
                .iter()
                .map(|t| t["name"].clone()),
        );
        cursor = page["nextCursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(names, ["echo", "clear", "slow"]);
}

#[tokio::test]
async fn completions_and_subscriptions_follow_the_tables() {
    let server = board();
    let handle = server.handle();
    let mut modern = Wire::open(&server, false).await;
    let complete = json!({"ref": {"type": "ref/prompt", "name": "greeting"},
                          "argument": {"name": "name", "value": "A"}});
    assert!(
        modern
            .request("completion/complete", complete.clone())
            .await
            .get("error")
            .is_some()
    );
    handle.add_prompts(mcp::prompts![greeting]).expect("added");
    let completed = modern.result("completion/complete", complete.clone()).await;
    assert_eq!(completed["completion"]["values"], json!(["Ada", "Alan"]));
    handle.remove_prompt("greeting").expect("tables");
    let gone = modern.request("completion/complete", complete).await;
    assert_eq!(error_message(&gone), "Unknown prompt: greeting");

    let mut legacy = Wire::open(&server, true).await;
    let subscribe = json!({"uri": "board://topics/rust"});
    let refused = legacy
        .request("resources/subscribe", subscribe.clone())
        .await;
    assert!(refused.get("error").is_some(), "{refused}");
    handle.add_resources(mcp::resources![topic]).expect("added");
    legacy
        .result("resources/subscribe", subscribe.clone())
        .await;
    handle
        .remove_resource("board://topics/{topic}")
        .expect("tables");
    let refused = legacy.request("resources/subscribe", subscribe).await;
    assert!(refused.get("error").is_some(), "{refused}");
}

#[tokio::test]
async fn capabilities_follow_the_tables_with_list_changed() {
    let server = board();
    let handle = server.handle();
    let mut wire = Wire::open(&server, false).await;
    let caps = wire.capabilities().await;
    assert_eq!(caps["tools"], json!({"listChanged": true}), "{caps}");
    assert!(
        caps.get("prompts").is_none() && caps.get("resources").is_none(),
        "{caps}"
    );
    assert!(caps.get("completions").is_none(), "{caps}");

    handle.add_prompts(mcp::prompts![greeting]).expect("added");
    handle
        .add_resources(mcp::resources![messages])
        .expect("added");
    handle.remove_tool("echo").expect("tables");
    let caps = wire.capabilities().await;
    assert!(caps.get("tools").is_none(), "{caps}");
    assert_eq!(caps["prompts"], json!({"listChanged": true}), "{caps}");
    // Subscriptions too: a 2026-07-28 listen names the resources it follows.
    assert_eq!(
        caps["resources"],
        json!({"listChanged": true, "subscribe": true}),
        "{caps}"
    );
    assert_eq!(caps["completions"], json!({}), "{caps}");

    // A 2025-11-25 session is told at `initialize`, subscriptions included.
    let init = Wire::raw(&server, true)
        .result(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    assert_eq!(
        init["capabilities"]["resources"],
        json!({"listChanged": true, "subscribe": true}),
        "{init}"
    );
}

#[test]
fn a_server_of_its_own_handlers_has_no_tables_to_change() {
    let server = Server::builder(mcp::protocol::Implementation::new("raw", "1.0.0"))
        .build()
        .expect("builds");
    let handle = server.handle();
    let error = handle.add_tools(mcp::tools![clear]).expect_err("no tables");
    assert!(
        matches!(error, ChangeError::NoTables { kind: "tool" }),
        "{error:?}"
    );
    assert!(error.to_string().contains("McpServer"), "{error}");
    assert!(handle.remove_prompt("x").is_err());
    assert!(handle.add_resources(mcp::resources![messages]).is_err());
}

#[tokio::test]
async fn this_instances_listeners_hear_exactly_the_changes_that_changed_something_and_the_bus_none()
{
    let bus = LocalBus::new();
    let mut on_the_bus = bus.subscribe();
    let server = McpServer::new("board")
        .notification_bus(bus.clone())
        .tools(mcp::tools![echo])
        .prompts(mcp::prompts![greeting])
        .resources(mcp::resources![messages])
        .build()
        .expect("builds");
    let handle = server.handle();
    let mut wire = Wire::raw(&server, false);
    wire.send(
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true,
               "resourcesListChanged": true, "resourceSubscriptions": ["board://messages"]}}),
    )
    .await;
    let mut heard = Vec::new();
    let mut next_method = async || {
        let line = tokio::time::timeout(Duration::from_secs(10), wire.duplex.incoming.recv())
            .await
            .expect("a message within 10 s")
            .expect("server alive")
            .expect("a line");
        let message: Value = serde_json::from_str(&line).expect("JSON");
        message["method"].as_str().unwrap_or_default().to_owned()
    };
    assert_eq!(
        next_method().await,
        "notifications/subscriptions/acknowledged"
    );

    handle.add_tools(mcp::tools![clear]).expect("added");
    handle.add_tools(Vec::new()).expect("nothing to add");
    // Listed exactly as the tool it replaces: what runs changes, the listing does not.
    handle.add_tools(mcp::tools![echo]).expect("echo again");
    assert!(!handle.remove_tool("nonesuch").expect("tables"));
    let twice = handle.add_tools(mcp::tools![clear, clear]);
    assert!(matches!(twice, Err(ChangeError::Rejected(_))), "{twice:?}");
    assert!(handle.remove_tool("clear").expect("tables"));
    // Another description under the same name: listed differently.
    handle.add_tools(mcp::tools![echo_loud]).expect("replaced");
    handle
        .add_prompts(mcp::prompts![greeting])
        .expect("greeting again");
    assert!(!handle.remove_prompt("nonesuch").expect("tables"));
    assert!(handle.remove_prompt("greeting").expect("tables"));
    assert!(!handle.remove_resource("board://nonesuch").expect("tables"));
    assert!(handle.remove_resource("board://messages").expect("tables"));
    // Through the bus, after everything above: the last thing the listener hears.
    handle.resource_updated("board://messages");
    loop {
        let method = next_method().await;
        if method == "notifications/resources/updated" {
            break;
        }
        heard.push(method);
    }
    assert_eq!(
        heard,
        [
            "notifications/tools/list_changed",
            "notifications/tools/list_changed",
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
        ]
    );
    // The tables are this instance's: the other instances on the bus hear none of it.
    let mut published = Vec::new();
    while let Ok(change) = on_the_bus.try_recv() {
        published.push(change);
    }
    assert_eq!(
        published,
        [Change::ResourceUpdated {
            uri: "board://messages".into()
        }]
    );
}

#[test]
fn a_registration_refused_at_build_is_refused_at_run_time_too() {
    struct Missing;
    /// Needs state nobody registered.
    #[mcp::tool]
    async fn needy(_state: mcp::State<Missing>) -> String {
        String::new()
    }
    let server = board();
    let error = server
        .handle()
        .add_tools(mcp::tools![needy])
        .expect_err("refused");
    assert!(error.to_string().contains("no `"), "{error}");
    assert!(
        !server.handle().remove_tool("needy").expect("tables"),
        "nothing was applied"
    );
}

/// A tool of generation `generation`: every tool of one batch says the same one.
fn versioned(name: String, generation: usize) -> ToolEntry {
    fn answer(
        _: Context,
        _: CallToolParams,
    ) -> BoxFuture<Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async { Ok(CallToolResult::text("ok").into()) })
    }
    let mut tool = Tool::new(name, json!({"type": "object"}));
    tool.description = Some(generation.to_string());
    ToolEntry::from_tool(tool, answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listings_under_concurrent_changes_never_see_half_a_change() {
    const BATCH: usize = 20;
    let server = McpServer::new("busy")
        .tools((0..BATCH).map(|i| versioned(format!("t{i}"), 0)))
        .build()
        .expect("builds");
    let handle = server.handle();
    let writer = tokio::spawn(async move {
        for generation in 1..=300 {
            handle
                .add_tools((0..BATCH).map(|i| versioned(format!("t{i}"), generation)))
                .expect("replaced");
            tokio::task::yield_now().await;
        }
    });
    let mut readers = Vec::new();
    for _ in 0..3 {
        let server = server.clone();
        readers.push(tokio::spawn(async move {
            let mut wire = Wire::open(&server, false).await;
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..150 {
                let listing = wire.result("tools/list", json!({})).await;
                let tools = listing["tools"].as_array().expect("tools");
                assert_eq!(tools.len(), BATCH, "{listing}");
                let generations: std::collections::BTreeSet<_> =
                    tools.iter().map(|t| t["description"].to_string()).collect();
                assert_eq!(generations.len(), 1, "half a change: {generations:?}");
                seen.extend(generations);
            }
            seen.len()
        }));
    }
    writer.await.expect("writer");
    let mut generations_seen = 0;
    for reader in readers {
        generations_seen += reader.await.expect("no reader saw half a change");
    }
    // Else the readers only ever saw one state, and proved nothing.
    assert!(generations_seen > 3, "{generations_seen}");
}
