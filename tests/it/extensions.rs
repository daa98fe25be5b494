//! The extension point on the raw wire: an extension advertised by `server/discover`, its
//! method served to the clients that declare it and refused (-32021) to the others, its
//! `resultType` answering `tools/call`, over in-memory and Streamable HTTP; a method routed by
//! a params member, whose `Mcp-Name` header must match it over HTTP (and which our client
//! sends for the tasks extension's methods); and the build errors of extensions that collide.

use mcp::protocol::{
    CallToolResult, ExtensionResult, Implementation, JsonObject, McpError, Tool, methods,
};
use mcp::server::{BuildError, Context, ExtendedOutcome, Extension, McpServer, Server};
use serde_json::{Value, json};

use crate::support::wire::{Wire, meta, request};

const ECHO: &str = "com.example/echo";

#[derive(serde::Deserialize)]
struct Say {
    text: String,
}

/// `com.example/echo`: `echo/say` for declaring clients (reports progress, and what the client
/// declared; panics on the text `panic`), `echo/about` for anyone, `echo/raw` (answers with
/// its `reply` param as it is), `echo/recall` (routed by `taskId`, which it answers with), and
/// the `echoed` result type on `tools/call`.
fn echo_extension() -> Extension {
    Extension::new(ECHO)
        .settings(json!({"maxLength": 100}))
        .method("echo/say", |ctx: Context, say: Say| async move {
            assert_ne!(say.text, "panic", "echo/say was told to panic");
            ctx.progress(1.0, Some(1.0), None).await;
            let declared = ctx.client_extension(ECHO).cloned();
            Ok::<_, McpError>(json!({"text": say.text, "declared": declared}))
        })
        .method_without_declaration("echo/about", |_ctx: Context, _: Value| async move {
            Ok::<_, McpError>(json!({"about": "echoes"}))
        })
        .method("echo/raw", |_ctx: Context, params: Value| async move {
            Ok::<_, McpError>(params["reply"].clone())
        })
        .method("echo/recall", |_ctx: Context, params: Value| async move {
            Ok::<_, McpError>(json!({"recalled": params["taskId"]}))
        })
        .routing_param("echo/recall", "taskId")
        .result_type("echoed", [methods::TOOLS_CALL])
}

/// An `echoed` result with `text`.
fn echoed(text: &str) -> ExtensionResult {
    let mut body = JsonObject::new();
    body.insert("echo".into(), text.into());
    ExtensionResult::new("echoed", body)
}

/// A low-level server with the echo extension and three tools: `polite` answers `echoed` only
/// to clients that declared the extension, `stubborn` to everyone, `rogue` with a resultType
/// no extension declares; `sees` reports what `client_extension` says for each id.
fn server() -> Server {
    let tools = ["polite", "stubborn", "rogue", "sees"]
        .map(|name| Tool::new(name, json!({"type": "object"})))
        .to_vec();
    Server::builder(Implementation::new("echoes", "1.0.0"))
        .extension(echo_extension())
        .list_tools(tools)
        .on_call_tool(|ctx, params| async move {
            let answer: ExtendedOutcome<CallToolResult> = match params.name.as_str() {
                "polite" if ctx.client_extension(ECHO).is_some() => echoed("polite").into(),
                "polite" => CallToolResult::text("plain").into(),
                "stubborn" => echoed("stubborn").into(),
                "rogue" => ExtensionResult::new("rogue", JsonObject::new()).into(),
                "sees" => {
                    let seen = json!({
                        "echo": ctx.client_extension(ECHO),
                        "other": ctx.client_extension("com.example/other"),
                    });
                    CallToolResult::text(seen.to_string()).into()
                }
                other => return Err(McpError::invalid_params(format!("Unknown tool {other}"))),
            };
            Ok(answer)
        })
        .build()
        .expect("the server builds")
}

/// Client capabilities declaring the echo extension with `settings`.
fn declaring(settings: Value) -> Value {
    json!({"extensions": {ECHO: settings}})
}

fn required_echo() -> Value {
    json!({"requiredCapabilities": {"extensions": {ECHO: {}}}})
}

