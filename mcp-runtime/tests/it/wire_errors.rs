//! Bad input over the stdio framing: each gets the exact JSON-RPC error (or is dropped where
//! the spec says so), and the server keeps serving the next message.

use serde_json::json;

use crate::support::{Wire, modern};

#[tokio::test]
async fn malformed_json_is_a_parse_error_with_a_null_id() {
    let mut wire = Wire::start(1024 * 1024);
    wire.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":")
        .await;
    let reply = wire.recv().await;
    assert_eq!(reply["error"]["code"], -32700);
    assert_eq!(reply["id"], json!(null));
    wire.assert_still_serving().await;
}

#[tokio::test]
async fn invalid_utf8_is_a_parse_error() {
    let mut wire = Wire::start(1024 * 1024);
    wire.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}\n")
        .await;
    assert_eq!(wire.recv().await["error"]["code"], -32700);
    wire.assert_still_serving().await;
}

#[tokio::test]
async fn non_object_params_are_invalid_params() {
    let mut wire = Wire::start(1024 * 1024);
    for params in [json!([1, 2]), json!("text"), json!(3)] {
        wire.send(json!({"jsonrpc":"2.0","id":4,"method":"tools/list","params":params}))
            .await;
        let reply = wire.recv().await;
        assert_eq!(reply["error"]["code"], -32602, "{params}");
        assert_eq!(reply["id"], 4);
    }
    wire.assert_still_serving().await;
}

#[tokio::test]
async fn wrong_field_types_are_invalid_params_naming_the_problem() {
    let mut wire = Wire::start(1024 * 1024);
    wire.send(json!({"jsonrpc":"2.0","id":5,"method":"tools/call",
        "params":{"_meta":modern(json!({})),"name":5}}))
        .await;
    let reply = wire.recv().await;
    assert_eq!(reply["error"]["code"], -32602);
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("invalid type"), "{message}");
    wire.send(json!({"jsonrpc":"2.0","id":6,"method":"tools/list",
        "params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                           "io.modelcontextprotocol/clientCapabilities":"all"}}}))
        .await;
    assert_eq!(wire.recv().await["error"]["code"], -32602);
    wire.assert_still_serving().await;
}

#[tokio::test]
async fn unknown_methods_are_method_not_found() {
    let mut wire = Wire::start(1024 * 1024);
    wire.send(json!({"jsonrpc":"2.0","id":"x","method":"tools/frobnicate",
        "params":{"_meta":modern(json!({}))}}))
        .await;
    let reply = wire.recv().await;
    assert_eq!(reply["error"]["code"], -32601);
    assert_eq!(reply["id"], "x");
    wire.assert_still_serving().await;
}

#[tokio::test]
async fn a_line_over_the_limit_is_rejected_and_skipped() {
    let mut wire = Wire::start(1024);
    let big = "a".repeat(4096);
    wire.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
        "params":{"_meta":modern(json!({})),"name":"echo","arguments":{"text":big}}}))
        .await;
    let reply = wire.recv().await;
    assert_eq!(reply["error"]["code"], -32600);
    assert_eq!(reply["id"], json!(null));
    wire.assert_still_serving().await;
}

#[tokio::test]
async fn the_default_limit_is_four_mebibytes() {
    assert_eq!(
        mcp_runtime::server::DEFAULT_MAX_MESSAGE_SIZE,
        4 * 1024 * 1024
    );
    let mut wire = Wire::start(mcp_runtime::server::DEFAULT_MAX_MESSAGE_SIZE);
    let big = "a".repeat(5 * 1024 * 1024);
    wire.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
        "params":{"_meta":modern(json!({})),"name":"echo","arguments":{"text":big}}}))
        .await;
    assert_eq!(wire.recv().await["error"]["code"], -32600);
    wire.assert_still_serving().await;
}

