//! The fixture server for the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`): every tool, prompt and resource its server scenarios
//! call, on both wires (2026-07-28 stateless and 2025-11-25 sessions), written with the
//! `#[mcp::tool]`, `#[mcp::prompt]` and `#[mcp::resource]` macros and served by [`McpServer`].
//!
//! ```text
//! cargo run --release --example conformance_server -- --port 3001
//! # serves http://127.0.0.1:3001/mcp
//! ```
//!
//! `scripts/conformance.sh` starts it and runs the suite against it, three ways: as it is,
//! `--mounted` (the fixture mounted with an empty prefix in a gateway server, beside a second
//! server under the prefix `extra`), and `--proxied` (the fixture served in this process
//! behind an in-memory transport, reached through our `Client` by `mcp::proxy::proxy`, over
//! 2026-07-28; `--proxied-legacy` reaches it in a 2025-11-25 session instead, which is what
//! carries the fixture's own requests to a 2025-11-25 caller).
//!
//! Fixtures that simply ask and then answer take Resolve parameters (`Elicit`, `Elicited`,
//! `Sample`, `ListRoots`), keyed as the suite expects. Those whose wire behaviour the suite pins
//! round by round (answers accepted without any state, a restart on a stale round, questions
//! that depend on the client's capabilities) build their `InputRequiredResult` by hand.

#[path = "support/logging.rs"]
mod logging;

use std::time::Duration;

use mcp::BoxFuture;
use mcp::protocol::{
    CallToolParams, CallToolResult, CompleteResult, ContentBlock, ElicitAction, ElicitParams,
    ElicitResult, InputRequest, LoggingLevel, McpError, Outcome, Tool,
};
use mcp::server::ToolEntry;
use mcp::state::RequestStateSecurity;
use mcp::transport::http::HttpTransport;
use mcp::{
    Context, CreateMessageParams, Elicit, Elicited, InputRequiredResult, ListRoots, McpServer,
    PromptMessage, ResourceContents, Sample,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
const STATIC_TEXT: &str = "This is the content of the static text resource.";

fn main() -> anyhow::Result<()> {
    logging::init();
    let (port, serving) = args()?;
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async move {
        let server = match serving {
            Serving::Direct => fixture()?.build()?,
            Serving::Mounted => mounted()?,
            Serving::Proxied { legacy } => proxied(legacy).await?,
        };
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

/// How the fixture is served.
enum Serving {
    Direct,
    Mounted,
    /// Through a proxy whose client reaches the fixture over 2026-07-28, or with `legacy` in a
    /// 2025-11-25 session.
    Proxied {
        legacy: bool,
    },
}

fn args() -> anyhow::Result<(u16, Serving)> {
    let mut args = std::env::args().skip(1);
    let mut port = 3001;
    let mut serving = Serving::Direct;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                let value = args
                    .next()
                    .ok_or_else(|| anyhow::anyhow!("--port needs a value"))?;
                port = value.parse()?;
            }
            "--mounted" => serving = Serving::Mounted,
            "--proxied" => serving = Serving::Proxied { legacy: false },
            "--proxied-legacy" => serving = Serving::Proxied { legacy: true },
            other => anyhow::bail!(
                "unknown argument {other:?} (usage: --port PORT [--mounted | --proxied | \
                 --proxied-legacy])"
            ),
        }
    }
    Ok((port, serving))
}

/// The fixture mounted with an empty prefix (the suite calls its tools by their own names)
/// beside another server under a prefix, so that routing really chooses between two, tasks
/// included (the fixture's read `:{id}` in the gateway, the sibling's `extra:{id}`).
fn mounted() -> anyhow::Result<mcp::server::Server> {
    let gateway = McpServer::new("mcp-rust-conformance-gateway")
        .version(env!("CARGO_PKG_VERSION"))
        .mount("", fixture()?)
        .mount(
            "extra",
            McpServer::new("mcp-rust-conformance-extra").tools(mcp::tools![echo, echo_task]),
        );
    Ok(gateway.build()?)
}

