//! Every message the runtime emits, checked against the official JSON Schema of its revision
//! (`spec/schema-{2026-07-28,2025-11-25}.json` at the repository root), plus round trips of the spec's
//! own examples through our serde model.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::Validator;
use mcp_runtime::client::Client;
use mcp_runtime::protocol::{
    CallToolResult, ClientCapabilities, CompleteResult, CreateMessageResult, DiscoverResult,
    ElicitResult, GetPromptResult, Implementation, InputRequest, InputRequiredResult,
    InputResponses, ListRootsResult, Prompt, PromptMessage, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Tool,
};
use mcp_runtime::server::Server;
use mcp_runtime::transport::{Duplex, Frame};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::support::{Wire, modern};

// ---------------------------------------------------------------------------------------------
// Schema helper
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Rev {
    V2026,
    V2025,
}

impl Rev {
    fn file(self) -> &'static str {
        match self {
            Rev::V2026 => "schema-2026-07-28.json",
            Rev::V2025 => "schema-2025-11-25.json",
        }
    }
}

fn document(rev: Rev) -> &'static Value {
    static V2026: OnceLock<Value> = OnceLock::new();
    static V2025: OnceLock<Value> = OnceLock::new();
    let cell = match rev {
        Rev::V2026 => &V2026,
        Rev::V2025 => &V2025,
    };
    cell.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../spec")
            .join(rev.file());
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        serde_json::from_str(&text).expect("the schema file is JSON")
    })
}

/// A validator for `#/$defs/<name>` of `rev`, compiled once.
fn validator(rev: Rev, name: &str) -> Arc<Validator> {
    type Cache = Mutex<HashMap<(Rev, String), Arc<Validator>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    let key = (rev, name.to_owned());
    if let Some(v) = cache.lock().expect("cache lock").get(&key) {
        return v.clone();
    }
    let mut schema = document(rev).clone();
    let root = schema.as_object_mut().expect("the schema is an object");
    let defs = root
        .get("$defs")
        .and_then(Value::as_object)
        .expect("the schema keeps its definitions under $defs");
    assert!(
        defs.contains_key(name),
        "{} has no definition {name}",
        rev.file()
    );
    root.retain(|k, _| k == "$schema" || k == "$defs");
    root.insert("$ref".into(), json!(format!("#/$defs/{name}")));
    let compiled = Arc::new(
        jsonschema::options()
            .build(&schema)
            .unwrap_or_else(|e| panic!("{name} of {} does not compile: {e}", rev.file())),
    );
    cache
        .lock()
        .expect("cache lock")
        .insert(key, compiled.clone());
    compiled
}

/// Every validation error of `value` against `name`, with its instance path.
fn errors(rev: Rev, name: &str, value: &Value) -> Vec<String> {
    validator(rev, name)
        .iter_errors(value)
        .map(|e| format!("  at {:?}: {e}", e.instance_path().as_str()))
        .collect()
}

#[track_caller]
fn assert_valid(rev: Rev, name: &str, value: &Value) {
    let errors = errors(rev, name, value);
    assert!(
        errors.is_empty(),
        "{value}\nis not a valid {name} of {}:\n{}",
        rev.file(),
        errors.join("\n")
    );
}

#[track_caller]
fn assert_invalid(rev: Rev, name: &str, value: &Value) {
    assert!(
        !errors(rev, name, value).is_empty(),
        "{value} should not be a valid {name} of {}",
        rev.file()
    );
}

/// A successful response: the generic envelope, the method's own response type when the
/// revision has one, and the result type.
#[track_caller]
fn assert_result(rev: Rev, response: &Value, result_def: &str) {
    assert!(response.get("result").is_some(), "not a result: {response}");
    // The specific definition first: its errors say more than a failed `anyOf`.
    assert_valid(rev, result_def, &response["result"]);
    assert_valid(rev, "JSONRPCResultResponse", response);
    assert_valid(rev, "JSONRPCResponse", response);
    assert_valid(rev, "JSONRPCMessage", response);
    assert_valid(rev, "ServerResult", &response["result"]);
    if rev == Rev::V2026 {
        let per_method = match result_def {
            "InputRequiredResult" => None,
            "EmptyResult" => None,
            other => Some(format!("{other}Response")),
        };
        if let Some(name) = per_method.filter(|n| document(rev)["$defs"].get(n).is_some()) {
            assert_valid(rev, &name, response);
        }
    }
}