#[tokio::test]
async fn a_notification_with_an_id_is_an_invalid_request() {
    let mut wire = Wire::start(1024 * 1024);
    wire.send(
        json!({"jsonrpc":"2.0","id":7,"method":"notifications/cancelled",
        "params":{"requestId":1}}),
    )
    .await;
    let reply = wire.recv().await;
    assert_eq!(reply["error"]["code"], -32600);
    assert_eq!(reply["id"], 7);
    wire.assert_still_serving().await;
}

#[tokio::test]
async fn a_response_where_a_request_belongs_is_dropped() {
    let mut wire = Wire::start(1024 * 1024);
    wire.send(json!({"jsonrpc":"2.0","id":9,"result":{}})).await;
    wire.send(json!({"jsonrpc":"2.0","id":10,"error":{"code":-1,"message":"x"}}))
        .await;
    wire.send(json!({"jsonrpc":"2.0","id":11,"result":{},"error":{"code":-1,"message":"x"}}))
        .await;
    // The next line out must answer the next request: nothing was sent for the responses.
    wire.assert_still_serving().await;
}

#[tokio::test]
async fn envelopes_that_are_not_json_rpc_are_invalid_requests() {
    let mut wire = Wire::start(1024 * 1024);
    let cases = [
        json!([{"jsonrpc":"2.0","id":1,"method":"tools/list"}]),
        json!({"id":1,"method":"tools/list"}),
        json!({"jsonrpc":"1.0","id":1,"method":"tools/list"}),
        json!({"jsonrpc":"2.0","id":null,"method":"tools/list"}),
        json!({"jsonrpc":"2.0","id":1.5,"method":"tools/list"}),
        json!({"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}),
        json!({"jsonrpc":"2.0"}),
        json!(42),
        json!("tools/list"),
    ];
    for case in cases {
        wire.send(case.clone()).await;
        let reply = wire.recv().await;
        assert_eq!(reply["error"]["code"], -32600, "{case}");
    }
    wire.assert_still_serving().await;
}

#[tokio::test]
async fn a_duplicate_in_flight_id_is_rejected() {
    let mut wire = Wire::start(1024 * 1024);
    let slow = json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
        "params":{"_meta":modern(json!({})),"name":"wait"}});
    wire.send(slow.clone()).await;
    wire.send(slow).await;
    let reply = wire.recv().await;
    assert_eq!(reply["error"]["code"], -32600);
    assert_eq!(reply["id"], 1);
}

#[tokio::test]
async fn blank_lines_are_ignored() {
    let mut wire = Wire::start(1024 * 1024);
    wire.send_raw(b"\n\r\n   \n").await;
    wire.assert_still_serving().await;
}

#[tokio::test]
async fn a_panicking_handler_answers_internal_error_and_the_server_keeps_serving() {
    use mcp_runtime::protocol::{CallToolResult, Implementation};
    use mcp_runtime::server::Server;

    let server = Server::builder(Implementation::new("fragile", "1.0.0"))
        .on_call_tool(|_ctx, call| {
            // One panic before the future exists, one while it is polled.
            assert_ne!(call.name, "sync_panic", "boom before the future");
            async move {
                tokio::task::yield_now().await;
                assert_ne!(call.name, "async_panic", "boom while polled");
                Ok(CallToolResult::text("fine"))
            }
        })
        .build()
        .expect("the server builds");
    let mut wire = Wire::with_server(server);
    for (id, name) in [(1, "sync_panic"), (2, "async_panic")] {
        let params = json!({"name": name, "_meta": modern(json!({}))});
        let reply = wire.call(id, "tools/call", params).await;
        assert_eq!(
            reply,
            json!({"jsonrpc":"2.0","id":id,"error":{"code":-32603,"message":"Internal error"}})
        );
    }
    let params = json!({"name": "ok", "_meta": modern(json!({}))});
    let reply = wire.call(3, "tools/call", params).await;
    assert_eq!(reply["result"]["content"][0]["text"], "fine", "{reply}");
    wire.assert_still_serving().await;
}
