//! The fixture server for the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`): every tool, prompt and resource its server scenarios
//! call, on both wires (2026-07-28 stateless and 2025-11-25 sessions), built on the low-level
//! [`Server`].
//!
//! ```text
//! cargo run --release --example conformance_server -- --port 3001
//! # serves http://127.0.0.1:3001/mcp
//! ```
//!
//! `scripts/conformance.sh` starts it and runs the suite against it.

use std::time::Duration;

use mcp::protocol::{
    CallToolParams, CallToolResult, CompleteResult, ElicitAction, ElicitParams, GetPromptParams,
    GetPromptResult, Implementation, InputRequest, InputRequiredResult, InputResponses,
    LoggingLevel, McpError, Outcome, Prompt, ReadResourceParams, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};
use mcp::server::{RequestContext, Server};
use mcp::state::RequestStateSecurity;
use mcp::transport::http::HttpTransport;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
const STATIC_TEXT: &str = "This is the content of the static text resource.";

fn main() -> anyhow::Result<()> {
    let port = port_from_args()?;
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async move {
        let server = fixture_server()?;
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        eprintln!(
            "conformance server on http://{}/mcp",
            listener.local_addr()?
        );
        let ctrl_c = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        HttpTransport::new(server).serve(listener, ctrl_c).await?;
        Ok(())
    })
}

fn port_from_args() -> anyhow::Result<u16> {
    let mut args = std::env::args().skip(1);
    let mut port = 3001;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                let value = args
                    .next()
                    .ok_or_else(|| anyhow::anyhow!("--port needs a value"))?;
                port = value.parse()?;
            }
            other => anyhow::bail!("unknown argument {other:?} (usage: --port PORT)"),
        }
    }
    Ok(port)
}

fn fixture_server() -> anyhow::Result<Server> {
    let states = StateBook;
    // The runtime seals every requestState (AES-256-GCM with claims): with the deployment's
    // shared keys when MCP_REQUEST_STATE_KEYS is set, a per-process key otherwise.
    let security = match std::env::var_os("MCP_REQUEST_STATE_KEYS") {
        Some(_) => RequestStateSecurity::from_env("MCP_REQUEST_STATE_KEYS")?,
        None => RequestStateSecurity::ephemeral(),
    };
    let call_states = states;
    let prompt_states = states;
    Ok(Server::builder(Implementation::new(
        "mcp-rust-conformance",
        env!("CARGO_PKG_VERSION"),
    ))
    .request_state_security(security)?
    .tools(tools())
    .on_call_tool(move |ctx, call| {
        let states = call_states;
        async move { call_tool(ctx, call, &states).await }
    })
    .prompts(prompts()?)
    .on_get_prompt(move |_ctx, get| {
        let states = prompt_states;
        async move { get_prompt(get, &states) }
    })
    .resources(vec![
        resource("test://static-text", "static-text", "text/plain"),
        resource("test://static-binary", "static-binary", "image/png"),
        resource("test://watched-resource", "watched-resource", "text/plain"),
    ])
    .resource_templates(vec![from_json::<ResourceTemplate>(json!({
        "uriTemplate": "test://template/{id}/data",
        "name": "template",
        "mimeType": "application/json",
        "description": "A resource template with one parameter",
    }))?])
    .on_read_resource(|_ctx, read| async move { read_resource(read) })
    .on_complete(|_ctx, _params| async move {
        Ok(CompleteResult::values(vec!["test".into(), "test2".into()]))
    })
    .build())
}

// ---------------------------------------------------------------------------------------------
// Tools