/// The fixture behind an in-memory transport, reached through our client by a proxy; with
/// `legacy`, in a 2025-11-25 session.
async fn proxied(legacy: bool) -> anyhow::Result<mcp::server::Server> {
    let (near, far) = mcp::transport::memory::pair();
    let fixture = fixture()?.build()?;
    tokio::spawn(async move { fixture.serve(far).await });
    let capabilities = serde_json::from_value(json!({
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "roots": {}
    }))?;
    let client = mcp::client::Client::builder(mcp::protocol::Implementation::new(
        "mcp-rust-conformance-proxy",
        env!("CARGO_PKG_VERSION"),
    ))
    .capabilities(capabilities)
    .accept_tasks(false)
    .connect(near);
    if legacy {
        client.initialize().await?;
    }
    let proxy = mcp::proxy::proxy("mcp-rust-conformance-proxy", client).await?;
    Ok(proxy.version(env!("CARGO_PKG_VERSION")).build()?)
}

/// Echoes its text (the mounted fixture's sibling, listed as `extra_echo`).
#[mcp::tool]
async fn echo(text: String) -> String {
    text
}

/// Echoes its text, as a task when the caller takes one (`extra_echo_task`): with it, the
/// fixture's sibling serves tasks too, in a store of its own.
#[mcp::tool(task = "optional")]
async fn echo_task(text: String) -> String {
    text
}

fn fixture() -> anyhow::Result<McpServer> {
    // Several instances behind one URL must open each other's states, so a deployment passes
    // shared keys; a lone process can make up its own.
    let security = match std::env::var_os("MCP_REQUEST_STATE_KEYS") {
        Some(_) => RequestStateSecurity::from_env("MCP_REQUEST_STATE_KEYS")?,
        None => RequestStateSecurity::ephemeral(),
    };
    let server = McpServer::new("mcp-rust-conformance")
        .version(env!("CARGO_PKG_VERSION"))
        .request_state_security(security)
        .tools(mcp::tools![
            test_simple_text,
            test_image_content,
            test_audio_content,
            test_embedded_resource,
            test_multiple_content_types,
            test_error_handling,
            test_tool_with_progress,
            test_tool_with_logging,
            test_missing_capability,
            test_streaming_elicitation,
            test_logging_tool,
            test_sampling,
            test_elicitation,
            test_elicitation_sep1034_defaults,
            test_elicitation_sep1330_enums,
            test_input_required_result_elicitation,
            test_input_required_result_sampling,
            test_input_required_result_list_roots,
            test_input_required_result_request_state,
            test_input_required_result_multiple_inputs,
            test_input_required_result_multi_round,
            test_input_required_result_tampered_state,
            test_input_required_result_capabilities,
            test_x_mcp_header,
            greet,
            slow_compute,
            failing_job,
            protocol_error_job,
            confirm_delete,
            multi_input,
            test_tool_with_task,
            test_trigger_tool_change,
            test_trigger_prompt_change,
        ])
        .tools([json_schema_2020_12_tool()])
        .prompts(mcp::prompts![
            test_simple_prompt,
            test_prompt_with_arguments,
            test_prompt_with_embedded_resource,
            test_prompt_with_image,
            test_input_required_result_prompt,
        ])
        // `caching` reads the first listed resource, so a readable one leads.
        .resources(mcp::resources![
            static_text,
            static_binary,
            watched_resource,
            template
        ])
        .on_complete(|_ctx, _params| async move {
            Ok(CompleteResult::values(vec!["test".into(), "test2".into()]))
        });
    Ok(server)
}

// ---------------------------------------------------------------------------------------------
// Tools: content

/// Returns a simple text response
#[mcp::tool]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image
#[mcp::tool]
async fn test_image_content() -> Result<Vec<ContentBlock>, McpError> {
    from_json(json!([{"type": "image", "data": PNG, "mimeType": "image/png"}]))
}