#[tokio::test]
async fn discover_advertises_the_extension_with_its_settings_beside_the_derived_capabilities() {
    let mut wire = Wire::new(&server());
    let reply = wire.call("server/discover", json!({}), json!({})).await;
    let capabilities = &reply["result"]["capabilities"];
    assert_eq!(
        capabilities["extensions"],
        json!({ECHO: {"maxLength": 100}})
    );
    assert_eq!(capabilities["tools"], json!({"listChanged": true}));
    assert_eq!(capabilities["logging"], json!({}));
}

#[tokio::test]
async fn a_declaring_client_calls_the_method_with_the_context_of_a_core_handler() {
    let mut wire = Wire::new(&server());
    let mut params = json!({"text": "hi"});
    params["_meta"] = meta(declaring(json!({"loud": true})));
    params["_meta"]["progressToken"] = json!("p-1");
    let line = json!({"jsonrpc": "2.0", "id": 1, "method": "echo/say", "params": params});
    let (notifications, reply) = wire.exchange(line.to_string()).await;
    assert_eq!(
        reply["result"],
        json!({
            "resultType": "complete",
            "text": "hi",
            "declared": {"loud": true},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "echoes", "version": "1.0.0"}},
        })
    );
    assert_eq!(notifications.len(), 1, "{notifications:?}");
    assert_eq!(notifications[0]["method"], "notifications/progress");
    assert_eq!(notifications[0]["params"]["progressToken"], "p-1");
}

#[tokio::test]
async fn a_client_that_does_not_declare_the_extension_is_refused_with_32021_naming_it() {
    let mut wire = Wire::new(&server());
    for capabilities in [
        json!({}),
        json!({"extensions": {}}),
        json!({"extensions": {"com.example/other": {}}}),
    ] {
        let reply = wire
            .call("echo/say", json!({"text": "hi"}), capabilities.clone())
            .await;
        assert_eq!(reply["error"]["code"], -32021, "{capabilities}: {reply}");
        assert_eq!(reply["error"]["data"], required_echo());
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("extensions.com.example/echo"), "{message}");
    }
    // A method registered without the need to declare serves everyone.
    let reply = wire.call("echo/about", json!({}), json!({})).await;
    assert_eq!(reply["result"]["about"], "echoes", "{reply}");
    // And the connection still serves the declaring client.
    let reply = wire
        .call("echo/say", json!({"text": "again"}), declaring(json!({})))
        .await;
    assert_eq!(reply["result"]["text"], "again", "{reply}");
}

#[tokio::test]
async fn unknown_methods_bad_params_bad_results_and_panics_get_their_errors_and_serving_goes_on() {
    let mut wire = Wire::new(&server());
    let declared = declaring(json!({}));
    let reply = wire.call("echo/shout", json!({}), declared.clone()).await;
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    let reply = wire
        .call("echo/say", json!({"text": 7}), declared.clone())
        .await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let reply = wire
        .call("echo/say", json!({"text": "panic"}), declared.clone())
        .await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    // A result must be an object, to carry `resultType` and `_meta`.
    let reply = wire
        .call("echo/raw", json!({"reply": [1, 2]}), declared.clone())
        .await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    let reply = wire
        .call("echo/raw", json!({"reply": {"n": 1}}), declared.clone())
        .await;
    assert_eq!(reply["result"]["n"], 1, "{reply}");
    let reply = wire.call("echo/say", json!({"text": "ok"}), declared).await;
    assert_eq!(reply["result"]["text"], "ok", "{reply}");
}

