//! The generation gate and the server features, over the stdio framing: 2026-07-28 requests
//! and a 2025-11-25 session served by the same server.

use serde_json::json;

use crate::support::{Wire, modern};

fn initialize_params() -> serde_json::Value {
    json!({"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},
           "clientInfo":{"name":"old-client","version":"0.9"}})
}

#[tokio::test]
async fn a_request_without_meta_and_without_a_session_is_invalid_params() {
    let mut wire = Wire::start(1 << 20);
    let reply = wire.call(1, "tools/list", json!({})).await;
    assert_eq!(reply["error"]["code"], -32602);
    let reply = wire
        .call(2, "tools/list", json!({"_meta":{"progressToken":1}}))
        .await;
    assert_eq!(reply["error"]["code"], -32602);
}

#[tokio::test]
async fn missing_client_capabilities_is_invalid_params() {
    let mut wire = Wire::start(1 << 20);
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28"});
    let reply = wire.call(1, "tools/list", json!({"_meta":meta})).await;
    assert_eq!(reply["error"]["code"], -32602);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("clientCapabilities")
    );
}

#[tokio::test]
async fn an_unsupported_version_is_refused_with_the_supported_list() {
    let mut wire = Wire::start(1 << 20);
    for version in ["2099-01-01", "2025-11-25", ""] {
        let meta = json!({"io.modelcontextprotocol/protocolVersion":version,
                          "io.modelcontextprotocol/clientCapabilities":{}});
        let reply = wire.call(1, "tools/list", json!({"_meta":meta})).await;
        assert_eq!(reply["error"]["code"], -32022);
        assert_eq!(
            reply["error"]["data"],
            json!({"supported":["2026-07-28"],"requested":version})
        );
    }
}

#[tokio::test]
async fn methods_removed_in_2026_are_method_not_found() {
    let mut wire = Wire::start(1 << 20);
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
    ] {
        let reply = wire
            .call(1, method, json!({"_meta":modern(json!({}))}))
            .await;
        assert_eq!(reply["error"]["code"], -32601, "{method}");
    }
}

#[tokio::test]
async fn an_invalid_log_level_is_invalid_params() {
    let mut wire = Wire::start(1 << 20);
    let mut meta = modern(json!({}));
    meta["io.modelcontextprotocol/logLevel"] = json!("chatty");
    let reply = wire.call(1, "tools/list", json!({"_meta":meta})).await;
    assert_eq!(reply["error"]["code"], -32602);
}

#[tokio::test]
async fn discover_describes_the_server_with_cache_hints() {
    let mut wire = Wire::start(1 << 20);
    let reply = wire
        .call(1, "server/discover", json!({"_meta":modern(json!({}))}))
        .await;
    let result = &reply["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(
        result["capabilities"]["tools"],
        json!({"listChanged": true})
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "test-server"
    );
    assert_eq!(result["ttlMs"], 0);
    assert_eq!(result["cacheScope"], "private");
}

#[tokio::test]
async fn tools_list_pages_with_opaque_cursors() {
    let mut wire = Wire::start(1 << 20);
    let mut names = Vec::new();
    let mut cursor = None::<String>;
    for id in 1.. {
        let mut params = json!({"_meta":modern(json!({}))});
        if let Some(c) = &cursor {
            params["cursor"] = json!(c);
        }
        let reply = wire.call(id, "tools/list", params).await;
        let result = &reply["result"];
        assert_eq!(result["resultType"], "complete");
        assert!(result["ttlMs"].is_u64() && result["cacheScope"].is_string());
        let page = result["tools"].as_array().expect("tools");
        assert!(page.len() <= 2);
        names.extend(
            page.iter()
                .map(|t| t["name"].as_str().unwrap_or("").to_owned()),
        );
        match result.get("nextCursor") {
            Some(c) => cursor = c.as_str().map(str::to_owned),
            None => break,
        }
    }
    assert_eq!(names, ["echo", "ask", "ask_url", "sample", "wait"]);
    let reply = wire
        .call(
            99,
            "tools/list",
            json!({"_meta":modern(json!({})),"cursor":"nope"}),
        )
        .await;
    assert_eq!(reply["error"]["code"], -32602);
}

