//! A call's own progress: `call_tool_with_progress` puts a `progressToken` on the call, and the
//! reports for it reach that call's receiver, in order, on both wires, in memory and over HTTP.

use mcp::client::{Client, Progress, ProgressReceiver};
use mcp::protocol::Implementation;
use mcp::{Context, McpServer};
use serde_json::json;

/// Counts to three, reporting each step.
#[mcp::tool]
async fn count(ctx: Context) -> &'static str {
    for step in 1..=3 {
        ctx.progress(f64::from(step), Some(3.0), Some(format!("step {step}")))
            .await;
    }
    "counted"
}

fn server() -> McpServer {
    McpServer::new("progress-test").tools(mcp::tools![count])
}

fn builder() -> mcp::client::ClientBuilder {
    Client::builder(Implementation::new("progress-client", "1"))
}

async fn drain(mut progress: ProgressReceiver) -> Vec<Progress> {
    let mut seen = Vec::new();
    while let Some(report) = progress.next().await {
        seen.push(report);
    }
    seen
}

/// Calls `count` with progress and checks the three reports, in order, and that they do not
/// also reach the general notifications.
async fn counts_to_three(client: &Client) {
    let mut notifications = client.notifications().expect("the receiver");
    let (progress, call) = client.call_tool_with_progress("count", Some(json!({})));
    let (result, seen) = tokio::join!(call, drain(progress));
    let result = result.expect("the call completes");
    assert_eq!(result.content[0].as_text(), Some("counted"));
    let expected: Vec<Progress> = (1..=3)
        .map(|step| Progress {
            progress: f64::from(step),
            total: Some(3.0),
            message: Some(format!("step {step}")),
        })
        .collect();
    assert_eq!(seen, expected);
    assert!(
        notifications.try_recv().is_err(),
        "a call's progress goes to the call only"
    );
}

#[tokio::test]
async fn progress_reaches_the_call_in_memory_2026() {
    let server = server().build().expect("valid server");
    let client = builder().connect(server.serve_in_memory());
    counts_to_three(&client).await;
}

#[tokio::test]
async fn progress_reaches_the_call_in_memory_2025() {
    let server = server().build().expect("valid server");
    let client = builder().connect(server.serve_in_memory());
    client.initialize().await.expect("a session");
    counts_to_three(&client).await;
}

#[tokio::test]
async fn a_call_without_progress_asks_for_none() {
    let server = server().build().expect("valid server");
    let client = builder().connect(server.serve_in_memory());
    let mut notifications = client.notifications().expect("the receiver");
    client.call_tool("count", None).await.expect("completes");
    assert!(notifications.try_recv().is_err(), "no token, no progress");
}

#[cfg(feature = "http")]
mod http {
    use mcp::transport::http_client;

    use super::{builder, counts_to_three, server};

    async fn start() -> (String, tokio_util::sync::DropGuard) {
        crate::support::http::serve(server().build().expect("valid server")).await
    }

    #[tokio::test]
    async fn progress_reaches_the_call_over_http_2026() {
        let (url, _stop) = start().await;
        let client = builder().connect(http_client::connect(&url).expect("a URL"));
        counts_to_three(&client).await;
    }

    #[tokio::test]
    async fn progress_reaches_the_call_over_http_2025() {
        let (url, _stop) = start().await;
        let client = builder().connect(http_client::connect(&url).expect("a URL"));
        client.initialize().await.expect("a session");
        counts_to_three(&client).await;
    }
}