#[tokio::test]
async fn a_declaration_that_is_not_an_object_is_invalid_params() {
    let mut wire = Wire::new(&server());
    for extensions in [
        json!("com.example/echo"),
        json!({ECHO: true}),
        json!([ECHO]),
    ] {
        let reply = wire
            .call(
                "echo/say",
                json!({"text": "hi"}),
                json!({"extensions": extensions}),
            )
            .await;
        assert_eq!(reply["error"]["code"], -32602, "{extensions}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("Invalid _meta"), "{message}");
    }
}

#[tokio::test]
async fn handlers_see_the_declaration_of_extensions_the_server_has_only() {
    let mut wire = Wire::new(&server());
    let both = json!({"extensions": {ECHO: {"loud": false}, "com.example/other": {"x": 1}}});
    let reply = wire.call("tools/call", json!({"name": "sees"}), both).await;
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let seen: Value = serde_json::from_str(text).expect("JSON text");
    assert_eq!(seen, json!({"echo": {"loud": false}, "other": null}));
    let reply = wire
        .call("tools/call", json!({"name": "sees"}), json!({}))
        .await;
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let seen: Value = serde_json::from_str(text).expect("JSON text");
    assert_eq!(seen, json!({"echo": null, "other": null}));
}

#[tokio::test]
async fn tools_call_answers_with_the_extensions_result_type_only_where_it_was_negotiated() {
    let mut wire = Wire::new(&server());
    let declared = declaring(json!({}));
    let reply = wire
        .call("tools/call", json!({"name": "polite"}), declared.clone())
        .await;
    assert_eq!(
        reply["result"],
        json!({
            "resultType": "echoed",
            "echo": "polite",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "echoes", "version": "1.0.0"}},
        })
    );
    // The handler falls back to core behaviour for a client without the extension.
    let reply = wire
        .call("tools/call", json!({"name": "polite"}), json!({}))
        .await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    // One that does not is stopped at the edge: the client is told what it lacks.
    let reply = wire
        .call("tools/call", json!({"name": "stubborn"}), json!({}))
        .await;
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(reply["error"]["data"], required_echo());
    // A resultType no extension declared for the method is the server's fault.
    let reply = wire
        .call("tools/call", json!({"name": "rogue"}), declared)
        .await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    assert_eq!(reply["error"]["message"], "Internal error");
}

/// The subscriber is this thread's, and the runtime single-threaded so the server logs here.
#[tokio::test(flavor = "current_thread")]
async fn refusals_and_rogue_answers_are_logged_as_for_core_methods() {
    let (log, _guard) = crate::support::log::CapturedLog::start();
    let mut wire = Wire::new(&server());
    let reply = wire
        .call("echo/say", json!({"text": "hi"}), json!({}))
        .await;
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    let reply = wire
        .call("tools/call", json!({"name": "rogue"}), declaring(json!({})))
        .await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    let lines = log.take();
    let refused: Vec<_> = lines
        .lines()
        .filter(|l| l.contains("refused echo/say") && l.contains("code=-32021"))
        .collect();
    assert_eq!(refused.len(), 1, "{lines}");
    assert!(refused[0].contains("INFO"), "{}", refused[0]);
    let rogue: Vec<_> = lines
        .lines()
        .filter(|l| l.contains("ERROR") && l.contains("Other(\"rogue\")"))
        .collect();
    assert_eq!(rogue.len(), 1, "{lines}");
}

/// A 2025-11-25 session over `wire`: initialized, with the extension declared at `initialize`.
async fn legacy_session(wire: &mut Wire) -> Value {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": declaring(json!({})),
        "clientInfo": {"name": "old", "version": "1"},
    }});
    let (_, reply) = wire.exchange(init.to_string()).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    wire.send(initialized.to_string()).await;
    reply
}

#[tokio::test]
async fn a_2025_session_is_neither_told_of_extensions_nor_served_them() {
    let mut wire = Wire::new(&server());
    let init = legacy_session(&mut wire).await;
    let capabilities = &init["result"]["capabilities"];
    assert!(capabilities.get("extensions").is_none(), "{init}");
    assert_eq!(capabilities["tools"], json!({"listChanged": true}));
    let say = json!({"jsonrpc": "2.0", "id": 1, "method": "echo/say", "params": {"text": "hi"}});
    let (_, reply) = wire.exchange(say.to_string()).await;
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    let sees =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "sees"}});
    let (_, reply) = wire.exchange(sees.to_string()).await;
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(
        serde_json::from_str::<Value>(text).ok(),
        Some(json!({"echo": null, "other": null}))
    );
    let stubborn =
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "stubborn"}});
    let (_, reply) = wire.exchange(stubborn.to_string()).await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
}