fn tools() -> Vec<Tool> {
    let none = || json!({"type": "object", "properties": {}});
    let plain =
        |name: &str, description: &str| Tool::new(name, none()).with_description(description);
    let string_arg = |name: &str, arg: &str, description: &str| {
        Tool::new(
            name,
            json!({"type": "object", "properties": {arg: {"type": "string"}}, "required": [arg]}),
        )
        .with_description(description)
    };
    vec![
        plain("test_simple_text", "Returns a simple text response"),
        plain("test_image_content", "Returns an image"),
        plain("test_audio_content", "Returns an audio clip"),
        plain("test_embedded_resource", "Returns an embedded resource"),
        plain(
            "test_multiple_content_types",
            "Returns text, an image and a resource",
        ),
        plain("test_error_handling", "Always fails with a tool error"),
        plain("test_tool_with_progress", "Reports progress three times"),
        plain(
            "test_tool_with_logging",
            "Logs three messages while it runs",
        ),
        plain(
            "test_missing_capability",
            "Needs the client's sampling capability",
        ),
        plain(
            "test_streaming_elicitation",
            "Finishes without asking the client anything",
        ),
        plain(
            "test_logging_tool",
            "Logs only when the request asks for a log level",
        ),
        string_arg(
            "test_sampling",
            "prompt",
            "Asks the client's model (2025-11-25 sessions)",
        ),
        string_arg(
            "test_elicitation",
            "message",
            "Asks the user (2025-11-25 sessions)",
        ),
        plain(
            "test_elicitation_sep1034_defaults",
            "Elicitation with defaults (2025-11-25)",
        ),
        plain(
            "test_elicitation_sep1330_enums",
            "Elicitation with enum forms (2025-11-25)",
        ),
        plain(
            "test_input_required_result_elicitation",
            "Asks for the user's name",
        ),
        plain(
            "test_input_required_result_sampling",
            "Asks the client's model a question",
        ),
        plain(
            "test_input_required_result_list_roots",
            "Asks for the client's roots",
        ),
        plain(
            "test_input_required_result_request_state",
            "Asks for confirmation, with state",
        ),
        plain(
            "test_input_required_result_multiple_inputs",
            "Asks three things at once",
        ),
        plain(
            "test_input_required_result_multi_round",
            "Asks two questions in two rounds",
        ),
        plain(
            "test_input_required_result_tampered_state",
            "Rejects a tampered requestState",
        ),
        plain(
            "test_input_required_result_capabilities",
            "Asks only what the client supports",
        ),
        Tool::new(
            "test_x_mcp_header",
            json!({"type": "object",
                   "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
                   "required": ["region"]}),
        )
        .with_description("Echoes a region that is mirrored into the Mcp-Param-Region header"),
        Tool::new("json_schema_2020_12_tool", json_schema_2020_12())
            .with_description("A tool whose input schema uses JSON Schema 2020-12 keywords"),
    ]
}

fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

