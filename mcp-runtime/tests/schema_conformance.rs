//! Every message the server emits, on both wires, validates against the official JSON schema of
//! its revision; so do the requests our client sends; and the spec's examples round-trip
//! through our types unchanged.

mod support;

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use mcp_runtime::client::Client;
use mcp_runtime::protocol::{
    CompleteResult, DiscoverResult, GetPromptResult, Implementation, InputRequiredResult,
    InputResponses, Prompt, PromptMessage, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate,
};
use mcp_runtime::server::Server;
use mcp_runtime::transport::memory;
use serde_json::{Value, json};
use support::{Wire, modern};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

fn schema_document(revision: &str) -> &'static Value {
    static DOCS: LazyLock<HashMap<&'static str, Value>> = LazyLock::new(|| {
        [MODERN, LEGACY]
            .into_iter()
            .map(|revision| {
                let path = format!(
                    "{}/../../shared/spec/schema-{revision}.json",
                    env!("CARGO_MANIFEST_DIR")
                );
                let text = std::fs::read_to_string(&path).expect("the official schema");
                (revision, serde_json::from_str(&text).expect("schema json"))
            })
            .collect()
    });
    &DOCS[revision]
}

/// Validates `instance` against `#/$defs/<name>` of `revision`'s schema; validators are
/// compiled once per (revision, name).
fn assert_valid(revision: &'static str, name: &str, instance: &Value) {
    static VALIDATORS: LazyLock<Mutex<HashMap<(String, String), jsonschema::Validator>>> =
        LazyLock::new(Mutex::default);
    // A failed assertion must not poison the cache for the other tests.
    let mut validators = VALIDATORS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let validator = validators
        .entry((revision.to_owned(), name.to_owned()))
        .or_insert_with(|| {
            let mut doc = schema_document(revision).clone();
            assert!(doc["$defs"].get(name).is_some(), "{revision} has no {name}");
            doc["$ref"] = json!(format!("#/$defs/{name}"));
            jsonschema::validator_for(&doc).expect("compiles")
        });
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{e} (at {})", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{revision} {name} rejects {instance:#}:\n{}",
        errors.join("\n")
    );
}

/// A response line: the envelope, and the result (or error) against its own definition.
fn assert_response(revision: &'static str, result_def: &str, reply: &Value) {
    if reply.get("error").is_some() {
        assert_valid(revision, "JSONRPCErrorResponse", reply);
        return;
    }
    assert_valid(revision, "JSONRPCResultResponse", reply);
    assert_valid(revision, result_def, &reply["result"]);
}

/// The test server plus prompts, resources, templates and completion.
fn full_server() -> Server {
    Server::builder(Implementation::new("schema-server", "1.0.0"))
        .tools(vec![
            mcp_runtime::protocol::Tool::new("echo", json!({"type": "object"})),
            mcp_runtime::protocol::Tool::new("ask", json!({"type": "object"})),
        ])
        .on_call_tool(|ctx, call| async move {
            ctx.progress(0.5, Some(1.0), Some("halfway".into())).await;
            ctx.log(
                mcp_runtime::protocol::LoggingLevel::Info,
                Some("echo"),
                json!("x"),
            )
            .await;
            Ok(match call.name.as_str() {
                "ask" => mcp_runtime::protocol::Outcome::InputRequired(
                    InputRequiredResult::new()
                        .ask(
                            "q",
                            mcp_runtime::protocol::InputRequest::Elicit(
                                mcp_runtime::protocol::ElicitParams::form(
                                    "Sure?",
                                    json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
                                ),
                            ),
                        )
                        .ask(
                            "login",
                            mcp_runtime::protocol::InputRequest::Elicit(
                                mcp_runtime::protocol::ElicitParams::url("Sign in", "https://example.com"),
                            ),
                        )
                        .ask(
                            "s",
                            mcp_runtime::protocol::InputRequest::CreateMessage(Box::new(
                                mcp_runtime::protocol::CreateMessageParams::prompt("hi", 10),
                            )),
                        )
                        .ask("r", mcp_runtime::protocol::InputRequest::ListRoots)
                        .with_state("opaque"),
                ),
                _ => mcp_runtime::protocol::Outcome::Complete(
                    mcp_runtime::protocol::CallToolResult::text("hi"),
                ),
            })
        })
        .prompts(vec![Prompt {
            name: "brief".into(),
            description: Some("A briefing".into()),
            ..Prompt::default()
        }])
        .on_get_prompt(|_, _| async move {
            Ok(GetPromptResult::new(vec![PromptMessage::user("Brief me.")]))
        })
        .resources(vec![Resource::new("docs://readme", "readme")])
        .resource_templates(vec![ResourceTemplate {
            uri_template: "db://{table}".into(),
            name: "table".into(),
            ..ResourceTemplate::default()
        }])
        .on_read_resource(|_, read| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(read.uri, "text")]))
        })
        .on_complete(|_, _| async move { Ok(CompleteResult::values(vec!["orders".into()])) })
        .build()
}

