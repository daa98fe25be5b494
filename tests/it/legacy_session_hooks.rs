//! 2025-11-25 session fidelity: `ctx.log` sends at the server's default level before the
//! client's `logging/setLevel` (and never on the 2026-07-28 wire without a `logLevel`), and a
//! hook runs when the client says its roots changed, able to ask for the new roots.

use std::time::Duration;

use mcp::client::{Client, ClientBuilder};
use mcp::protocol::{Implementation, ListRootsResult, LoggingLevel, Root};
use mcp::{Context, McpServer};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Logs once at debug and once at info.
#[mcp::tool]
async fn chatty(ctx: Context) -> &'static str {
    ctx.log(LoggingLevel::Debug, None, "details").await;
    ctx.log(LoggingLevel::Info, None, "news").await;
    "said"
}

fn builder() -> ClientBuilder {
    Client::builder(Implementation::new("session-client", "1"))
}

/// The log messages (their `data`) that arrived during one call of `chatty`.
async fn logged_by_a_call(client: &Client) -> Vec<Value> {
    let mut notifications = client.notifications().expect("the receiver");
    client.call_tool("chatty", None).await.expect("completes");
    let mut logged = Vec::new();
    while let Ok(n) = notifications.try_recv() {
        if n.method == "notifications/message" {
            let params: Value = serde_json::from_str(n.params.as_deref().map_or("{}", |p| p.get()))
                .expect("JSON params");
            logged.push(params["data"].clone());
        }
    }
    logged
}

#[tokio::test]
async fn a_session_logs_at_info_before_set_level() {
    let server = McpServer::new("logs")
        .tools(mcp::tools![chatty])
        .build()
        .expect("valid");
    let client = builder().connect(server.serve_in_memory());
    client.initialize().await.expect("a session");
    assert_eq!(logged_by_a_call(&client).await, [json!("news")]);
}

#[tokio::test]
async fn the_default_level_is_settable_and_set_level_overrides_it() {
    let server = McpServer::new("logs")
        .tools(mcp::tools![chatty])
        .default_log_level(Some(LoggingLevel::Debug))
        .build()
        .expect("valid");
    let client = builder().connect(server.serve_in_memory());
    client.initialize().await.expect("a session");
    let mut notifications = client.notifications().expect("the receiver");
    client.call_tool("chatty", None).await.expect("completes");
    let mut count = 0;
    while notifications.try_recv().is_ok() {
        count += 1;
    }
    assert_eq!(count, 2, "debug and info both go out at a debug default");
    let _: Value = client
        .request("logging/setLevel", json!({"level": "error"}))
        .await
        .expect("set");
    client.call_tool("chatty", None).await.expect("completes");
    assert!(notifications.try_recv().is_err(), "the client's level wins");
}

#[tokio::test]
async fn no_default_level_means_silence_until_set_level() {
    let server = McpServer::new("logs")
        .tools(mcp::tools![chatty])
        .default_log_level(None)
        .build()
        .expect("valid");
    let client = builder().connect(server.serve_in_memory());
    client.initialize().await.expect("a session");
    assert_eq!(logged_by_a_call(&client).await, Vec::<Value>::new());
}

#[tokio::test]
async fn without_the_logging_capability_nothing_is_logged() {
    let server = McpServer::new("logs")
        .tools(mcp::tools![chatty])
        .logging(false)
        .build()
        .expect("valid");
    let client = builder().connect(server.serve_in_memory());
    client.initialize().await.expect("a session");
    assert_eq!(logged_by_a_call(&client).await, Vec::<Value>::new());
}

#[tokio::test]
async fn a_2026_request_without_a_log_level_gets_no_log() {
    let server = McpServer::new("logs")
        .tools(mcp::tools![chatty])
        .build()
        .expect("valid");
    let client = builder().connect(server.serve_in_memory());
    assert_eq!(logged_by_a_call(&client).await, Vec::<Value>::new());
}