#[tokio::test]
async fn progress_and_log_notifications_precede_the_result_when_asked_for() {
    let mut wire = Wire::start(1 << 20);
    let mut meta = modern(json!({}));
    meta["progressToken"] = json!("p1");
    meta["io.modelcontextprotocol/logLevel"] = json!("info");
    wire.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
        "params":{"_meta":meta,"name":"echo","arguments":{"text":"hi"}}}))
        .await;
    let progress = wire.recv().await;
    assert_eq!(progress["method"], "notifications/progress");
    assert_eq!(
        progress["params"],
        json!({"progressToken":"p1","progress":0.5,"total":1.0,"message":"halfway"})
    );
    let log = wire.recv().await;
    assert_eq!(log["method"], "notifications/message");
    assert_eq!(log["params"]["level"], "info");
    let result = wire.recv().await;
    assert_eq!(result["result"]["content"][0]["text"], "hi");

    // Without a token or a level: nothing but the result.
    let reply = wire
        .call(
            2,
            "tools/call",
            json!({"_meta":modern(json!({})),"name":"echo","arguments":{"text":"quiet"}}),
        )
        .await;
    assert_eq!(reply["result"]["content"][0]["text"], "quiet");
    wire.assert_still_serving().await;
}

#[tokio::test]
async fn a_cancelled_request_gets_no_response_and_the_server_goes_on() {
    let mut wire = Wire::start(1 << 20);
    wire.send(json!({"jsonrpc":"2.0","id":"slow","method":"tools/call",
        "params":{"_meta":modern(json!({})),"name":"wait"}}))
        .await;
    wire.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled",
        "params":{"requestId":"slow","reason":"user"}}))
        .await;
    // Cancelling an unknown or finished request is ignored.
    wire.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled",
        "params":{"requestId":12345}}))
        .await;
    wire.assert_still_serving().await;
    // The id is free again once the cancelled request is gone.
    wire.send(json!({"jsonrpc":"2.0","id":"slow","method":"tools/call",
        "params":{"_meta":modern(json!({})),"name":"echo","arguments":{"text":"again"}}}))
        .await;
    let reply = wire.recv().await;
    assert_eq!(reply["id"], "slow");
    assert_eq!(reply["result"]["content"][0]["text"], "again");
}