fn caps() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}})
}

/// (method, params without `_meta`, result definition)
fn calls() -> Vec<(&'static str, Value, &'static str)> {
    vec![
        ("tools/list", json!({}), "ListToolsResult"),
        (
            "tools/call",
            json!({"name": "echo", "arguments": {}}),
            "CallToolResult",
        ),
        ("prompts/list", json!({}), "ListPromptsResult"),
        ("prompts/get", json!({"name": "brief"}), "GetPromptResult"),
        ("resources/list", json!({}), "ListResourcesResult"),
        (
            "resources/templates/list",
            json!({}),
            "ListResourceTemplatesResult",
        ),
        (
            "resources/read",
            json!({"uri": "docs://readme"}),
            "ReadResourceResult",
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "brief"},
                   "argument": {"name": "topic", "value": "or"}}),
            "CompleteResult",
        ),
    ]
}

/// Reads messages until the response with `id`, validating notifications on the way.
async fn response(wire: &mut Wire, revision: &'static str, id: i64) -> Value {
    loop {
        let message = wire.recv().await;
        if message.get("method").is_some() {
            assert_valid(revision, "JSONRPCNotification", &message);
            assert_valid(revision, "ServerNotification", &message);
            continue;
        }
        assert_eq!(message["id"], id, "{message}");
        return message;
    }
}

#[tokio::test]
async fn every_modern_response_and_notification_validates() {
    let mut wire = Wire::with_server(full_server());
    let mut id = 0;
    let mut send = async |wire: &mut Wire, method: &str, mut params: Value| {
        id += 1;
        params["_meta"] = modern(caps());
        params["_meta"]["progressToken"] = json!("p1");
        wire.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        response(wire, MODERN, id).await
    };
    let discover = send(&mut wire, "server/discover", json!({})).await;
    assert_response(MODERN, "DiscoverResult", &discover);
    for (method, params, def) in calls() {
        let reply = send(&mut wire, method, params).await;
        assert!(reply.get("result").is_some(), "{method}: {reply}");
        assert_response(MODERN, def, &reply);
        assert_valid(MODERN, "ServerResult", &reply["result"]);
    }
    let ask = send(&mut wire, "tools/call", json!({"name": "ask"})).await;
    assert_eq!(ask["result"]["resultType"], "input_required");
    assert_response(MODERN, "InputRequiredResult", &ask);
    let ping = send(&mut wire, "ping", json!({})).await;
    assert_valid(MODERN, "JSONRPCMessage", &ping);
}