async fn call_tool(
    ctx: RequestContext,
    call: CallToolParams,
    states: &StateBook,
) -> Result<Outcome<CallToolResult>, McpError> {
    let done = |result: CallToolResult| Ok(Outcome::Complete(result));
    let responses = call.input_responses.clone().unwrap_or_default();
    match call.name.as_str() {
        "test_simple_text" => done(CallToolResult::text(
            "This is a simple text response for testing.",
        )),
        "test_image_content" => done(content(json!([
            {"type": "image", "data": PNG, "mimeType": "image/png"}
        ]))?),
        "test_audio_content" => done(content(json!([
            {"type": "audio", "data": WAV, "mimeType": "audio/wav"}
        ]))?),
        "test_embedded_resource" => done(content(json!([{"type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain",
            "text": "This is an embedded resource content."}}]))?),
        "test_multiple_content_types" => done(content(json!([
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "test://mixed-content-resource",
                "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}
        ]))?),
        "test_error_handling" => done(CallToolResult::error(
            "This tool intentionally returns an error for testing",
        )),
        "test_tool_with_progress" => {
            for step in [0.0, 50.0, 100.0] {
                ctx.progress(step, Some(100.0), None).await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            done(CallToolResult::text("Progress complete"))
        }
        "test_tool_with_logging" => {
            for message in [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ] {
                ctx.log(LoggingLevel::Info, Some("conformance"), json!(message))
                    .await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            done(CallToolResult::text("Logging complete"))
        }
        "test_logging_tool" => {
            ctx.log(
                LoggingLevel::Info,
                Some("conformance"),
                json!("test_logging_tool ran"),
            )
            .await;
            done(CallToolResult::text(
                "Logged (if a log level was requested)",
            ))
        }
        "test_missing_capability" => {
            if !ctx.client_capabilities().supports_sampling() {
                return Err(McpError::missing_capability(
                    "test_missing_capability needs the sampling capability",
                    &from_json(json!({"sampling": {}}))?,
                ));
            }
            done(CallToolResult::text("The client can sample"))
        }
        "test_streaming_elicitation" => done(CallToolResult::text(
            "Finished without asking the client anything",
        )),
        "test_sampling" => {
            if !ctx.client_capabilities().supports_sampling() {
                return done(CallToolResult::error(
                    "The client does not support sampling",
                ));
            }
            let prompt = argument(&call, "prompt").unwrap_or_default();
            let answer: mcp::protocol::CreateMessageResult = ctx
                .request_client(
                    "sampling/createMessage",
                    &mcp::protocol::CreateMessageParams::prompt(prompt, 100),
                )
                .await?;
            let text = answer.text().unwrap_or("(no text)");
            done(CallToolResult::text(format!("LLM response: {text}")))
        }
        "test_elicitation" => {
            let message = argument(&call, "message").unwrap_or_default();
            let schema = json!({"type": "object", "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}},
                "required": ["username", "email"]});
            let (action, content) = elicit_back(&ctx, message, schema).await?;
            done(CallToolResult::text(format!(
                "User response: action={action}, content={content}"
            )))
        }
        "test_elicitation_sep1034_defaults" => {
            let schema = json!({"type": "object", "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"],
                           "default": "active"},
                "verified": {"type": "boolean", "default": true}}});
            let (action, content) = elicit_back(&ctx, "Please review your details", schema).await?;
            done(CallToolResult::text(format!(
                "Elicitation completed: action={action}, content={content}"
            )))
        }
        "test_elicitation_sep1330_enums" => {
            let schema = json!({"type": "object", "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}]},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                               "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array",
                                  "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}]}}}});
            let (action, content) = elicit_back(&ctx, "Pick some options", schema).await?;
            done(CallToolResult::text(format!(
                "Elicitation completed: action={action}, content={content}"
            )))
        }
        "test_x_mcp_header" => {
            let region = argument(&call, "region").unwrap_or("unknown");
            done(CallToolResult::text(format!("Region: {region}")))
        }
        "json_schema_2020_12_tool" => done(CallToolResult::text("Schema accepted")),
        "test_input_required_result_elicitation" => {
            match responses.get("user_name").map(|v| name_from(v, "name")) {
                Some(Ok(Some(name))) => done(CallToolResult::text(format!("Hello, {name}!"))),
                Some(Err(e)) => Err(e),
                _ => Ok(ask_name("user_name", "What is your name?").into()),
            }
        }
        "test_input_required_result_sampling" => match responses.sampling("capital_question") {
            Some(answer) => {
                let answer = answer?;
                let text = answer.text().unwrap_or("(no text)");
                done(CallToolResult::text(format!("Model said: {text}")))
            }
            None => Ok(InputRequiredResult::new()
                .ask("capital_question", capital_question())
                .into()),
        },
        "test_input_required_result_list_roots" => match responses.roots("client_roots") {
            Some(roots) => {
                let count = roots?.roots.len();
                done(CallToolResult::text(format!(
                    "Client exposed {count} root(s)."
                )))
            }
            None => Ok(InputRequiredResult::new()
                .ask("client_roots", InputRequest::ListRoots)
                .into()),
        },
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => {
            let state = states.open(call.request_state.as_deref())?;
            match (state, responses.get("confirm")) {
                (Some(_), Some(_)) => done(CallToolResult::text("Confirmed: state-ok")),
                _ => Ok(ask_confirm()
                    .with_state(states.mint(json!({"step": "confirm"})))
                    .into()),
            }
        }
        "test_input_required_result_multiple_inputs" => {
            let state = states.open(call.request_state.as_deref())?;
            let all = ["user_name", "greeting", "client_roots"]
                .iter()
                .all(|k| responses.get(k).is_some());
            if state.is_some() && all {
                return done(CallToolResult::text("Received all three answers"));
            }
            Ok(ask_name("user_name", "What is your name?")
                .ask(
                    "greeting",
                    InputRequest::CreateMessage(Box::new(
                        mcp::protocol::CreateMessageParams::prompt("Generate a greeting", 50),
                    )),
                )
                .ask("client_roots", InputRequest::ListRoots)
                .with_state(states.mint(json!({"step": "all"})))
                .into())
        }
        "test_input_required_result_multi_round" => multi_round(&call, &responses, states),
        "test_input_required_result_capabilities" => {
            if call.input_responses.as_ref().is_some_and(|r| !r.is_empty()) {
                return done(CallToolResult::text("Received the answers"));
            }
            let caps = ctx.client_capabilities();
            let mut ask = InputRequiredResult::new();
            if caps.supports_sampling() {
                ask = ask.ask("capital_question", capital_question());
            }
            if caps.supports_form_elicitation() {
                ask = ask.ask("user_name", name_request("What is your name?"));
            }
            if ask.requests().next().is_none() {
                return done(CallToolResult::text(
                    "The client declared nothing this tool could ask for",
                ));
            }
            Ok(ask.with_state(states.mint(json!({"step": "caps"}))).into())
        }
        other => Err(McpError::invalid_params(format!("Unknown tool: {other}"))),
    }
}