/// Returns an audio clip
#[mcp::tool]
async fn test_audio_content() -> Result<Vec<ContentBlock>, McpError> {
    from_json(json!([{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]))
}

/// Returns an embedded resource
#[mcp::tool]
async fn test_embedded_resource() -> Result<Vec<ContentBlock>, McpError> {
    from_json(json!([{"type": "resource", "resource": {
        "uri": "test://embedded-resource", "mimeType": "text/plain",
        "text": "This is an embedded resource content."}}]))
}

/// Returns text, an image and a resource
#[mcp::tool]
async fn test_multiple_content_types() -> Result<Vec<ContentBlock>, McpError> {
    from_json(json!([
        {"type": "text", "text": "Multiple content types test:"},
        {"type": "image", "data": PNG, "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "test://mixed-content-resource",
            "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}
    ]))
}

/// Always fails with a tool error
#[mcp::tool]
async fn test_error_handling() -> Result<&'static str, &'static str> {
    Err("This tool intentionally returns an error for testing")
}

// ---------------------------------------------------------------------------------------------
// Tools: notifications and capabilities

/// Reports progress three times
#[mcp::tool]
async fn test_tool_with_progress(ctx: Context) -> &'static str {
    for step in [0.0, 50.0, 100.0] {
        ctx.progress(step, Some(100.0), None).await;
        // The suite checks the notifications arrive as separate events.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "Progress complete"
}

/// Logs three messages while it runs
#[mcp::tool]
async fn test_tool_with_logging(ctx: Context) -> &'static str {
    for message in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ] {
        ctx.log(LoggingLevel::Info, Some("conformance"), json!(message))
            .await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "Logging complete"
}

/// Logs only when the request asks for a log level
#[mcp::tool]
async fn test_logging_tool(ctx: Context) -> &'static str {
    // The runtime drops the message unless the request set a log level, which is what the
    // suite checks.
    ctx.log(
        LoggingLevel::Info,
        Some("conformance"),
        json!("test_logging_tool ran"),
    )
    .await;
    "Logged (if a log level was requested)"
}

/// Needs the client's sampling capability
#[mcp::tool]
async fn test_missing_capability(
    // A Sample parameter is what makes the runtime refuse a client without sampling with
    // -32021 and `requiredCapabilities: {sampling: {}}` before the function runs.
    #[mcp(ask = CreateMessageParams::prompt("Say hello", 20))] hello: Sample,
) -> String {
    format!(
        "The client can sample: {}",
        hello.text().unwrap_or("(no text)")
    )
}

/// Finishes without asking the client anything
#[mcp::tool]
async fn test_streaming_elicitation() -> &'static str {
    "Finished without asking the client anything"
}

// ---------------------------------------------------------------------------------------------
// Tools: 2025-11-25 back-channel (the runtime sends the Resolve questions as real requests)

/// Asks the client's model (2025-11-25 sessions)
#[mcp::tool]
async fn test_sampling(
    // Underscored because only the `ask` expression reads it, which rustc does not see as a use.
    /// What to ask the model.
    #[mcp(rename = "prompt")]
    _prompt: String,
    #[mcp(ask = CreateMessageParams::prompt(_prompt.clone(), 100))] answer: Sample,
) -> String {
    format!("LLM response: {}", answer.text().unwrap_or("(no text)"))
}