#[tokio::test]
async fn input_required_carries_result_type_and_the_questions() {
    let mut wire = Wire::start(1 << 20);
    let caps = json!({"elicitation":{},"sampling":{},"roots":{}});
    let reply = wire
        .call(
            1,
            "tools/call",
            json!({"_meta":modern(caps.clone()),"name":"ask"}),
        )
        .await;
    let result = &reply["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(result["inputRequests"]["q"]["method"], "elicitation/create");
    assert_eq!(result["inputRequests"]["q"]["params"]["mode"], "form");
    assert!(result.get("ttlMs").is_none());
    let reply = wire
        .call(
            2,
            "tools/call",
            json!({"_meta":modern(caps),"name":"sample"}),
        )
        .await;
    let requests = &reply["result"]["inputRequests"];
    assert_eq!(requests["s"]["method"], "sampling/createMessage");
    assert_eq!(requests["r"], json!({"method":"roots/list"}));
}

#[tokio::test]
async fn asking_for_an_undeclared_capability_is_refused_with_what_is_missing() {
    let mut wire = Wire::start(1 << 20);
    let reply = wire
        .call(
            1,
            "tools/call",
            json!({"_meta":modern(json!({})),"name":"ask"}),
        )
        .await;
    assert_eq!(reply["error"]["code"], -32021);
    assert_eq!(
        reply["error"]["data"],
        json!({"requiredCapabilities":{"elicitation":{"form":{}}}})
    );
    // Form mode declared, URL mode asked.
    let reply = wire
        .call(
            2,
            "tools/call",
            json!({"_meta":modern(json!({"elicitation":{}})),"name":"ask_url"}),
        )
        .await;
    assert_eq!(reply["error"]["code"], -32021);
    assert_eq!(
        reply["error"]["data"],
        json!({"requiredCapabilities":{"elicitation":{"url":{}}}})
    );
    let reply = wire
        .call(
            3,
            "tools/call",
            json!({"_meta":modern(json!({"roots":{}})),"name":"sample"}),
        )
        .await;
    assert_eq!(
        reply["error"]["data"],
        json!({"requiredCapabilities":{"sampling":{}}})
    );
}

#[tokio::test]
async fn an_input_required_result_with_nothing_in_it_is_an_internal_error() {
    let mut wire = Wire::start(1 << 20);
    let reply = wire
        .call(
            1,
            "tools/call",
            json!({"_meta":modern(json!({})),"name":"empty_ask"}),
        )
        .await;
    assert_eq!(reply["error"]["code"], -32603);
}

#[tokio::test]
async fn request_state_must_be_a_string_and_null_means_absent() {
    let mut wire = Wire::start(1 << 20);
    let reply = wire
        .call(
            1,
            "tools/call",
            json!({"_meta":modern(json!({})),"name":"echo","requestState":7}),
        )
        .await;
    assert_eq!(reply["error"]["code"], -32602);
    let reply = wire
        .call(2, "tools/call",
            json!({"_meta":modern(json!({})),"name":"echo","arguments":{"text":"ok"},"requestState":null}))
        .await;
    assert_eq!(reply["result"]["content"][0]["text"], "ok");
}

#[tokio::test]
async fn a_legacy_session_and_modern_requests_share_one_connection() {
    let mut wire = Wire::start(1 << 20);
    let reply = wire.call(1, "initialize", initialize_params()).await;
    let result = &reply["result"];
    assert_eq!(result["protocolVersion"], "2025-11-25");
    assert_eq!(result["serverInfo"]["name"], "test-server");
    assert!(result.get("resultType").is_none());
    wire.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;

    let reply = wire.call(2, "tools/list", json!({})).await;
    let result = &reply["result"];
    assert_eq!(result["tools"].as_array().map(Vec::len), Some(2));
    for absent in ["resultType", "ttlMs", "cacheScope", "_meta"] {
        assert!(result.get(absent).is_none(), "{absent} in {result}");
    }
    let reply = wire.call(3, "ping", json!({})).await;
    assert_eq!(reply["result"], json!({}));
    let reply = wire
        .call(4, "logging/setLevel", json!({"level":"debug"}))
        .await;
    assert_eq!(reply["result"], json!({}));

    // A modern request on the same connection is served as modern.
    let reply = wire
        .call(5, "tools/list", json!({"_meta":modern(json!({}))}))
        .await;
    assert_eq!(reply["result"]["resultType"], "complete");

    // server/discover does not exist in 2025-11-25.
    let reply = wire.call(6, "server/discover", json!({})).await;
    assert_eq!(reply["error"]["code"], -32601);

    // A second initialize is refused.
    let reply = wire.call(7, "initialize", initialize_params()).await;
    assert_eq!(reply["error"]["code"], -32600);
}

#[tokio::test]
async fn input_required_in_a_legacy_session_is_an_internal_error() {
    let mut wire = Wire::start(1 << 20);
    wire.call(1, "initialize", initialize_params()).await;
    let reply = wire.call(2, "tools/call", json!({"name":"ask"})).await;
    assert_eq!(reply["error"]["code"], -32603);
    assert!(!reply.to_string().contains("input_required"));
    let reply = wire
        .call(
            3,
            "tools/call",
            json!({"name":"echo","arguments":{"text":"still here"}}),
        )
        .await;
    assert_eq!(reply["result"]["content"][0]["text"], "still here");
    assert!(reply["result"].get("resultType").is_none());
}

#[tokio::test]
async fn initialize_negotiates_down_to_our_newest_legacy_revision() {
    let mut wire = Wire::start(1 << 20);
    let mut params = initialize_params();
    params["protocolVersion"] = json!("2024-01-01");
    let reply = wire.call(1, "initialize", params).await;
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25");
    let mut wire = Wire::start(1 << 20);
    let mut params = initialize_params();
    params["protocolVersion"] = json!("2025-06-18");
    let reply = wire.call(1, "initialize", params).await;
    assert_eq!(reply["result"]["protocolVersion"], "2025-06-18");
}

#[tokio::test]
async fn methods_without_a_handler_are_method_not_found() {
    let mut wire = Wire::start(1 << 20);
    for method in [
        "prompts/list",
        "prompts/get",
        "resources/read",
        "completion/complete",
    ] {
        let reply = wire
            .call(1, method, json!({"_meta":modern(json!({}))}))
            .await;
        assert_eq!(reply["error"]["code"], -32601, "{method}");
    }
}

fn resource_server(exists: Option<fn(&str) -> bool>) -> mcp::server::Server {
    use mcp::protocol::{
        Implementation, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
    };
    let template: ResourceTemplate =
        serde_json::from_value(json!({"uriTemplate": "db://{table}", "name": "table"}))
            .expect("template");
    let builder = mcp::server::Server::builder(Implementation::new("files", "1"))
        .list_resources(vec![Resource::new("file:///a", "a")])
        .list_resource_templates(vec![template])
        .on_read_resource(|_ctx, p| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(
                &p.uri, "x",
            )]))
        });
    match exists {
        Some(exists) => builder.resource_exists(exists),
        None => builder,
    }
    .build()
    .expect("builds")
}