#[tokio::test]
async fn mcp_server_serves_extensions_beside_its_tools() {
    #[mcp::tool]
    async fn greet(name: String) -> String {
        format!("Hello, {name}!")
    }
    let server = McpServer::new("greeter")
        .tools(mcp::tools![greet])
        .extension(echo_extension())
        .build()
        .expect("builds");
    let mut wire = Wire::new(&server);
    let reply = wire.call("server/discover", json!({}), json!({})).await;
    assert_eq!(
        reply["result"]["capabilities"]["extensions"],
        json!({ECHO: {"maxLength": 100}})
    );
    let reply = wire
        .call("echo/say", json!({"text": "hi"}), declaring(json!({})))
        .await;
    assert_eq!(reply["result"]["text"], "hi", "{reply}");
    let reply = wire
        .call(
            "tools/call",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
            json!({}),
        )
        .await;
    assert_eq!(reply["result"]["content"][0]["text"], "Hello, Ada!");
}

#[test]
fn extensions_that_collide_are_build_errors_naming_both() {
    let info = || Implementation::new("clash", "1.0.0");
    let twice = Server::builder(info())
        .extension(Extension::new(ECHO))
        .extension(Extension::new(ECHO))
        .build()
        .expect_err("an id twice");
    assert!(
        matches!(&twice, BuildError::Duplicate { kind: "extension", name, first: 1, second: 2 } if name == ECHO),
        "{twice}"
    );
    let noop = |_ctx: Context, _: Value| async { Ok::<_, McpError>(json!({})) };
    let core = McpServer::new("clash")
        .extension(Extension::new(ECHO).method("tools/list", noop))
        .build()
        .expect_err("a core method");
    assert_eq!(
        core.to_string(),
        "extension `com.example/echo` cannot take the method `tools/list`: the core protocol has it"
    );
    let shadowed = Server::builder(info())
        .extension(Extension::new("com.example/a").method("shared/go", noop))
        .extension(Extension::new("com.example/b").method("shared/go", noop))
        .build()
        .expect_err("one method, two extensions");
    assert!(
        matches!(
            &shadowed,
            BuildError::ExtensionConflict { extension, what: "method", name, holder }
                if extension == "com.example/b" && name == "shared/go" && holder == "extension `com.example/a`"
        ),
        "{shadowed}"
    );
    let bad_id = Server::builder(info())
        .extension(Extension::new("echo"))
        .build()
        .expect_err("no prefix");
    assert!(
        matches!(&bad_id, BuildError::InvalidExtension { id, .. } if id == "echo"),
        "{bad_id}"
    );
}

#[test]
fn a_routing_field_for_a_method_the_extension_does_not_serve_is_a_build_error() {
    let noop = |_ctx: Context, _: Value| async { Ok::<_, McpError>(json!({})) };
    let unserved = Server::builder(Implementation::new("jobs", "1.0.0"))
        .extension(
            Extension::new("com.example/jobs")
                .method("jobs/get", noop)
                .routing_param("jobs/cancel", "jobId"),
        )
        .build()
        .expect_err("jobs/cancel is not served");
    assert!(
        matches!(&unserved, BuildError::InvalidExtension { id, reason }
            if id == "com.example/jobs" && reason.contains("`jobs/cancel`")),
        "{unserved}"
    );
    assert_eq!(
        unserved.to_string(),
        "extension `com.example/jobs` cannot be registered: it names routing field `jobId` for \
         `jobs/cancel`, which it does not serve"
    );
    // Declared before the method it names, it is the same declaration.
    Server::builder(Implementation::new("jobs", "1.0.0"))
        .extension(
            Extension::new("com.example/jobs")
                .routing_param("jobs/get", "jobId")
                .method("jobs/get", noop),
        )
        .build()
        .expect("the order does not matter");
}

#[cfg(feature = "http")]
mod over_http {
    use std::net::SocketAddr;

    use serde_json::{Value, json};

    use super::{ECHO, declaring, request, required_echo, server};
    use crate::support::http::{Reply, post, serve};

    /// POSTs `line` to `addr` with the routing headers of `method`.
    async fn send(addr: SocketAddr, method: &str, line: String) -> Reply {
        post(addr, line).routing(method, None).send().await
    }