// The question is the caller's `message` argument; this one only satisfies the derive.
#[derive(Debug, serde::Serialize, serde::Deserialize, mcp::Elicitation)]
#[elicitation(message = "Please provide your details")]
struct UserResponse {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Asks the user (2025-11-25 sessions)
#[mcp::tool]
async fn test_elicitation(
    // Underscored because only the `ask` expression reads it, which rustc does not see as a use.
    /// The question shown to the user.
    #[mcp(rename = "message")]
    _message: String,
    #[mcp(ask = _message.clone())] answer: Elicited<UserResponse>,
) -> Result<String, serde_json::Error> {
    let (action, content) = described(answer)?;
    Ok(format!("User response: action={action}, content={content}"))
}

#[derive(Debug, serde::Serialize, serde::Deserialize, mcp::Elicitation)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// Please review your details
#[derive(Debug, serde::Serialize, serde::Deserialize, mcp::Elicitation)]
struct Details {
    #[elicitation(default = "John Doe")]
    name: String,
    #[elicitation(default = 30)]
    age: i64,
    #[elicitation(default = 95.5)]
    score: f64,
    #[elicitation(default = "active")]
    status: Status,
    #[elicitation(default = true)]
    verified: bool,
}

/// Elicitation with defaults (2025-11-25)
#[mcp::tool]
async fn test_elicitation_sep1034_defaults(
    details: Elicited<Details>,
) -> Result<String, serde_json::Error> {
    let (action, content) = described(details)?;
    Ok(format!(
        "Elicitation completed: action={action}, content={content}"
    ))
}

/// Elicitation with enum forms (2025-11-25)
#[mcp::tool]
async fn test_elicitation_sep1330_enums(ctx: Context) -> Result<String, McpError> {
    // The legacy `enumNames` form is hand-written: `derive(Elicitation)` only emits the
    // current `oneOf`/`anyOf` forms.
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
    if !ctx.client_capabilities().supports_form_elicitation() {
        return Err(McpError::invalid_params(
            "The client does not support elicitation",
        ));
    }
    let answer: ElicitResult = ctx
        .request_client(
            "elicitation/create",
            &ElicitParams::form("Pick some options", schema),
        )
        .await?;
    let content = answer.content.map(Value::Object).unwrap_or(Value::Null);
    Ok(format!(
        "Elicitation completed: action={}, content={content}",
        action_name(&answer.action)
    ))
}

/// The action and the accepted content as JSON text, as the back-channel fixtures report them.
fn described<T: serde::Serialize>(
    answer: Elicited<T>,
) -> Result<(&'static str, String), serde_json::Error> {
    Ok(match answer {
        Elicited::Accepted(content) => ("accept", serde_json::to_string(&content)?),
        Elicited::Declined => ("decline", "null".to_owned()),
        Elicited::Cancelled => ("cancel", "null".to_owned()),
    })
}

fn action_name(action: &ElicitAction) -> &'static str {
    match action {
        ElicitAction::Accept => "accept",
        ElicitAction::Decline => "decline",
        ElicitAction::Cancel => "cancel",
    }
}

// ---------------------------------------------------------------------------------------------
// Tools: input_required (SEP-2322), Resolve form

/// What is your name?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct Name {
    name: String,
}

/// Please confirm
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct Confirm {
    ok: bool,
}

/// Asks the client's model a question
#[mcp::tool]
async fn test_input_required_result_sampling(
    #[mcp(key = "capital_question")]
    #[mcp(ask = CreateMessageParams::prompt("What is the capital of France?", 100))]
    answer: Sample,
) -> String {
    format!("Model said: {}", answer.text().unwrap_or("(no text)"))
}

/// Asks for the client's roots
#[mcp::tool]
async fn test_input_required_result_list_roots(
    #[mcp(key = "client_roots")] roots: ListRoots,
) -> String {
    format!("Client exposed {} root(s).", roots.len())
}

/// Asks for confirmation, with state
#[mcp::tool]
async fn test_input_required_result_request_state(
    // The runtime carries the question in a sealed requestState, which is what this scenario
    // checks for.
    #[mcp(key = "confirm")] confirm: Elicited<Confirm>,
) -> String {
    match confirm {
        Elicited::Accepted(Confirm { ok: true }) => "Confirmed: state-ok".to_owned(),
        _ => "Not confirmed: state-ok".to_owned(),
    }
}

/// Rejects a tampered requestState
#[mcp::tool]
async fn test_input_required_result_tampered_state(
    // A state that fails verification never reaches the function: the runtime answers the
    // JSON-RPC error the scenario wants.
    #[mcp(key = "confirm")] confirm: Elicited<Confirm>,
) -> &'static str {
    match confirm {
        Elicited::Accepted(Confirm { ok: true }) => "Confirmed: state-ok",
        _ => "Not confirmed",
    }
}