/// An `InputRequiredResult` response to `method`'s request (2026-07-28 only).
#[track_caller]
fn assert_input_required(response: &Value, response_def: &str) {
    assert_result(Rev::V2026, response, "InputRequiredResult");
    assert_valid(Rev::V2026, response_def, response);
    assert_eq!(response["result"]["resultType"], "input_required");
    for (key, request) in response["result"]["inputRequests"]
        .as_object()
        .into_iter()
        .flatten()
    {
        assert_valid(Rev::V2026, "InputRequest", request);
        let def = match request["method"].as_str() {
            Some("elicitation/create") => "ElicitRequest",
            Some("sampling/createMessage") => "CreateMessageRequest",
            Some("roots/list") => "ListRootsRequest",
            other => panic!("unexpected input request {key}: {other:?}"),
        };
        assert_valid(Rev::V2026, def, request);
    }
}

/// An error response with `code`, against the envelope and the code's own definition.
#[track_caller]
fn assert_error(rev: Rev, response: &Value, code: i64) {
    assert_eq!(response["error"]["code"], code, "{response}");
    assert_valid(rev, "JSONRPCErrorResponse", response);
    assert_valid(rev, "JSONRPCResponse", response);
    assert_valid(rev, "JSONRPCMessage", response);
    assert_valid(rev, "Error", &response["error"]);
    let specific = match (rev, code) {
        (Rev::V2026, -32700) => Some("ParseError"),
        (Rev::V2026, -32600) => Some("InvalidRequestError"),
        (Rev::V2026, -32601) => Some("MethodNotFoundError"),
        (Rev::V2026, -32602) => Some("InvalidParamsError"),
        (Rev::V2026, -32603) => Some("InternalError"),
        (Rev::V2026, -32021) => Some("MissingRequiredClientCapabilityError"),
        (Rev::V2026, -32022) => Some("UnsupportedProtocolVersionError"),
        _ => None,
    };
    if let Some(name) = specific {
        // Some of these describe the error object, others the whole response.
        let whole = document(rev)["$defs"][name]["properties"]
            .get("error")
            .is_some();
        let target = if whole { response } else { &response["error"] };
        assert_valid(rev, name, target);
    }
}

#[track_caller]
fn assert_notification(rev: Rev, message: &Value, def: &str) {
    assert_valid(rev, def, message);
    assert_valid(rev, "JSONRPCNotification", message);
    assert_valid(rev, "JSONRPCMessage", message);
    assert_valid(rev, "ServerNotification", message);
}

// ---------------------------------------------------------------------------------------------
// The helper itself can fail
// ---------------------------------------------------------------------------------------------

#[test]
fn the_helper_rejects_what_the_schema_forbids() {
    // 2026-07-28: resultType is required; 2025-11-25 has no such rule.
    let no_type = json!({"content":[{"type":"text","text":"x"}]});
    assert_invalid(Rev::V2026, "CallToolResult", &no_type);
    assert_valid(Rev::V2025, "CallToolResult", &no_type);
    // Cache hints are required on 2026 list results.
    assert_invalid(
        Rev::V2026,
        "ListToolsResult",
        &json!({"resultType":"complete","tools":[]}),
    );
    assert_invalid(
        Rev::V2026,
        "ParseError",
        &json!({"code":-32600,"message":"x"}),
    );
    assert_invalid(
        Rev::V2026,
        "InputRequiredResult",
        &json!({"resultType":"input_required","requestState":7}),
    );
    // Note: the schema does not pin `resultType` to "input_required" here (only the prose
    // does), so `{"resultType":"complete","requestState":"s"}` would pass; our server never
    // emits that (checked in assert_input_required).
    // The errors name where they are.
    let found = errors(
        Rev::V2026,
        "JSONRPCResultResponse",
        &json!({"jsonrpc":"2.0","id":null,"result":{}}),
    );
    assert!(found.iter().any(|e| e.contains("/id")), "{found:?}");
    assert!(found.len() >= 2, "{found:?}");
    // The same validator is reused.
    assert!(Arc::ptr_eq(
        &validator(Rev::V2025, "Tool"),
        &validator(Rev::V2025, "Tool")
    ));
}

// ---------------------------------------------------------------------------------------------
// A server with every feature
// ---------------------------------------------------------------------------------------------

