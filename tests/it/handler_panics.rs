//! A handler that panics answers its own request with -32603, and the server keeps serving.

use mcp::client::ClientError;
use mcp::protocol::{CallToolResult, Implementation, Outcome, Tool};
use mcp::server::Server;
use serde_json::json;

use crate::support;

fn server() -> Server {
    let tool = |name: &str| Tool::new(name, json!({"type":"object"}));
    Server::builder(Implementation::new("fragile", "1.0.0"))
        .list_tools(vec![tool("fine"), tool("early"), tool("late")])
        .on_call_tool(|_, call| {
            // Before the future exists, and in one of its later polls.
            assert_ne!(call.name, "early", "panics while making the future");
            async move {
                tokio::task::yield_now().await;
                assert_ne!(call.name, "late", "panics after a yield");
                Ok(Outcome::Complete(CallToolResult::text("fine")))
            }
        })
        .build()
        .expect("the server builds")
}

#[tokio::test]
async fn a_panic_in_a_handler_is_an_internal_error_and_the_server_keeps_serving() {
    let client = support::connect_in_memory(server());
    for name in ["early", "late", "early", "late"] {
        match client.call_tool_once(name, None, None, None).await {
            Err(ClientError::Rpc(e)) => {
                assert_eq!(e.code, -32603, "{name}");
                // The panic message stays in the server's log.
                assert!(!e.message.contains("panics"), "{name}: {}", e.message);
            }
            other => panic!("{name}: expected -32603, got {other:?}"),
        }
        let fine = client
            .call_tool_once("fine", None, None, None)
            .await
            .expect("the server still serves");
        match fine {
            Outcome::Complete(result) => assert_eq!(result.is_error, None),
            Outcome::InputRequired(ask) => panic!("unexpected ask: {ask:?}"),
        }
    }
}