fn multi_round(
    call: &CallToolParams,
    responses: &InputResponses,
    states: &StateBook,
) -> Result<Outcome<CallToolResult>, McpError> {
    let restart = || {
        Ok(ask_name("step1", "Step 1: What is your name?")
            .with_state(states.mint(json!({"round": 1})))
            .into())
    };
    let Some(state) = states.open(call.request_state.as_deref())? else {
        return restart();
    };
    match state.get("round").and_then(Value::as_u64) {
        Some(1) => match responses.get("step1").map(|v| name_from(v, "name")) {
            Some(Ok(Some(name))) => Ok(InputRequiredResult::new()
                .ask(
                    "step2",
                    InputRequest::Elicit(ElicitParams::form(
                        "Step 2: What is your favorite color?",
                        json!({"type": "object", "properties": {"color": {"type": "string"}},
                               "required": ["color"]}),
                    )),
                )
                .with_state(states.mint(json!({"round": 2, "name": name})))
                .into()),
            _ => restart(),
        },
        Some(2) => match responses.get("step2").map(|v| name_from(v, "color")) {
            Some(Ok(Some(color))) => {
                let name = state
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("someone");
                Ok(CallToolResult::text(format!("{name} likes {color}")).into())
            }
            _ => restart(),
        },
        _ => restart(),
    }
}

/// Asks the user over a 2025-11-25 session's back-channel; returns the action and the content
/// as JSON text.
async fn elicit_back(
    ctx: &RequestContext,
    message: &str,
    schema: Value,
) -> Result<(String, String), McpError> {
    if !ctx.client_capabilities().supports_form_elicitation() {
        return Err(McpError::invalid_params(
            "The client does not support elicitation",
        ));
    }
    let answer: Value = ctx
        .request_client("elicitation/create", &ElicitParams::form(message, schema))
        .await?;
    let action = answer["action"].as_str().unwrap_or("unknown").to_owned();
    let content = answer.get("content").cloned().unwrap_or(Value::Null);
    Ok((action, content.to_string()))
}

fn capital_question() -> InputRequest {
    InputRequest::CreateMessage(Box::new(mcp::protocol::CreateMessageParams::prompt(
        "What is the capital of France?",
        100,
    )))
}

fn name_request(message: &str) -> InputRequest {
    InputRequest::Elicit(ElicitParams::form(
        message,
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    ))
}

fn ask_name(key: &str, message: &str) -> InputRequiredResult {
    InputRequiredResult::new().ask(key, name_request(message))
}

fn ask_confirm() -> InputRequiredResult {
    InputRequiredResult::new().ask(
        "confirm",
        InputRequest::Elicit(ElicitParams::form(
            "Please confirm",
            json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
        )),
    )
}

/// Reads `content.<field>` from an accepted elicitation answer. A malformed answer is an
/// error; a declined one, or one without the field, asks again.
fn name_from(answer: &Value, field: &str) -> Result<Option<String>, McpError> {
    let answer: mcp::protocol::ElicitResult = serde_json::from_value(answer.clone())
        .map_err(|e| McpError::invalid_params(format!("Malformed elicitation answer: {e}")))?;
    if answer.action != ElicitAction::Accept {
        return Ok(None);
    }
    Ok(answer
        .content
        .as_ref()
        .and_then(|c| c.get(field))
        .and_then(Value::as_str)
        .map(str::to_owned))
}

fn argument<'a>(call: &'a CallToolParams, name: &str) -> Option<&'a str> {
    call.arguments.as_ref()?.get(name)?.as_str()
}

fn content(blocks: Value) -> Result<CallToolResult, McpError> {
    Ok(CallToolResult::new(from_json(blocks)?))
}

// ---------------------------------------------------------------------------------------------
// Prompts

fn prompts() -> Result<Vec<Prompt>, McpError> {
    let prompt = |name: &str, description: &str, args: Value| -> Result<Prompt, McpError> {
        let mut p: Prompt =
            from_json(json!({"name": name, "description": description, "arguments": args}))?;
        if p.arguments.as_ref().is_some_and(Vec::is_empty) {
            p.arguments = None;
        }
        Ok(p)
    };
    let required = |name: &str, description: &str| json!({"name": name, "description": description, "required": true});
    [
        prompt(
            "test_simple_prompt",
            "A prompt without arguments",
            json!([]),
        ),
        prompt(
            "test_prompt_with_arguments",
            "A prompt with two required arguments",
            json!([
                required("arg1", "First argument"),
                required("arg2", "Second argument")
            ]),
        ),
        prompt(
            "test_prompt_with_embedded_resource",
            "A prompt that embeds a resource",
            json!([required("resourceUri", "URI of the resource to embed")]),
        ),
        prompt(
            "test_prompt_with_image",
            "A prompt with an image",
            json!([]),
        ),
        prompt(
            "test_input_required_result_prompt",
            "A prompt that asks the user for context first",
            json!([]),
        ),
    ]
    .into_iter()
    .collect()
}

