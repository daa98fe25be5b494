//! What a proxy relays besides answers: the remote's log messages during a call (to that
//! call's caller, at the level it asked for), the remote's listing as it changes (re-read,
//! and announced to the proxy's own listeners), and a 2025-11-25 remote's requests in the
//! middle of a call (to that call's caller).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp::client::{Client, Heard};
use mcp::protocol::{
    ElicitParams, ElicitResult, Implementation, LoggingLevel, LoggingMessageParams, McpError,
    SubscriptionFilter,
};
use mcp::push::Change;
use mcp::server::Server;
use mcp::{Context, McpServer};
use serde_json::{Value, json};

use crate::support::connect_in_memory;
use crate::support::http::serve;

/// Logs at three levels.
#[mcp::tool]
async fn chatty(ctx: Context) -> &'static str {
    for (level, word) in [
        (LoggingLevel::Debug, "debug"),
        (LoggingLevel::Info, "info"),
        (LoggingLevel::Warning, "warning"),
    ] {
        ctx.log(level, Some("remote"), json!(word)).await;
    }
    "chatted"
}

/// Asks its 2025-11-25 client for a colour, over the session's back-channel.
#[mcp::tool]
async fn colour(ctx: Context) -> Result<String, McpError> {
    let schema = json!({"type": "object", "properties": {"colour": {"type": "string"}}});
    let answer: ElicitResult = ctx
        .request_client(
            "elicitation/create",
            &ElicitParams::form("Which colour?", schema),
        )
        .await?;
    let content = answer.content.map(Value::Object).unwrap_or(Value::Null);
    Ok(format!("picked {}", content["colour"]))
}

/// Says hello.
#[mcp::tool]
async fn hello() -> &'static str {
    "hello"
}

/// Says goodbye; added to the remote while the proxy runs.
#[mcp::tool]
async fn goodbye() -> &'static str {
    "goodbye"
}

fn remote() -> Server {
    McpServer::new("remote")
        .tools(mcp::tools![chatty, colour, hello])
        .build()
        .expect("builds")
}

/// A client of `server` over memory that can answer elicitation, 2026-07-28 until
/// initialized.
fn proxy_client(server: &Server) -> Client {
    let capabilities =
        serde_json::from_value(json!({"elicitation": {"form": {}}})).expect("capabilities");
    Client::builder(Implementation::new("proxy", "1.0.0"))
        .capabilities(capabilities)
        .accept_tasks(false)
        .connect(server.serve_in_memory())
}

async fn proxy_of(client: Client) -> Server {
    mcp::proxy::proxy("proxy", client)
        .await
        .expect("the proxy reads the remote's listing")
        .build()
        .expect("builds")
}

/// The log messages a 2026-07-28 call of `chatty` through `caller` hears, asked at `level`.
async fn heard_logs(caller: &Client, level: Option<&str>) -> Vec<String> {
    let mut params = json!({"name": "chatty", "arguments": {}});
    if let Some(level) = level {
        params["_meta"] = json!({"io.modelcontextprotocol/logLevel": level});
    }
    let (mut hearing, call) = caller.request_hearing::<Value>("tools/call", params);
    let (result, heard) = tokio::join!(call, async {
        let mut heard = Vec::new();
        while let Some(message) = hearing.next().await {
            let Heard::Notification(note) = message else {
                panic!("the proxy asks its caller nothing here");
            };
            assert_eq!(note.method, "notifications/message");
            let params = note.params.expect("params");
            let message: LoggingMessageParams =
                serde_json::from_str(params.get()).expect("a log message");
            assert_eq!(message.logger.as_deref(), Some("remote"));
            heard.push(message.data.as_str().expect("text").to_owned());
        }
        heard
    });
    assert_eq!(
        result.expect("the call ends")["content"][0]["text"],
        "chatted"
    );
    heard
}

#[tokio::test]
async fn the_remotes_log_messages_reach_the_caller_at_the_level_it_asked() {
    for legacy_remote in [false, true] {
        let upstream = proxy_client(&remote());
        if legacy_remote {
            upstream.initialize().await.expect("a 2025-11-25 session");
        }
        let caller = connect_in_memory(proxy_of(upstream).await);
        assert_eq!(
            heard_logs(&caller, Some("info")).await,
            ["info", "warning"],
            "legacy remote: {legacy_remote}"
        );
        assert_eq!(
            heard_logs(&caller, Some("debug")).await,
            ["debug", "info", "warning"]
        );
        assert!(
            heard_logs(&caller, None).await.is_empty(),
            "a caller that asked for no log messages gets none"
        );
    }
}