/// A server whose roots hook asks for the new roots and reports them.
fn roots_server() -> (McpServer, mpsc::UnboundedReceiver<Vec<String>>) {
    let (seen_tx, seen) = mpsc::unbounded_channel();
    let server = McpServer::new("roots").on_roots_list_changed(move |ctx| {
        let seen = seen_tx.clone();
        async move {
            let roots: Result<ListRootsResult, _> =
                ctx.request_client("roots/list", &json!({})).await;
            let uris = match roots {
                Ok(roots) => roots.roots.into_iter().map(|r| r.uri).collect(),
                Err(error) => vec![format!("error: {}", error.message)],
            };
            let _ = seen.send(uris);
        }
    });
    (server, seen)
}

fn with_roots() -> ClientBuilder {
    builder().on_list_roots(|| async {
        Ok(ListRootsResult {
            roots: vec![Root {
                uri: "file:///work".into(),
                name: None,
                meta: None,
            }],
        })
    })
}

const PATIENCE: Duration = Duration::from_secs(10);

#[tokio::test]
async fn the_roots_hook_runs_in_a_session_and_can_ask_for_the_roots() {
    let (server, mut seen) = roots_server();
    let client = with_roots().connect(server.build().expect("valid").serve_in_memory());
    client.initialize().await.expect("a session");
    client
        .notify("notifications/roots/list_changed", &json!({}))
        .await
        .expect("sent");
    let uris = tokio::time::timeout(PATIENCE, seen.recv())
        .await
        .expect("the hook ran")
        .expect("a report");
    assert_eq!(uris, ["file:///work"]);
}

#[tokio::test]
async fn the_roots_hook_ignores_the_2026_wire() {
    let (server, mut seen) = roots_server();
    let client = with_roots().connect(server.build().expect("valid").serve_in_memory());
    client
        .notify("notifications/roots/list_changed", &json!({}))
        .await
        .expect("sent");
    // A request after the notification is answered after it was read.
    client.discover().await.expect("discover");
    assert!(seen.try_recv().is_err(), "no session, no hook");
}

#[cfg(feature = "http")]
#[tokio::test]
async fn the_roots_hook_asks_over_the_sessions_get_stream() {
    use mcp::transport::http_client;

    let (server, mut seen) = roots_server();
    let (url, _stop) = crate::support::http::serve(server.build().expect("valid")).await;
    let client = with_roots().connect(http_client::connect(&url).expect("a URL"));
    client.initialize().await.expect("a session");
    // The client opens its GET stream right after initialize; a message for a session
    // without one is dropped, so the notification is repeated until the hook is heard from.
    let uris = tokio::time::timeout(PATIENCE, async {
        loop {
            client
                .notify("notifications/roots/list_changed", &json!({}))
                .await
                .expect("sent");
            if let Ok(Some(uris)) =
                tokio::time::timeout(Duration::from_millis(300), seen.recv()).await
            {
                break uris;
            }
        }
    })
    .await
    .expect("the hook ran and the client answered");
    assert_eq!(uris, ["file:///work"]);
}

#[tokio::test]
async fn a_client_repeating_itself_gets_one_more_run_not_one_per_notification() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    // A hook that holds its run until told to finish: notifications meanwhile must not start
    // runs of their own (each could wait on the client for the whole session).
    let runs = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(tokio::sync::Semaphore::new(0));
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let server = McpServer::new("roots").on_roots_list_changed({
        let (runs, release) = (runs.clone(), release.clone());
        move |_ctx| {
            let (runs, release, started) = (runs.clone(), release.clone(), started_tx.clone());
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                let _ = started.send(());
                if let Ok(permit) = release.acquire().await {
                    permit.forget();
                }
            }
        }
    });
    let client = builder().connect(server.build().expect("valid").serve_in_memory());
    client.initialize().await.expect("a session");
    for _ in 0..1000 {
        client
            .notify("notifications/roots/list_changed", &json!({}))
            .await
            .expect("sent");
    }
    client.ping().await.expect("every notification was read");
    tokio::time::timeout(PATIENCE, started.recv())
        .await
        .expect("the first run started");
    assert_eq!(runs.load(Ordering::SeqCst), 1, "one run at a time");
    release.add_permits(1);
    tokio::time::timeout(PATIENCE, started.recv())
        .await
        .expect("one run more for the 999 that came during the first");
    release.add_permits(1);
    client.ping().await.expect("still serving");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(runs.load(Ordering::SeqCst), 2, "and no more");
}