#[tokio::test]
async fn every_modern_error_validates() {
    let mut wire = Wire::with_server(full_server());
    let cases = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "nope", "params": {"_meta": modern(caps())}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "1999-01-01",
            "io.modelcontextprotocol/clientCapabilities": {}}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "ask", "_meta": modern(json!({}))}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
               "params": {"name": 5, "_meta": modern(caps())}}),
    ];
    let mut codes = Vec::new();
    for case in cases {
        wire.send(case.clone()).await;
        let reply = response(&mut wire, MODERN, case["id"].as_i64().expect("id")).await;
        assert_valid(MODERN, "JSONRPCErrorResponse", &reply);
        codes.push(reply["error"]["code"].as_i64().expect("code"));
    }
    wire.send_raw(b"{not json").await;
    let parse_error = wire.recv().await;
    assert_valid(MODERN, "JSONRPCErrorResponse", &parse_error);
    codes.push(parse_error["error"]["code"].as_i64().expect("code"));
    wire.send(json!({"jsonrpc": "2.0", "id": 9, "method": 7}))
        .await;
    let invalid = wire.recv().await;
    assert_valid(MODERN, "JSONRPCErrorResponse", &invalid);
    codes.push(invalid["error"]["code"].as_i64().expect("code"));
    assert_eq!(
        codes,
        [-32601, -32602, -32022, -32021, -32602, -32700, -32600]
    );
}

#[tokio::test]
async fn every_legacy_response_validates() {
    let mut wire = Wire::with_server(full_server());
    wire.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": caps(),
        "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await;
    let init = response(&mut wire, LEGACY, 1).await;
    assert_response(LEGACY, "InitializeResult", &init);
    wire.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let mut id = 1;
    for (method, mut params, def) in calls() {
        id += 1;
        params["_meta"] = json!({"progressToken": id});
        wire.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let reply = response(&mut wire, LEGACY, id).await;
        assert!(reply.get("result").is_some(), "{method}: {reply}");
        assert!(reply["result"].get("resultType").is_none(), "{reply}");
        assert_response(LEGACY, def, &reply);
    }
    for (method, def) in [("ping", "EmptyResult"), ("logging/setLevel", "EmptyResult")] {
        id += 1;
        let params = if method == "ping" {
            json!({})
        } else {
            json!({"level": "info"})
        };
        wire.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let reply = response(&mut wire, LEGACY, id).await;
        assert_response(LEGACY, def, &reply);
    }
    // A hand-built InputRequiredResult cannot reach a 2025-11-25 client: -32603.
    id += 1;
    wire.send(
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "ask"}}),
    )
    .await;
    let reply = response(&mut wire, LEGACY, id).await;
    assert_eq!(reply["error"]["code"], -32603);
    assert_response(LEGACY, "CallToolResult", &reply);
}

/// Captures the requests our client writes, answering each with `result`.
async fn client_requests(drive: impl AsyncFnOnce(&Client)) -> Vec<Value> {
    let (client_end, mut server_end) = memory::pair();
    let client = Client::connect(client_end, Implementation::new("c", "1.0.0"))
        .with_capabilities(serde_json::from_value(caps()).expect("caps"));
    let seen = std::sync::Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Some(Ok(line)) = server_end.incoming.recv().await {
            let request: Value = serde_json::from_str(&line).expect("json");
            let reply = match request["method"].as_str() {
                Some("initialize") => json!({"protocolVersion": LEGACY, "capabilities": {},
                    "serverInfo": {"name": "s", "version": "1"}}),
                Some("server/discover") => json!({"resultType": "complete",
                    "supportedVersions": [MODERN], "capabilities": {}}),
                Some("resources/read") => json!({"resultType": "complete", "contents": []}),
                _ => json!({"resultType": "complete", "content": []}),
            };
            log.lock().expect("log").push(request.clone());
            let line = json!({"jsonrpc": "2.0", "id": request["id"], "result": reply});
            if server_end.outgoing.send(line.to_string()).await.is_err() {
                break;
            }
        }
    });
    drive(&client).await;
    std::mem::take(&mut *seen.lock().expect("log"))
}