/// Asks three things at once
#[mcp::tool]
async fn test_input_required_result_multiple_inputs(
    #[mcp(key = "user_name")] name: Elicit<Name>,
    #[mcp(key = "greeting")]
    #[mcp(ask = CreateMessageParams::prompt("Generate a greeting", 50))]
    greeting: Sample,
    #[mcp(key = "client_roots")] roots: ListRoots,
) -> String {
    format!(
        "Received all three answers: {}, {:?}, {} root(s)",
        name.name,
        greeting.text().unwrap_or("(no text)"),
        roots.len()
    )
}

// ---------------------------------------------------------------------------------------------
// Tools: input_required (SEP-2322), manual form

/// Asks for the user's name
#[mcp::tool]
async fn test_input_required_result_elicitation(
    ctx: Context,
) -> Result<String, InputRequiredResult> {
    // Manual because missing-input-response and ignore-extra-params answer without any
    // requestState, and a Resolve parameter only trusts an answer pinned to its sealed state.
    match ctx
        .input_responses()
        .and_then(|r| r.get("user_name"))
        .and_then(|v| answered_field(v, "name"))
    {
        Some(name) => Ok(format!("Hello, {name}!")),
        None => Err(ask_name("user_name", "What is your name?")),
    }
}

/// Asks two questions in two rounds
#[mcp::tool]
async fn test_input_required_result_multi_round(
    ctx: Context,
) -> Result<String, InputRequiredResult> {
    // Manual because the suite wants exactly one question per round, and a stale or partial
    // answer to restart at step 1 rather than re-ask the missing step.
    let restart =
        || ask_name("step1", "Step 1: What is your name?").with_state(round_state(1, None));
    let Some(state) = ctx
        .request_state()
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
    else {
        return Err(restart());
    };
    let answer = |key: &str, field: &str| {
        ctx.input_responses()
            .and_then(|r| r.get(key))
            .and_then(|v| answered_field(v, field))
    };
    match state.get("round").and_then(Value::as_u64) {
        Some(1) => match answer("step1", "name") {
            Some(name) => Err(InputRequiredResult::new()
                .ask(
                    "step2",
                    form(
                        "Step 2: What is your favorite color?",
                        json!({"type": "object", "properties": {"color": {"type": "string"}},
                               "required": ["color"]}),
                    ),
                )
                .with_state(round_state(2, Some(&name)))),
            None => Err(restart()),
        },
        Some(2) => match answer("step2", "color") {
            Some(color) => {
                let name = state
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("someone");
                Ok(format!("{name} likes {color}"))
            }
            None => Err(restart()),
        },
        _ => Err(restart()),
    }
}

/// Asks only what the client supports
#[mcp::tool]
async fn test_input_required_result_capabilities(
    ctx: Context,
) -> Result<String, InputRequiredResult> {
    // Manual because a Resolve parameter makes its capability mandatory (-32021), while this
    // scenario wants the questions the client cannot answer left out instead.
    if ctx.input_responses().is_some_and(|r| !r.is_empty()) {
        return Ok("Received the answers".to_owned());
    }
    let caps = ctx.client_capabilities();
    let mut ask = InputRequiredResult::new();
    if caps.supports_sampling() {
        ask = ask.ask(
            "capital_question",
            InputRequest::CreateMessage(Box::new(CreateMessageParams::prompt(
                "What is the capital of France?",
                100,
            ))),
        );
    }
    if caps.supports_form_elicitation() {
        ask = ask.ask("user_name", name_request("What is your name?"));
    }
    if ask.requests().next().is_none() {
        return Ok("The client declared nothing this tool could ask for".to_owned());
    }
    Err(ask.with_state(json!({"step": "caps"}).to_string()))
}

fn round_state(round: u8, name: Option<&str>) -> String {
    json!({"round": round, "name": name}).to_string()
}

fn form(message: &str, schema: Value) -> InputRequest {
    InputRequest::Elicit(ElicitParams::form(message, schema))
}

fn name_request(message: &str) -> InputRequest {
    form(
        message,
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    )
}

fn ask_name(key: &str, message: &str) -> InputRequiredResult {
    InputRequiredResult::new().ask(key, name_request(message))
}