    async fn started() -> (SocketAddr, tokio_util::sync::DropGuard) {
        let (url, stop) = serve(server()).await;
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .parse()
            .expect("the server's address");
        (addr, stop)
    }

    #[tokio::test]
    async fn discover_advertises_and_a_declaring_client_calls_the_method() {
        let (addr, _stop) = started().await;
        let discover = request(1, "server/discover", json!({}), json!({}));
        let r = send(addr, "server/discover", discover).await;
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(
            r.json()["result"]["capabilities"]["extensions"],
            json!({ECHO: {"maxLength": 100}})
        );
        let say = request(2, "echo/say", json!({"text": "hi"}), declaring(json!({})));
        let r = send(addr, "echo/say", say).await;
        assert_eq!(r.status, 200, "{r:?}");
        let body = r.json();
        assert_eq!(body["result"]["text"], "hi", "{body}");
        assert_eq!(body["result"]["resultType"], "complete");
    }

    #[tokio::test]
    async fn refusals_keep_their_codes_and_statuses() {
        let (addr, _stop) = started().await;
        let say = request(1, "echo/say", json!({"text": "hi"}), json!({}));
        let r = send(addr, "echo/say", say).await;
        assert_eq!((r.status, r.error_code()), (400, -32021), "{r:?}");
        assert_eq!(r.json()["error"]["data"], required_echo());
        let shout = request(2, "echo/shout", json!({}), declaring(json!({})));
        let r = send(addr, "echo/shout", shout).await;
        assert_eq!((r.status, r.error_code()), (404, -32601), "{r:?}");
        let malformed = request(
            3,
            "echo/say",
            json!({"text": "hi"}),
            json!({"extensions": [ECHO]}),
        );
        let r = send(addr, "echo/say", malformed).await;
        assert_eq!((r.status, r.error_code()), (400, -32602), "{r:?}");
        // The method header must name the extension's method, as for a core one.
        let say = request(4, "echo/say", json!({"text": "hi"}), declaring(json!({})));
        let r = send(addr, "echo/shout", say).await;
        assert_eq!((r.status, r.error_code()), (400, -32020), "{r:?}");
    }

    #[tokio::test]
    async fn a_method_routed_by_task_id_is_served_only_with_a_matching_mcp_name() {
        let (addr, _stop) = started().await;
        let recall = |id, params| request(id, "echo/recall", params, declaring(json!({})));
        let routed = |line, name| post(addr, line).routing("echo/recall", name).send();

        let r = routed(recall(1, json!({"taskId": "t-1"})), Some("t-1")).await;
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(r.json()["result"]["recalled"], "t-1");
        // Encoded as any header value that is not plain ASCII.
        let r = routed(
            recall(2, json!({"taskId": "tâche-1"})),
            Some("=?base64?dMOiY2hlLTE=?="),
        )
        .await;
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(r.json()["result"]["recalled"], "tâche-1");

        let r = routed(recall(3, json!({"taskId": "t-1"})), Some("t-2")).await;
        assert_eq!((r.status, r.error_code()), (400, -32020), "{r:?}");
        assert_eq!(
            r.json()["error"]["message"],
            "Mcp-Name header \"t-2\" does not match the body"
        );
        let r = routed(recall(4, json!({"taskId": "t-1"})), None).await;
        assert_eq!((r.status, r.error_code()), (400, -32020), "{r:?}");
        assert_eq!(r.json()["error"]["message"], "Missing Mcp-Name header");
        // A body without the member as a string matches no header, as a tools/call without
        // a name does.
        for params in [json!({}), json!({"taskId": 1}), json!({"taskId": null})] {
            for name in [None, Some("1")] {
                let r = routed(recall(5, params.clone()), name).await;
                assert_eq!(
                    (r.status, r.error_code()),
                    (400, -32020),
                    "{params} {name:?}: {r:?}"
                );
            }
        }
        // Given twice, the header could match one and the handler read the other.
        let twice = recall(6, json!({})).replacen(
            r#""params":{"#,
            r#""params":{"taskId":"t-1","taskId":"t-2","#,
            1,
        );
        let r = routed(twice, Some("t-1")).await;
        assert_eq!((r.status, r.error_code()), (400, -32602), "{r:?}");
        let message = r.json()["error"]["message"].clone();
        let message = message.as_str().unwrap_or_default();
        assert!(
            message.starts_with("Invalid params: duplicate field `taskId`"),
            "{message}"
        );
    }