fn get_prompt(
    get: GetPromptParams,
    _states: &StateBook,
) -> Result<Outcome<GetPromptResult>, McpError> {
    let arg = |name: &str| {
        get.arguments
            .as_ref()
            .and_then(|a| a.get(name))
            .cloned()
            .ok_or_else(|| McpError::invalid_params(format!("Missing argument {name}")))
    };
    let messages = match get.name.as_str() {
        "test_simple_prompt" => json!([
            {"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}
        ]),
        "test_prompt_with_arguments" => {
            let text = format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                arg("arg1")?,
                arg("arg2")?
            );
            json!([{"role": "user", "content": {"type": "text", "text": text}}])
        }
        "test_prompt_with_embedded_resource" => json!([
            {"role": "user", "content": {"type": "resource", "resource": {
                "uri": arg("resourceUri")?, "mimeType": "text/plain",
                "text": "Embedded resource content for testing."}}},
            {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}}
        ]),
        "test_prompt_with_image" => json!([
            {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}}
        ]),
        "test_input_required_result_prompt" => {
            let responses = get.input_responses.clone().unwrap_or_default();
            match responses
                .get("user_context")
                .map(|v| name_from(v, "context"))
            {
                Some(Ok(Some(context))) => json!([{"role": "user", "content": {"type": "text",
                    "text": format!("Use this context: {context}")}}]),
                Some(Err(e)) => return Err(e),
                _ => {
                    return Ok(InputRequiredResult::new()
                        .ask(
                            "user_context",
                            InputRequest::Elicit(ElicitParams::form(
                                "What context should the prompt use?",
                                json!({"type": "object", "properties": {"context": {"type": "string"}},
                                       "required": ["context"]}),
                            )),
                        )
                        .into());
                }
            }
        }
        other => return Err(McpError::invalid_params(format!("Unknown prompt: {other}"))),
    };
    Ok(GetPromptResult::new(from_json(messages)?).into())
}

// ---------------------------------------------------------------------------------------------
// Resources

fn resource(uri: &str, name: &str, mime_type: &str) -> Resource {
    let mut r = Resource::new(uri, name);
    r.mime_type = Some(mime_type.to_owned());
    r.description = Some(format!("The {name} fixture resource"));
    r
}

fn read_resource(read: ReadResourceParams) -> Result<Outcome<ReadResourceResult>, McpError> {
    let uri = read.uri.as_str();
    let contents = match uri {
        "test://static-text" => {
            json!([{"uri": uri, "mimeType": "text/plain", "text": STATIC_TEXT}])
        }
        "test://static-binary" => json!([{"uri": uri, "mimeType": "image/png", "blob": PNG}]),
        "test://watched-resource" => {
            json!([{"uri": uri, "mimeType": "text/plain", "text": "Watched resource content"}])
        }
        _ => match uri
            .strip_prefix("test://template/")
            .and_then(|rest| rest.strip_suffix("/data"))
            .filter(|id| !id.is_empty() && !id.contains('/'))
        {
            Some(id) => {
                let text =
                    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                json!([{"uri": uri, "mimeType": "application/json", "text": text.to_string()}])
            }
            None => return Err(McpError::resource_not_found(uri)),
        },
    };
    Ok(ReadResourceResult::new(from_json(contents)?).into())
}

// ---------------------------------------------------------------------------------------------
// Request state

/// The fixture's request states: plaintext JSON that the runtime seals on the way out and
/// verifies and opens on the way back, so a state that reaches a handler is one this server
/// minted for this very call.
#[derive(Clone, Copy)]
struct StateBook;

impl StateBook {
    fn mint(&self, payload: Value) -> String {
        payload.to_string()
    }

    /// `Ok(None)` when no state was sent. The boundary already rejected anything forged, so a
    /// state that does not parse is a fixture bug.
    fn open(&self, state: Option<&str>) -> Result<Option<Value>, McpError> {
        state
            .map(|s| {
                serde_json::from_str(s).map_err(|e| McpError::internal(format!("fixture bug: {e}")))
            })
            .transpose()
    }
}

// ---------------------------------------------------------------------------------------------

fn from_json<T: DeserializeOwned>(value: Value) -> Result<T, McpError> {
    serde_json::from_value(value).map_err(|e| McpError::internal(format!("fixture bug: {e}")))
}