async fn legacy_session(wire: &mut crate::support::Wire) {
    let reply = wire.call(1, "initialize", initialize_params()).await;
    assert!(reply["result"].is_object(), "{reply}");
    wire.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
}

#[tokio::test]
async fn a_subscription_names_a_resource_the_server_has() {
    let mut wire = crate::support::Wire::with_server(resource_server(None));
    legacy_session(&mut wire).await;
    for uri in ["file:///a", "db://orders"] {
        let reply = wire
            .call(2, "resources/subscribe", json!({"uri": uri}))
            .await;
        assert!(reply["result"].is_object(), "{uri}: {reply}");
    }
    let reply = wire
        .call(3, "resources/subscribe", json!({"uri": "file:///nope"}))
        .await;
    assert_eq!(reply["error"]["code"], -32002, "{reply}");
    let long = format!("db://{}", "x".repeat(5000));
    let reply = wire
        .call(4, "resources/subscribe", json!({"uri": long}))
        .await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
}

#[tokio::test]
async fn a_session_holds_a_bounded_number_of_subscriptions() {
    let mut wire = crate::support::Wire::with_server(resource_server(Some(|_| true)));
    legacy_session(&mut wire).await;
    let limit = mcp::server::MAX_SUBSCRIPTIONS;
    for n in 0..limit {
        let uri = format!("mem://{n}");
        let reply = wire
            .call(2, "resources/subscribe", json!({"uri": uri}))
            .await;
        assert!(reply["result"].is_object(), "{n}: {reply}");
    }
    let reply = wire
        .call(3, "resources/subscribe", json!({"uri": "mem://one-more"}))
        .await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    // Subscribing again to one it holds is no new subscription.
    let reply = wire
        .call(4, "resources/subscribe", json!({"uri": "mem://0"}))
        .await;
    assert!(reply["result"].is_object(), "{reply}");
    wire.call(5, "resources/unsubscribe", json!({"uri": "mem://0"}))
        .await;
    let reply = wire
        .call(6, "resources/subscribe", json!({"uri": "mem://one-more"}))
        .await;
    assert!(reply["result"].is_object(), "{reply}");
}

#[tokio::test]
async fn ping_before_initialize_is_answered() {
    let mut wire = Wire::start(1 << 20);
    let reply = wire.call(1, "ping", json!({})).await;
    assert_eq!(reply["result"], json!({}), "{reply}");
}

/// A static resource, for the not-found codes of each revision.
#[mcp::resource("note://readme")]
async fn readme() -> String {
    "read me".to_owned()
}

#[tokio::test]
async fn a_missing_resource_is_not_found_in_each_revisions_own_code() {
    let server = mcp::McpServer::new("notes")
        .resources(mcp::resources![readme])
        .build()
        .expect("builds");
    let mut wire = Wire::with_server(server);
    let missing = json!({"uri": "note://nope", "_meta": modern(json!({}))});
    let reply = wire.call(1, "resources/read", missing).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    legacy_session(&mut wire).await;
    let reply = wire
        .call(2, "resources/read", json!({"uri": "note://nope"}))
        .await;
    assert_eq!(reply["error"]["code"], -32002, "{reply}");
    let reply = wire
        .call(3, "resources/read", json!({"uri": "note://readme"}))
        .await;
    assert_eq!(reply["result"]["contents"][0]["text"], "read me", "{reply}");
}