/// Prompts, resources, templates and completion (the support server has only tools).
fn feature_server() -> Server {
    Server::builder(Implementation::new("feature-server", "1.0.0"))
        .instructions("Use the tools.")
        .list_tools(vec![
            Tool::new("echo", json!({"type":"object"})).with_description("Echoes"),
        ])
        .on_call_tool(
            |_, call| async move { Ok(CallToolResult::text(format!("called {}", call.name))) },
        )
        .list_prompts(vec![Prompt {
            name: "greet".into(),
            description: Some("Says hello".into()),
            ..Prompt::default()
        }])
        .on_get_prompt(|_, params| async move {
            if params.name == "later" {
                // Only requestState: "not done yet".
                let later = InputRequiredResult::new().with_state("round-2");
                return Ok(mcp_runtime::protocol::Outcome::InputRequired(later));
            }
            if params.name == "ask" {
                let ask = InputRequiredResult::new().ask(
                    "who",
                    InputRequest::Elicit(mcp_runtime::protocol::ElicitParams::form(
                        "Who?",
                        json!({"type":"object","properties":{"name":{"type":"string"}}}),
                    )),
                );
                return Ok(mcp_runtime::protocol::Outcome::InputRequired(ask));
            }
            Ok(GetPromptResult::new(vec![
                PromptMessage::user("Hello"),
                PromptMessage::assistant("Hi"),
            ])
            .into())
        })
        .list_resources(vec![Resource::new("file:///a.txt", "a")])
        .list_resource_templates(vec![ResourceTemplate {
            uri_template: "file:///{name}".into(),
            name: "files".into(),
            ..ResourceTemplate::default()
        }])
        .on_read_resource(|_, params| async move {
            match params.uri.as_str() {
                "file:///a.txt" => Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    "file:///a.txt",
                    "A",
                )])
                .into()),
                "file:///ask" => Ok(mcp_runtime::protocol::Outcome::InputRequired(
                    InputRequiredResult::new().ask("r", InputRequest::ListRoots),
                )),
                other => Err(mcp_runtime::protocol::McpError::resource_not_found(other)),
            }
        })
        .on_complete(|_, _| async { Ok(CompleteResult::values(vec!["alpha".into()])) })
        .build()
        .expect("the server builds")
}

fn initialize_params() -> Value {
    json!({"protocolVersion":"2025-11-25",
           "capabilities":{"elicitation":{},"sampling":{},"roots":{"listChanged":true}},
           "clientInfo":{"name":"old-client","version":"0.9"}})
}

/// Opens a 2025-11-25 session on `wire`, validating the initialize result.
async fn open_legacy(wire: &mut Wire) {
    let request =
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":initialize_params()});
    assert_valid(Rev::V2025, "InitializeRequest", &request);
    let reply = wire.call(0, "initialize", initialize_params()).await;
    assert_result(Rev::V2025, &reply, "InitializeResult");
    wire.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
}

/// Params of a request in `rev`: 2026 adds the required `_meta`.
fn params(rev: Rev, caps: Value, rest: Value) -> Value {
    let mut params = rest;
    if rev == Rev::V2026 {
        params["_meta"] = modern(caps);
    }
    params
}

// ---------------------------------------------------------------------------------------------
// The server, both generations
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn discover_validates() {
    let mut wire = Wire::start(1 << 20);
    let p = params(Rev::V2026, json!({}), json!({}));
    let reply = wire.call(1, "server/discover", p).await;
    assert_result(Rev::V2026, &reply, "DiscoverResult");
    let mut wire = Wire::with_server(feature_server());
    let p = params(Rev::V2026, json!({}), json!({}));
    let reply = wire.call(1, "server/discover", p).await;
    assert_result(Rev::V2026, &reply, "DiscoverResult");
}