    #[tokio::test]
    async fn the_extensions_other_methods_need_no_mcp_name() {
        let (addr, _stop) = started().await;
        let say = request(1, "echo/say", json!({"text": "hi"}), declaring(json!({})));
        let r = send(addr, "echo/say", say).await;
        assert_eq!(r.status, 200, "{r:?}");
        // And one sent anyway is not compared, as for tools/list.
        let say = request(2, "echo/say", json!({"text": "hi"}), declaring(json!({})));
        let r = post(addr, say)
            .routing("echo/say", Some("whatever"))
            .send()
            .await;
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(r.json()["result"]["text"], "hi");
    }

    const TASKS: &str = "io.modelcontextprotocol/tasks";

    /// A stand-in for the tasks extension: `tasks/get`, `tasks/update` and `tasks/cancel`,
    /// each routed by `taskId` and answering with the method and the id.
    fn tasks_server() -> mcp::server::Server {
        let mut tasks = mcp::server::Extension::new(TASKS);
        for method in [
            mcp::protocol::methods::TASKS_GET,
            mcp::protocol::methods::TASKS_UPDATE,
            mcp::protocol::methods::TASKS_CANCEL,
        ] {
            tasks = tasks
                .method(
                    method,
                    move |_ctx: mcp::server::Context, params: Value| async move {
                        Ok::<_, mcp::protocol::McpError>(
                            json!({"method": method, "taskId": params["taskId"]}),
                        )
                    },
                )
                .routing_param(method, "taskId");
        }
        mcp::server::Server::builder(mcp::protocol::Implementation::new("tasks", "1.0.0"))
            .extension(tasks)
            .build()
            .expect("the server builds")
    }

    #[tokio::test]
    async fn our_client_sends_the_task_id_as_mcp_name_for_the_tasks_methods() {
        use mcp::client::Client;
        use mcp::protocol::{ClientCapabilities, Implementation, methods};

        let (url, _stop) = serve(tasks_server()).await;
        let addr: SocketAddr = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .parse()
            .expect("the server's address");
        // The server holds tasks/get to its Mcp-Name (the conformance scenario
        // `tasks-request-headers`)...
        let tasks = json!({"extensions": {TASKS: {}}});
        let get = request(1, methods::TASKS_GET, json!({"taskId": "t-1"}), tasks);
        let r = post(addr, get)
            .routing(methods::TASKS_GET, Some("t-2"))
            .send()
            .await;
        assert_eq!((r.status, r.error_code()), (400, -32020), "{r:?}");
        // ...and our client, which knows no extension of the server, sends it.
        let duplex = mcp::transport::http_client::connect(&url).expect("a valid URL");
        let client = Client::builder(Implementation::new("tasks-client", "1"))
            .capabilities(ClientCapabilities::default().with_extension(TASKS))
            .connect(duplex);
        for (method, task) in [
            (methods::TASKS_GET, "t-1"),
            (methods::TASKS_UPDATE, "t-2"),
            (methods::TASKS_CANCEL, "tâche-3"),
        ] {
            let answer: Value = client
                .request(method, json!({"taskId": task}))
                .await
                .unwrap_or_else(|e| panic!("{method}: {e}"));
            assert_eq!(
                (&answer["method"], &answer["taskId"]),
                (&json!(method), &json!(task)),
                "{answer}"
            );
        }
    }

    #[tokio::test]
    async fn tools_call_carries_the_extensions_result_type() {
        let (addr, _stop) = started().await;
        let call = request(
            1,
            "tools/call",
            json!({"name": "polite"}),
            declaring(json!({})),
        );
        let r = post(addr, call)
            .routing("tools/call", Some("polite"))
            .send()
            .await;
        assert_eq!(r.status, 200, "{r:?}");
        let result: Value = r.json()["result"].clone();
        assert_eq!(
            (&result["resultType"], &result["echo"]),
            (&json!("echoed"), &json!("polite"))
        );
    }
}