#[tokio::test]
async fn the_requests_our_client_sends_validate() {
    let requests = client_requests(async |client: &Client| {
        client.discover().await.expect("discover");
        let mut answers = InputResponses::new();
        answers.insert("q", mcp_runtime::protocol::ElicitResult::decline());
        client
            .call_tool_once(
                "t",
                Some(json!({"a": 1})),
                Some(answers),
                Some("v1.x".into()),
            )
            .await
            .expect("call");
        client
            .read_resource_once("docs://readme", None, None)
            .await
            .expect("read");
    })
    .await;
    assert_eq!(requests.len(), 3);
    for (request, def) in
        requests
            .iter()
            .zip(["DiscoverRequest", "CallToolRequest", "ReadResourceRequest"])
    {
        assert_valid(MODERN, "JSONRPCRequest", request);
        assert_valid(MODERN, def, request);
    }
    let legacy = client_requests(async |client: &Client| {
        client.initialize().await.expect("initialize");
    })
    .await;
    assert_valid(LEGACY, "InitializeRequest", &legacy[0]);
}

#[test]
fn the_spec_examples_round_trip() {
    // DIGEST §3.2: an InputRequiredResult with questions and state.
    let ask = json!({
        "resultType": "input_required",
        "inputRequests": {
            "github_login": {"method": "elicitation/create", "params": {"mode": "form",
                "message": "Please provide your GitHub username",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}},
                    "required": ["name"]}}},
            "summary": {"method": "sampling/createMessage", "params": {"messages": [
                {"role": "user", "content": {"type": "text", "text": "Summarize"}}],
                "maxTokens": 100}},
            "roots": {"method": "roots/list"},
            "login": {"method": "elicitation/create", "params": {"mode": "url",
                "message": "Sign in", "url": "https://example.com/login"}},
        },
        "requestState": "eyJzdGVwIjoxfQ",
    });
    let parsed: InputRequiredResult = serde_json::from_value(ask.clone()).expect("parses");
    assert_eq!(serde_json::to_value(&parsed).expect("json"), ask);
    assert_valid(MODERN, "InputRequiredResult", &ask);

    // The retry's answers, each decoded by the method that was asked under its key.
    let answers = json!({
        "github_login": {"action": "accept", "content": {"name": "octocat"}},
        "summary": {"role": "assistant", "content": {"type": "text", "text": "Short"},
            "model": "m", "stopReason": "endTurn"},
        "roots": {"roots": [{"uri": "file:///home/user/project", "name": "project"}]},
    });
    let responses: InputResponses = serde_json::from_value(answers.clone()).expect("parses");
    assert_eq!(serde_json::to_value(&responses).expect("json"), answers);
    let elicit = responses
        .elicit("github_login")
        .expect("present")
        .expect("elicit result");
    assert_valid(
        MODERN,
        "ElicitResult",
        &serde_json::to_value(&elicit).expect("json"),
    );
    let sample = responses
        .sampling("summary")
        .expect("present")
        .expect("sampling result");
    assert_valid(
        MODERN,
        "CreateMessageResult",
        &serde_json::to_value(&sample).expect("json"),
    );
    let roots = responses
        .roots("roots")
        .expect("present")
        .expect("roots result");
    assert_valid(
        MODERN,
        "ListRootsResult",
        &serde_json::to_value(&roots).expect("json"),
    );

    // A roots/list request that carries an id (as some clients echo it) is tolerated.
    let with_id: mcp_runtime::protocol::InputRequest =
        serde_json::from_value(json!({"method": "roots/list", "id": 7})).expect("tolerated");
    assert_eq!(with_id, mcp_runtime::protocol::InputRequest::ListRoots);

    // DIGEST §5.2: a discover result.
    let discover = json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}, "resources": {}},
        "instructions": "optional LLM guidance",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "S", "version": "1"}},
        "ttlMs": 3600000,
        "cacheScope": "public",
    });
    let parsed: DiscoverResult = serde_json::from_value(discover.clone()).expect("parses");
    assert_eq!(serde_json::to_value(&parsed).expect("json"), discover);
    assert_valid(MODERN, "DiscoverResult", &discover);
}