#[tokio::test]
async fn the_support_server_validates_in_both_generations() {
    for rev in [Rev::V2026, Rev::V2025] {
        let mut wire = Wire::start(1 << 20);
        if rev == Rev::V2025 {
            open_legacy(&mut wire).await;
        }
        let caps = json!({"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}});

        // tools/list, every page.
        let mut cursor: Option<Value> = None;
        let mut last_page = false;
        for id in 1..10 {
            let mut p = params(rev, caps.clone(), json!({}));
            if let Some(c) = cursor.take() {
                p["cursor"] = c;
            }
            let reply = wire.call(id, "tools/list", p).await;
            assert_result(rev, &reply, "ListToolsResult");
            match reply["result"].get("nextCursor") {
                Some(c) => cursor = Some(c.clone()),
                None => {
                    last_page = true;
                    break;
                }
            }
        }
        assert!(last_page, "tools/list never reached its last page");

        // tools/call, complete.
        let p = params(
            rev,
            caps.clone(),
            json!({"name":"echo","arguments":{"text":"hi"}}),
        );
        let request = json!({"jsonrpc":"2.0","id":20,"method":"tools/call","params":p});
        assert_valid(rev, "CallToolRequest", &request);
        let reply = wire.call(20, "tools/call", p).await;
        assert_result(rev, &reply, "CallToolResult");

        // tools/call, input required (2026 only; a legacy session gets -32603).
        for (id, tool) in [(21, "ask"), (22, "ask_url"), (23, "sample")] {
            let p = params(rev, caps.clone(), json!({"name":tool}));
            let reply = wire.call(id, "tools/call", p).await;
            match rev {
                Rev::V2026 => assert_input_required(&reply, "CallToolResultResponse"),
                Rev::V2025 => assert_error(rev, &reply, -32603),
            }
        }

        // Unknown tool: -32602.
        let p = params(rev, caps.clone(), json!({"name":"nope"}));
        let reply = wire.call(30, "tools/call", p).await;
        assert_error(rev, &reply, -32602);

        // Prompts, resources, completion are not served: -32601.
        let p = params(rev, caps.clone(), json!({}));
        let reply = wire.call(31, "prompts/list", p).await;
        assert_error(rev, &reply, -32601);

        if rev == Rev::V2025 {
            let reply = wire.call(40, "ping", json!({})).await;
            assert_result(rev, &reply, "EmptyResult");
            let request = json!({"jsonrpc":"2.0","id":41,"method":"logging/setLevel",
                "params":{"level":"debug"}});
            assert_valid(rev, "SetLevelRequest", &request);
            let reply = wire
                .call(41, "logging/setLevel", json!({"level":"debug"}))
                .await;
            assert_result(rev, &reply, "EmptyResult");
            // A second initialize: -32600.
            let reply = wire.call(42, "initialize", initialize_params()).await;
            assert_error(rev, &reply, -32600);
        } else {
            // Methods removed in 2026: -32601.
            for method in ["ping", "logging/setLevel", "initialize"] {
                let p = params(rev, json!({}), json!({}));
                let reply = wire.call(40, method, p).await;
                assert_error(rev, &reply, -32601);
            }
        }
    }
}

#[tokio::test]
async fn the_feature_server_validates_in_both_generations() {
    for rev in [Rev::V2026, Rev::V2025] {
        let mut wire = Wire::with_server(feature_server());
        if rev == Rev::V2025 {
            open_legacy(&mut wire).await;
        }
        let caps = json!({"elicitation":{},"roots":{}});
        let cases = [
            ("prompts/list", json!({}), "ListPromptsResult"),
            ("prompts/get", json!({"name":"greet"}), "GetPromptResult"),
            ("resources/list", json!({}), "ListResourcesResult"),
            (
                "resources/templates/list",
                json!({}),
                "ListResourceTemplatesResult",
            ),
            (
                "resources/read",
                json!({"uri":"file:///a.txt"}),
                "ReadResourceResult",
            ),
            (
                "completion/complete",
                json!({"ref":{"type":"ref/prompt","name":"greet"},
                       "argument":{"name":"who","value":"a"}}),
                "CompleteResult",
            ),
            ("tools/list", json!({}), "ListToolsResult"),
            (
                "tools/call",
                json!({"name":"echo","arguments":{}}),
                "CallToolResult",
            ),
        ];
        for (id, (method, rest, result_def)) in (1..).zip(cases) {
            let p = params(rev, caps.clone(), rest);
            let request = json!({"jsonrpc":"2.0","id":id,"method":method,"params":p});
            assert_valid(rev, "ClientRequest", &request);
            let reply = wire.call(id, method, p).await;
            assert_result(rev, &reply, result_def);
        }
        if rev == Rev::V2026 {
            let p = params(rev, caps.clone(), json!({"name":"ask"}));
            let reply = wire.call(50, "prompts/get", p).await;
            assert_input_required(&reply, "GetPromptResultResponse");
            let p = params(rev, caps.clone(), json!({"name":"later"}));
            let reply = wire.call(53, "prompts/get", p).await;
            assert_input_required(&reply, "GetPromptResultResponse");
            assert!(reply["result"].get("inputRequests").is_none(), "{reply}");
            assert_eq!(reply["result"]["requestState"], "round-2");
            let p = params(rev, caps.clone(), json!({"uri":"file:///ask"}));
            let reply = wire.call(51, "resources/read", p).await;
            assert_input_required(&reply, "ReadResourceResultResponse");
        }
        // A missing resource: -32602 in 2026 (the legacy code -32002 is not in the schema).
        let p = params(rev, caps.clone(), json!({"uri":"file:///missing"}));
        let reply = wire.call(52, "resources/read", p).await;
        assert_valid(rev, "JSONRPCErrorResponse", &reply);
        if rev == Rev::V2026 {
            assert_error(rev, &reply, -32602);
        }
    }
}

#[tokio::test]
async fn every_error_response_validates() {
    let mut wire = Wire::start(1 << 20);
    // -32700: not JSON.
    wire.send_raw(b"{not json").await;
    let reply = wire.recv().await;
    assert_error(Rev::V2026, &reply, -32700);
    assert!(reply.get("id").is_none(), "no id, not a null one: {reply}");
    // -32600: not a request.
    wire.send(json!({"jsonrpc":"1.0","id":1,"method":"tools/list"}))
        .await;
    let reply = wire.recv().await;
    assert_error(Rev::V2026, &reply, -32600);
    wire.send(json!({"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}))
        .await;
    let reply = wire.recv().await;
    assert_error(Rev::V2026, &reply, -32600);
    // -32601: unknown method.
    let reply = wire
        .call(2, "no/such", json!({"_meta":modern(json!({}))}))
        .await;
    assert_error(Rev::V2026, &reply, -32601);
    // -32602: missing _meta, bad cursor, bad log level.
    let reply = wire.call(3, "tools/list", json!({})).await;
    assert_error(Rev::V2026, &reply, -32602);
    let reply = wire
        .call(
            4,
            "tools/list",
            json!({"_meta":modern(json!({})),"cursor":"nope"}),
        )
        .await;
    assert_error(Rev::V2026, &reply, -32602);
    let mut meta = modern(json!({}));
    meta["io.modelcontextprotocol/logLevel"] = json!("chatty");
    let reply = wire.call(5, "tools/list", json!({"_meta":meta})).await;
    assert_error(Rev::V2026, &reply, -32602);
    // -32602: a requestState that is not a string. (A forged *string* is accepted today:
    // the dispatcher passes state through unsealed.)
    let reply = wire
        .call(
            11,
            "tools/call",
            json!({"_meta":modern(json!({})),"name":"echo","requestState":7}),
        )
        .await;
    assert_error(Rev::V2026, &reply, -32602);
    // -32021: a capability the request did not declare.
    for (id, tool, caps) in [
        (6, "ask", json!({})),
        (7, "ask_url", json!({"elicitation":{}})),
        (8, "sample", json!({"roots":{}})),
    ] {
        let reply = wire
            .call(id, "tools/call", json!({"_meta":modern(caps),"name":tool}))
            .await;
        assert_error(Rev::V2026, &reply, -32021);
    }
    // -32022: a version we do not speak.
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2099-01-01",
                      "io.modelcontextprotocol/clientCapabilities":{}});
    let reply = wire.call(9, "tools/list", json!({"_meta":meta})).await;
    assert_error(Rev::V2026, &reply, -32022);
    // -32603: an InputRequiredResult with nothing in it.
    let reply = wire
        .call(
            10,
            "tools/call",
            json!({"_meta":modern(json!({})),"name":"empty_ask"}),
        )
        .await;
    assert_error(Rev::V2026, &reply, -32603);

    // Legacy session errors.
    let mut wire = Wire::start(1 << 20);
    open_legacy(&mut wire).await;
    let reply = wire.call(1, "server/discover", json!({})).await;
    assert_error(Rev::V2025, &reply, -32601);
    let reply = wire.call(2, "tools/call", json!({"name":"nope"})).await;
    assert_error(Rev::V2025, &reply, -32602);
}

#[tokio::test]
async fn progress_and_log_notifications_validate() {
    for rev in [Rev::V2026, Rev::V2025] {
        let mut wire = Wire::start(1 << 20);
        let mut p = json!({"name":"echo","arguments":{"text":"hi"}});
        match rev {
            Rev::V2026 => {
                let mut meta = modern(json!({}));
                meta["progressToken"] = json!("p1");
                meta["io.modelcontextprotocol/logLevel"] = json!("info");
                p["_meta"] = meta;
            }
            Rev::V2025 => {
                open_legacy(&mut wire).await;
                wire.call(1, "logging/setLevel", json!({"level":"info"}))
                    .await;
                p["_meta"] = json!({"progressToken":"p1"});
            }
        }
        wire.send(json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":p}))
            .await;
        let progress = wire.recv().await;
        assert_notification(rev, &progress, "ProgressNotification");
        let log = wire.recv().await;
        assert_notification(rev, &log, "LoggingMessageNotification");
        let reply = wire.recv().await;
        assert_result(rev, &reply, "CallToolResult");
    }
}

// ---------------------------------------------------------------------------------------------
// What our client sends
// ---------------------------------------------------------------------------------------------

/// A client whose every outgoing line is validated, answered by `answer`.
struct Capture {
    lines: Arc<Mutex<Vec<Value>>>,
}

fn capture_client(
    answer: fn(&Value) -> Value,
    capabilities: ClientCapabilities,
) -> (Client, Capture) {
    let (in_tx, in_rx) = mpsc::channel::<Frame>(16);
    let (out_tx, mut out_rx) = mpsc::channel::<String>(16);
    let lines = Arc::new(Mutex::new(Vec::new()));
    let seen = lines.clone();
    tokio::spawn(async move {
        while let Some(line) = out_rx.recv().await {
            let message: Value = serde_json::from_str(&line).expect("the client wrote JSON");
            seen.lock().expect("lock").push(message.clone());
            if let Some(id) = message.get("id") {
                let reply = json!({"jsonrpc":"2.0","id":id,"result":answer(&message)});
                if in_tx.send(Ok(reply.to_string())).await.is_err() {
                    break;
                }
            }
        }
    });
    let duplex = Duplex::new(in_rx, out_tx);
    let client = Client::builder(Implementation::new("test-client", "1.0.0"))
        .capabilities(capabilities)
        .connect(duplex);
    (client, Capture { lines })
}

fn canned(message: &Value) -> Value {
    match message["method"].as_str() {
        Some("initialize") => json!({"protocolVersion":"2025-11-25","capabilities":{},
            "serverInfo":{"name":"s","version":"1"}}),
        Some("server/discover") => json!({"resultType":"complete",
            "supportedVersions":["2026-07-28"],"capabilities":{},
            "serverInfo":{"name":"s","version":"1"},"ttlMs":0,"cacheScope":"private"}),
        Some("tools/list") => json!({"resultType":"complete","tools":[],"ttlMs":0,
            "cacheScope":"private"}),
        Some("prompts/get") => json!({"resultType":"complete","messages":[]}),
        Some("resources/read") => json!({"resultType":"complete","contents":[],"ttlMs":0,
            "cacheScope":"private"}),
        _ => json!({"resultType":"complete","content":[]}),
    }
}

#[tokio::test]
async fn requests_our_client_sends_validate() {
    let caps: ClientCapabilities = serde_json::from_value(
        json!({"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}),
    )
    .expect("capabilities");
    let (client, capture) = capture_client(canned, caps.clone());
    client.discover().await.expect("discover");
    client.list_tools(None).await.expect("tools/list");
    let mut answers = InputResponses::new();
    answers
        .insert(
            "region",
            ElicitResult::accept(
                json!({"region":"eu-west-1"})
                    .as_object()
                    .cloned()
                    .expect("object"),
            ),
        )
        .insert(
            "summary",
            json!({"role":"assistant","content":{"type":"text","text":"…"},"model":"m",
                   "stopReason":"endTurn"}),
        )
        .insert(
            "roots",
            json!({"roots":[{"uri":"file:///home/u/proj","name":"proj"}]}),
        );
    client
        .call_tool_once(
            "provision",
            Some(json!({"name":"orders"})),
            Some(answers),
            Some("opaque".into()),
        )
        .await
        .expect("tools/call");
    client
        .get_prompt_once("p", None, None, Some("s".into()))
        .await
        .expect("prompts/get");
    client
        .read_resource_once("file:///a", None, None)
        .await
        .expect("resources/read");
    let modern_lines = capture.lines.lock().expect("lock").clone();
    let defs = [
        "DiscoverRequest",
        "ListToolsRequest",
        "CallToolRequest",
        "GetPromptRequest",
        "ReadResourceRequest",
    ];
    assert_eq!(modern_lines.len(), defs.len(), "{modern_lines:?}");
    for (line, def) in modern_lines.iter().zip(defs) {
        assert_valid(Rev::V2026, def, line);
        assert_valid(Rev::V2026, "JSONRPCRequest", line);
        assert_valid(Rev::V2026, "ClientRequest", line);
    }
    let retry = &modern_lines[2]["params"];
    assert_eq!(retry["requestState"], "opaque");
    assert_valid(Rev::V2026, "InputResponses", &retry["inputResponses"]);

    // 2025-11-25: initialize, then notifications/initialized, then a plain call.
    let (client, capture) = capture_client(canned, caps);
    client.initialize().await.expect("initialize");
    client
        .call_tool_once("echo", Some(json!({})), None, None)
        .await
        .expect("tools/call");
    let legacy_lines = capture.lines.lock().expect("lock").clone();
    assert_eq!(legacy_lines.len(), 3, "{legacy_lines:?}");
    assert_valid(Rev::V2025, "InitializeRequest", &legacy_lines[0]);
    assert_valid(Rev::V2025, "ClientRequest", &legacy_lines[0]);
    assert_valid(Rev::V2025, "InitializedNotification", &legacy_lines[1]);
    assert_valid(Rev::V2025, "ClientNotification", &legacy_lines[1]);
    assert_valid(Rev::V2025, "CallToolRequest", &legacy_lines[2]);
}

// ---------------------------------------------------------------------------------------------
// The spec's examples, round-tripped
// ---------------------------------------------------------------------------------------------

/// Deserialises into `T`, serialises back, and insists nothing changed.
#[track_caller]
fn round_trip<T: Serialize + DeserializeOwned>(value: &Value) -> T {
    let typed: T = serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("{value} does not decode: {e}"));
    let back = serde_json::to_value(&typed).expect("serialises");
    assert_eq!(&back, value, "the round trip changed the value");
    typed
}

fn digest_interim() -> Value {
    json!({
      "resultType":"input_required",
      "inputRequests":{
        "region":{"method":"elicitation/create","params":{"mode":"form","message":"Which region?",
          "requestedSchema":{"type":"object","properties":{"region":{"type":"string"}},"required":["region"]}}},
        "summary":{"method":"sampling/createMessage","params":{"messages":[{"role":"user",
          "content":{"type":"text","text":"…"}}],"maxTokens":100}},
        "roots":{"method":"roots/list"}
      },
      "requestState":"<opaque, integrity-protected>"})
}

#[test]
fn the_digest_mrtr_example_round_trips_and_validates() {
    let interim = digest_interim();
    assert_valid(Rev::V2026, "InputRequiredResult", &interim);
    let typed: InputRequiredResult = round_trip(&interim);
    let methods: Vec<_> = typed.requests().map(|(k, r)| (k, r.method())).collect();
    assert_eq!(
        methods,
        [
            ("region", "elicitation/create"),
            ("roots", "roots/list"),
            ("summary", "sampling/createMessage")
        ]
    );
    let response = json!({"jsonrpc":"2.0","id":1,"result":interim});
    assert_valid(Rev::V2026, "CallToolResultResponse", &response);

    // Only requestState.
    let only_state =
        json!({"resultType":"input_required","requestState":"eyJwcm9ncmVzcyI6IjUwJSJ9"});
    assert_valid(Rev::V2026, "InputRequiredResult", &only_state);
    round_trip::<InputRequiredResult>(&only_state);

    // Round 2: the retry.
    let retry = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{
      "_meta":modern(json!({"elicitation":{},"sampling":{},"roots":{}})),
      "name":"provision","arguments":{"name":"orders"},
      "inputResponses":{
        "region":{"action":"accept","content":{"region":"eu-west-1"}},
        "summary":{"role":"assistant","content":{"type":"text","text":"…"},"model":"m","stopReason":"endTurn"},
        "roots":{"roots":[{"uri":"file:///home/u/proj","name":"proj"}]}},
      "requestState":"<opaque, integrity-protected>"}});
    assert_valid(Rev::V2026, "CallToolRequest", &retry);
    let responses: InputResponses = round_trip(&retry["params"]["inputResponses"]);
    // Each answer decodes by the method asked under its key.
    let region = responses
        .elicit("region")
        .expect("present")
        .expect("an ElicitResult");
    assert_eq!(
        serde_json::to_value(&region).expect("serialises"),
        retry["params"]["inputResponses"]["region"]
    );
    let summary = responses
        .sampling("summary")
        .expect("present")
        .expect("a CreateMessageResult");
    assert_eq!(summary.text(), Some("…"));
    let roots = responses
        .roots("roots")
        .expect("present")
        .expect("a ListRootsResult");
    assert_eq!(roots.roots.len(), 1);
    // Asked under the wrong key's method, it does not decode.
    assert!(responses.roots("region").expect("present").is_err());
    assert!(responses.sampling("roots").expect("present").is_err());

    let final_result = json!({"resultType":"complete","content":[{"type":"text","text":"done"}]});
    assert_valid(Rev::V2026, "CallToolResult", &final_result);
    round_trip::<CallToolResult>(&final_result);
}

#[test]
fn input_responses_round_trip_by_type() {
    let cases = [
        (
            "ElicitResult",
            json!({"action":"accept","content":{"a":"x","n":3,"b":true,"many":["p","q"]}}),
        ),
        ("ElicitResult", json!({"action":"decline"})),
        ("ElicitResult", json!({"action":"cancel"})),
        (
            "CreateMessageResult",
            json!({"role":"assistant","content":{"type":"text","text":"t"},"model":"m",
                   "stopReason":"maxTokens","_meta":{"k":1}}),
        ),
        (
            "CreateMessageResult",
            json!({"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],
                   "model":"m"}),
        ),
        (
            "ListRootsResult",
            json!({"roots":[{"uri":"file:///x"},{"uri":"file:///y","name":"y","_meta":{"k":1}}]}),
        ),
        ("ListRootsResult", json!({"roots":[]})),
    ];
    for (def, value) in cases {
        assert_valid(Rev::V2026, def, &value);
        assert_valid(Rev::V2026, "InputResponse", &value);
        match def {
            "ElicitResult" => drop(round_trip::<ElicitResult>(&value)),
            "CreateMessageResult" => drop(round_trip::<CreateMessageResult>(&value)),
            _ => drop(round_trip::<ListRootsResult>(&value)),
        }
    }
}

#[test]
fn url_elicitation_round_trips() {
    let interim = json!({"resultType":"input_required","inputRequests":{
        "login":{"method":"elicitation/create",
                 "params":{"mode":"url","message":"Sign in","url":"https://example.com/login"}}},
        "requestState":"s"});
    assert_valid(Rev::V2026, "InputRequiredResult", &interim);
    assert_valid(
        Rev::V2026,
        "ElicitRequest",
        &interim["inputRequests"]["login"],
    );
    round_trip::<InputRequiredResult>(&interim);
    // URL mode in 2026 has no elicitationId; the 2025 schema requires one.
    assert_invalid(
        Rev::V2025,
        "ElicitRequestURLParams",
        &interim["inputRequests"]["login"]["params"],
    );
}

#[test]
fn a_roots_input_request_with_an_extra_id_is_tolerated() {
    let with_id = json!({"resultType":"input_required","inputRequests":{
        "r":{"method":"roots/list","id":7}}});
    assert_valid(Rev::V2026, "InputRequiredResult", &with_id);
    let typed: InputRequiredResult =
        serde_json::from_value(with_id).expect("an extra id is tolerated");
    let back = serde_json::to_value(&typed).expect("serialises");
    assert_eq!(
        back,
        json!({"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}})
    );
    assert_valid(Rev::V2026, "InputRequiredResult", &back);
    // With params carrying _meta.
    let with_meta = json!({"resultType":"input_required","inputRequests":{"r":{"method":"roots/list",
            "params":{"_meta":{"k":1}}}}});
    assert_valid(Rev::V2026, "InputRequiredResult", &with_meta);
    let typed: InputRequiredResult = serde_json::from_value(with_meta).expect("decodes");
    assert!(matches!(
        typed.requests().next(),
        Some(("r", InputRequest::ListRoots))
    ));
}

#[test]
fn the_digest_discover_example_round_trips() {
    // DIGEST §5.2, verbatim.
    let request = json!({"jsonrpc":"2.0","id":"d1","method":"server/discover","params":{"_meta":{
      "io.modelcontextprotocol/protocolVersion":"2026-07-28",
      "io.modelcontextprotocol/clientCapabilities":{},
      "io.modelcontextprotocol/clientInfo":{"name":"C","version":"1"}}}});
    assert_valid(Rev::V2026, "DiscoverRequest", &request);
    let response = json!({"jsonrpc":"2.0","id":"d1","result":{"resultType":"complete",
      "supportedVersions":["2026-07-28"],
      "capabilities":{"tools":{},"resources":{}},
      "instructions":"optional LLM guidance",
      "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"S","version":"1"}},
      "ttlMs":3600000,"cacheScope":"public"}});
    assert_result(Rev::V2026, &response, "DiscoverResult");
    let typed: DiscoverResult = round_trip(&response["result"]);
    assert_eq!(typed.supported_versions, ["2026-07-28"]);
    // A richer one: extensions and list-changed flags survive too.
    let rich = json!({"resultType":"complete","supportedVersions":["2026-07-28"],
        "capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true},
                        "extensions":{"io.modelcontextprotocol/tasks":{}}},
        "ttlMs":0,"cacheScope":"private"});
    assert_valid(Rev::V2026, "DiscoverResult", &rich);
    round_trip::<DiscoverResult>(&rich);
}
