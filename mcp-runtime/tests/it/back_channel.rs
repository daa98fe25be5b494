//! Server→client requests in a 2025-11-25 session over the stdio framing: the question goes out
//! on the shared output, the answer comes back as a response line.

use mcp_runtime::protocol::{CallToolResult, Implementation, McpError, Tool};
use mcp_runtime::server::Server;
use serde_json::{Value, json};

use crate::support::{Wire, modern};

fn asking_server() -> Server {
    Server::builder(Implementation::new("asker", "1.0.0"))
        .list_tools(vec![Tool::new("ask", json!({"type": "object"}))])
        .on_call_tool(|ctx, _call| async move {
            let answer: Value = ctx.request_client("roots/list", &json!({})).await?;
            let count = answer["roots"].as_array().map_or(0, Vec::len);
            Ok::<_, McpError>(CallToolResult::text(format!("{count} roots")))
        })
        .build()
        .expect("the server builds")
}

async fn open_session(wire: &mut Wire) {
    let reply = wire
        .call(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
                   "clientInfo": {"name": "c", "version": "1"}}),
        )
        .await;
    assert!(reply.get("result").is_some(), "{reply}");
    wire.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
}

#[tokio::test]
async fn a_handler_asks_and_gets_the_clients_answer() {
    let mut wire = Wire::with_server(asking_server());
    open_session(&mut wire).await;
    wire.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask"}}),
    )
    .await;
    let question = wire.recv().await;
    assert_eq!(question["method"], "roots/list", "{question}");
    wire.send(json!({"jsonrpc": "2.0", "id": question["id"],
        "result": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}}))
        .await;
    let reply = wire.recv().await;
    assert_eq!(reply["id"], 2);
    assert_eq!(reply["result"]["content"][0]["text"], "2 roots");
}

#[tokio::test]
async fn an_error_answer_fails_the_handler_with_it() {
    let mut wire = Wire::with_server(asking_server());
    open_session(&mut wire).await;
    wire.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask"}}),
    )
    .await;
    let question = wire.recv().await;
    wire.send(json!({"jsonrpc": "2.0", "id": question["id"],
        "error": {"code": -32601, "message": "no roots here"}}))
        .await;
    let reply = wire.recv().await;
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
}

#[tokio::test]
async fn the_2026_wire_never_sends_requests() {
    let mut wire = Wire::with_server(asking_server());
    let reply = wire
        .call(
            1,
            "tools/call",
            json!({"name": "ask", "_meta": modern(json!({"roots": {}}))}),
        )
        .await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
}

#[tokio::test]
async fn a_peer_that_hangs_up_mid_question_does_not_hold_the_server() {
    let server = asking_server();
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (their_read, their_write) = tokio::io::split(theirs);
    let duplex =
        mcp_runtime::transport::stdio::duplex(their_read, their_write, server.max_message_size());
    let serving = tokio::spawn(async move { server.serve(duplex).await });
    let (read, mut write) = tokio::io::split(ours);
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let mut lines = tokio::io::BufReader::new(read).lines();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask"}}),
    ] {
        write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .expect("write");
    }
    // The initialize answer, then the question.
    for _ in 0..2 {
        lines.next_line().await.expect("read").expect("a line");
    }
    drop(write);
    drop(lines);
    tokio::time::timeout(std::time::Duration::from_secs(5), serving)
        .await
        .expect("the server stops once the peer is gone")
        .expect("join");
}