/// `content.<field>` of an accepted elicitation answer; anything else (a malformed answer, a
/// decline, a missing field) is no answer, so the caller asks again.
fn answered_field(answer: &Value, field: &str) -> Option<String> {
    let answer: ElicitResult = serde_json::from_value(answer.clone()).ok()?;
    if answer.action != ElicitAction::Accept {
        return None;
    }
    answer
        .content?
        .get(field)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

// ---------------------------------------------------------------------------------------------
// Tools: input schemas

/// A string argument mirrored into the `Mcp-Param-Region` header (SEP-2243), which needs the
/// `x-mcp-header` keyword on its property.
#[derive(Debug, serde::Deserialize)]
struct HeaderRegion(String);

impl schemars::JsonSchema for HeaderRegion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HeaderRegion".into()
    }

    // Inline, because the keyword must sit on the property itself, not behind a `$ref`.
    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "x-mcp-header": "Region"})
    }
}

/// Echoes a region that is mirrored into the Mcp-Param-Region header
#[mcp::tool]
async fn test_x_mcp_header(region: HeaderRegion) -> String {
    format!("Region: {}", region.0)
}

/// `json_schema_2020_12_tool`, registered without the macro: the suite wants its input schema
/// listed byte for byte, with root keywords (`$schema`, `$defs`, `allOf`, `if`/`then`/`else`,
/// `additionalProperties`) that a function's parameters cannot produce.
fn json_schema_2020_12_tool() -> ToolEntry {
    fn call(
        _ctx: Context,
        _call: CallToolParams,
    ) -> BoxFuture<Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async { Ok(CallToolResult::text("Schema accepted").into()) })
    }
    let mut tool = Tool::new("json_schema_2020_12_tool", json_schema_2020_12());
    tool.description = Some("A tool whose input schema uses JSON Schema 2020-12 keywords".into());
    ToolEntry::from_tool(tool, call)
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

// ---------------------------------------------------------------------------------------------
// Tools: tasks (SEP-2663, the `io.modelcontextprotocol/tasks` extension)

/// Greets someone, at once
#[mcp::tool]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Works for `seconds` seconds, then answers; a task for clients that take one
#[mcp::tool(task = "optional")]
async fn slow_compute(seconds: u64, label: Option<String>) -> String {
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let label = label.unwrap_or_else(|| "job".into());
    format!("Computed {label} in {seconds} s")
}

/// Fails after about a second, as a tool does (`isError`); only ever a task
#[mcp::tool(task = "required")]
async fn failing_job() -> Result<&'static str, &'static str> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("The job failed: its input was rejected")
}

/// Ends in a protocol error, as a crashed backend would
#[mcp::tool(task = "optional")]
async fn protocol_error_job() -> Result<&'static str, McpError> {
    Err(McpError::internal("The job's backend crashed"))
}

/// Delete this file?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct ConfirmDelete {
    confirm: bool,
}

/// Deletes a file once the user confirms, asking inside the task
#[mcp::tool(task = "optional")]
async fn confirm_delete(filename: String, confirm: Elicit<ConfirmDelete>) -> String {
    match confirm.confirm {
        true => format!("Deleted {filename}"),
        false => format!("Kept {filename}"),
    }
}

/// Who are you, and do you confirm?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct NameAndConfirm {
    name: String,
    confirm: bool,
}

/// Asks two questions at once, inside the task
#[mcp::tool(task = "optional")]
async fn multi_input(
    #[mcp(key = "first")] first: Elicit<NameAndConfirm>,
    #[mcp(key = "second")] second: Elicit<NameAndConfirm>,
) -> String {
    let said = |answer: &NameAndConfirm| match answer.confirm {
        true => format!("{} (confirmed)", answer.name),
        false => format!("{} (not confirmed)", answer.name),
    };
    format!("Received {} and {}", said(&first), said(&second))
}

/// Asks the user's name on the call, then works on as a task
#[mcp::tool(task = "required", ask_before_task)]
async fn test_tool_with_task(#[mcp(key = "user_name")] name: Elicit<Name>) -> String {
    tokio::time::sleep(Duration::from_millis(200)).await;
    format!("Hello, {}!", name.name)
}

// ---------------------------------------------------------------------------------------------
// Prompts