#[tokio::test]
async fn a_2025_remotes_question_reaches_the_2025_caller_of_that_call() {
    let upstream = proxy_client(&remote());
    upstream.initialize().await.expect("a 2025-11-25 session");
    let proxy = proxy_of(upstream).await;

    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    let caller = Client::builder(Implementation::new("caller", "1.0.0"))
        .on_elicit(move |params: ElicitParams| {
            count.fetch_add(1, Ordering::SeqCst);
            async move {
                assert_eq!(params.message(), "Which colour?");
                let content = json!({"colour": "teal"});
                Ok(ElicitResult::accept(
                    content.as_object().cloned().unwrap_or_default(),
                ))
            }
        })
        .connect(proxy.serve_in_memory());
    caller.initialize().await.expect("a 2025-11-25 session");
    let result = caller
        .call_tool("colour", None)
        .await
        .expect("the call ends");
    assert_eq!(result.content[0].as_text(), Some("picked \"teal\""));
    assert_eq!(
        asked.load(Ordering::SeqCst),
        1,
        "asked once, of this caller"
    );

    // A 2026-07-28 caller cannot be asked in the middle of its call: the remote's question
    // gets an error that says so, and the remote's tool fails with it.
    let modern = connect_in_memory(proxy);
    let refused = modern.call_tool("colour", None).await;
    let message = match refused {
        Err(mcp::client::ClientError::Rpc(error)) => error.message.into_owned(),
        Ok(result) => format!("{:?}", result.content),
        Err(other) => panic!("{other}"),
    };
    assert!(message.contains("2026-07-28"), "{message}");
}

/// A remote whose `tools/list` answers are counted.
fn counted_remote(lists: Arc<AtomicUsize>) -> Server {
    let audit =
        tower::ServiceBuilder::new().map_request(move |request: mcp::server::McpRequest| {
            if request.method() == "tools/list" {
                lists.fetch_add(1, Ordering::SeqCst);
            }
            request
        });
    McpServer::new("remote")
        .tools(mcp::tools![hello])
        .layer(audit)
        .build()
        .expect("builds")
}

#[tokio::test]
async fn the_proxy_follows_the_remotes_listing_and_tells_its_listeners() {
    for legacy_remote in [false, true] {
        let lists = Arc::new(AtomicUsize::new(0));
        let remote = counted_remote(lists.clone());
        let upstream = proxy_client(&remote);
        if legacy_remote {
            upstream.initialize().await.expect("a 2025-11-25 session");
        }
        let caller = connect_in_memory(proxy_of(upstream).await);
        let mut changes = caller
            .listen(SubscriptionFilter::new().tools_changed())
            .await
            .expect("listens");
        // The proxy listens before it reads, so the change below is heard.
        assert_eq!(lists.load(Ordering::SeqCst), 1, "read once, at start");

        remote
            .handle()
            .add_tools(mcp::tools![goodbye])
            .expect("adds");
        let heard = tokio::time::timeout(Duration::from_secs(10), changes.next()).await;
        assert_eq!(
            heard.expect("heard in time"),
            Some(Ok(Change::ToolsListChanged)),
            "legacy remote: {legacy_remote}"
        );
        let said = caller
            .call_tool("goodbye", None)
            .await
            .expect("the new tool is served");
        assert_eq!(said.content[0].as_text(), Some("goodbye"));

        // A storm of announcements costs a few listings, not one each, and tells the
        // proxy's listeners nothing: the listing did not change.
        let before = lists.load(Ordering::SeqCst);
        for _ in 0..200 {
            remote.handle().notify(Change::ToolsListChanged);
            // Each one is heard before the next is made: no queue on the way merges them.
            for _ in 0..20 {
                tokio::task::yield_now().await;
            }
        }
        remote
            .handle()
            .add_tools(mcp::tools![chatty])
            .expect("adds");
        let heard = tokio::time::timeout(Duration::from_secs(10), changes.next()).await;
        assert_eq!(
            heard.expect("heard in time"),
            Some(Ok(Change::ToolsListChanged))
        );
        let reads = lists.load(Ordering::SeqCst) - before;
        assert!(
            (1..=10).contains(&reads),
            "{reads} listings for 201 announcements"
        );
    }
}

/// Where two calls of `overlap` meet, so that both are in flight while each logs.
struct Meeting(tokio::sync::Barrier);

/// Logs `word` while another call of it is in flight.
#[mcp::tool]
async fn overlap(ctx: Context, word: String, meeting: mcp::State<Meeting>) -> String {
    meeting.0.wait().await;
    ctx.log(LoggingLevel::Info, Some("remote"), json!(word))
        .await;
    meeting.0.wait().await;
    word
}

/// The log messages one call of `overlap` hears.
async fn overlap_logs(caller: &Client, word: &str) -> Vec<String> {
    let params = json!({
        "name": "overlap",
        "arguments": {"word": word},
        "_meta": {"io.modelcontextprotocol/logLevel": "info"}
    });
    let (mut hearing, call) = caller.request_hearing::<Value>("tools/call", params);
    let (result, heard) = tokio::join!(call, async {
        let mut heard = Vec::new();
        while let Some(Heard::Notification(note)) = hearing.next().await {
            let params = note.params.expect("params");
            let message: LoggingMessageParams =
                serde_json::from_str(params.get()).expect("a log message");
            heard.push(message.data.as_str().expect("text").to_owned());
        }
        heard
    });
    assert_eq!(result.expect("the call ends")["content"][0]["text"], word);
    heard
}

fn overlapping() -> Server {
    McpServer::new("remote")
        .tools(mcp::tools![overlap])
        .state(Meeting(tokio::sync::Barrier::new(2)))
        .build()
        .expect("builds")
}

/// What two callers of the proxy hear when their calls of `overlap` meet at the remote.
async fn heard_by_two(upstream: Client) -> (Vec<String>, Vec<String>) {
    let proxy = proxy_of(upstream).await;
    let (ada, bob) = (
        connect_in_memory(proxy.clone()),
        connect_in_memory(proxy.clone()),
    );
    // Bounded so that a call whose answer is lost fails the test rather than hanging it.
    let both = async { tokio::join!(overlap_logs(&ada, "ada"), overlap_logs(&bob, "bob")) };
    tokio::time::timeout(Duration::from_secs(60), both)
        .await
        .expect("both calls end")
}

#[tokio::test]
async fn over_http_concurrent_callers_each_hear_their_own_calls_log() {
    let (url, _stop) = serve(overlapping()).await;
    let upstream = Client::builder(Implementation::new("proxy", "1.0.0"))
        .accept_tasks(false)
        .connect(mcp::transport::http_client::connect(&url).expect("connects"));
    let (heard_by_ada, heard_by_bob) = heard_by_two(upstream).await;
    assert_eq!(heard_by_ada, ["ada"]);
    assert_eq!(heard_by_bob, ["bob"]);
}

#[tokio::test]
async fn without_a_stream_per_request_concurrent_callers_hear_no_one_elses_log() {
    // In memory nothing says which call a log message is about: with two in flight, neither
    // caller is given one.
    let upstream = Client::builder(Implementation::new("proxy", "1.0.0"))
        .accept_tasks(false)
        .connect(overlapping().serve_in_memory());
    let (heard_by_ada, heard_by_bob) = heard_by_two(upstream).await;
    assert!(heard_by_ada.is_empty(), "{heard_by_ada:?}");
    assert!(heard_by_bob.is_empty(), "{heard_by_bob:?}");
}

#[tokio::test]
async fn a_dropped_proxy_stops_following_its_remote() {
    let remote = remote();
    let proxy = proxy_of(proxy_client(&remote)).await;
    // The proxy's follower listens on the remote.
    assert_eq!(remote.push_stats().listeners, 1);
    drop(proxy);
    // Its listen ends with it, not at the remote's next change (none comes here).
    let mut waited = Duration::ZERO;
    while remote.push_stats().listeners > 0 {
        assert!(
            waited < Duration::from_secs(10),
            "the remote still has a listener 10 s after the proxy was dropped"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += Duration::from_millis(20);
    }
}