/// A prompt without arguments
#[mcp::prompt]
async fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// Adds `test_dynamic_tool`, or removes it if it is there: the tools listing changes on
/// every call, which the suite's listen must hear (SEP-2575).
#[mcp::tool]
async fn test_trigger_tool_change(ctx: Context) -> Result<&'static str, McpError> {
    let server = ctx.server();
    let changed = match server.remove_tool("test_dynamic_tool") {
        Ok(true) => Ok("Removed test_dynamic_tool"),
        Ok(false) => server
            .add_tools(mcp::tools![test_dynamic_tool])
            .map(|()| "Added test_dynamic_tool"),
        Err(error) => Err(error),
    };
    changed.map_err(|e| McpError::internal(e.to_string()))
}

/// Comes and goes with `test_trigger_tool_change`.
#[mcp::tool]
async fn test_dynamic_tool() -> &'static str {
    "Here for now"
}

/// Adds `test_dynamic_prompt`, or removes it if it is there (as `test_trigger_tool_change`
/// does with a tool).
#[mcp::tool]
async fn test_trigger_prompt_change(ctx: Context) -> Result<&'static str, McpError> {
    let server = ctx.server();
    let changed = match server.remove_prompt("test_dynamic_prompt") {
        Ok(true) => Ok("Removed test_dynamic_prompt"),
        Ok(false) => server
            .add_prompts(mcp::prompts![test_dynamic_prompt])
            .map(|()| "Added test_dynamic_prompt"),
        Err(error) => Err(error),
    };
    changed.map_err(|e| McpError::internal(e.to_string()))
}

/// Comes and goes with `test_trigger_prompt_change`.
#[mcp::prompt]
async fn test_dynamic_prompt() -> &'static str {
    "Here for now"
}

/// A prompt with two required arguments
#[mcp::prompt]
async fn test_prompt_with_arguments(
    /// First argument
    arg1: String,
    /// Second argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt that embeds a resource
#[mcp::prompt]
async fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed
    #[mcp(rename = "resourceUri")]
    resource_uri: String,
) -> Result<Vec<PromptMessage>, McpError> {
    from_json(json!([
        {"role": "user", "content": {"type": "resource", "resource": {
            "uri": resource_uri, "mimeType": "text/plain",
            "text": "Embedded resource content for testing."}}},
        {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}}
    ]))
}

/// A prompt with an image
#[mcp::prompt]
async fn test_prompt_with_image() -> Result<Vec<PromptMessage>, McpError> {
    from_json(json!([
        {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
        {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}}
    ]))
}

/// What context should the prompt use?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct UserContext {
    context: String,
}

/// A prompt that asks the user for context first
#[mcp::prompt]
async fn test_input_required_result_prompt(
    #[mcp(key = "user_context")] user_context: Elicit<UserContext>,
) -> String {
    format!("Use this context: {}", user_context.context)
}

// ---------------------------------------------------------------------------------------------
// Resources

/// The static-text fixture resource
#[mcp::resource("test://static-text", name = "static-text", mime_type = "text/plain")]
async fn static_text() -> &'static str {
    STATIC_TEXT
}

/// The static-binary fixture resource
#[mcp::resource(
    "test://static-binary",
    name = "static-binary",
    mime_type = "image/png"
)]
async fn static_binary() -> Result<ResourceContents, McpError> {
    from_json(json!({"uri": "test://static-binary", "mimeType": "image/png", "blob": PNG}))
}

/// The watched-resource fixture resource
#[mcp::resource(
    "test://watched-resource",
    name = "watched-resource",
    mime_type = "text/plain"
)]
async fn watched_resource() -> &'static str {
    "Watched resource content"
}

/// A resource template with one parameter
#[mcp::resource(
    "test://template/{id}/data",
    name = "template",
    mime_type = "application/json"
)]
async fn template(id: String) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

// ---------------------------------------------------------------------------------------------

fn from_json<T: DeserializeOwned>(value: Value) -> Result<T, McpError> {
    serde_json::from_value(value).map_err(|e| McpError::internal(format!("fixture bug: {e}")))
}
