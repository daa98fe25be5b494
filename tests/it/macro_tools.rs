//! `#[mcp::tool]` functions served by `McpServer`, called through the in-memory client:
//! schemas, argument decoding, return conversions, the manual ask form, sealing by default.

use mcp::client::Client;
use mcp::protocol::{
    ElicitParams, ElicitResult, Implementation, InputRequest, InputResponses, ListToolsResult,
};
use mcp::{CallToolResult, Context, InputRequiredResult, Json, McpServer, Outcome};
use serde_json::{Value, json};

use crate::support::snapshot::assert_json_snapshot;

/// Echoes its text.
#[mcp::tool]
async fn echo(
    /// What to say back.
    text: String,
) -> String {
    text
}

/// Adds two integers.
#[mcp::tool(
    name = "math.add",
    title = "Add",
    read_only,
    idempotent,
    open_world = false
)]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Greets someone.
#[mcp::tool]
async fn greet(
    /// Who to greet.
    name: String,
    /// The greeting word.
    #[mcp(default = "Hello".to_owned())]
    greeting: String,
    /// Shout it.
    excited: Option<bool>,
    #[mcp(rename = "times", default)] repeat: u8,
) -> String {
    let mark = if excited.unwrap_or(false) { "!" } else { "." };
    format!("{greeting}, {name}{mark}").repeat(repeat.max(1).into())
}

/// Fails when asked to.
#[mcp::tool(destructive)]
async fn fallible(fail: bool) -> Result<&'static str, String> {
    if fail {
        Err("the disk is full".to_owned())
    } else {
        Ok("written")
    }
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Forecast {
    /// Degrees Celsius.
    celsius: f64,
    summary: String,
}

/// Tomorrow's weather.
#[mcp::tool]
async fn forecast(city: String) -> Json<Forecast> {
    Json(Forecast {
        celsius: 21.5,
        summary: format!("sunny in {city}"),
    })
}

/// Counts something.
#[mcp::tool]
async fn count() -> Json<u32> {
    Json(3)
}

/// Deploys after a confirmation it asks for by hand.
#[mcp::tool]
async fn deploy(env: String, ctx: Context) -> Result<String, InputRequiredResult> {
    let confirmed = ctx
        .input_responses()
        .filter(|_| ctx.request_state() == Some("awaiting-confirm"))
        .and_then(|r| r.elicit("confirm")?.ok())
        .and_then(|answer| answer.content)
        .and_then(|content| content.get("ok").and_then(Value::as_bool));
    match confirmed {
        Some(true) => Ok(format!("deployed to {env}")),
        Some(false) => Ok("cancelled".to_owned()),
        None => Err(InputRequiredResult::new()
            .ask(
                "confirm",
                InputRequest::Elicit(ElicitParams::form(
                    format!("Deploy to {env}?"),
                    json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
                )),
            )
            .with_state("awaiting-confirm")),
    }
}

/// Returns a hand-built result.
#[mcp::tool]
async fn raw() -> CallToolResult {
    CallToolResult::text("raw")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Window {
    /// Hours between runs.
    every_hours: u32,
    /// When to stop.
    until: Option<String>,
    /// Per-slot limits; a slot may be unlimited.
    slots: Vec<Option<u16>>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Plan {
    runs: u64,
    /// Always present; null when nothing was noted.
    note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<i32>,
    window: Option<Summary>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Summary {
    hours: u32,
    ratio: f32,
    limited_slots: usize,
}

/// Plans runs: nested, optional and sized types, as their schemas show them.
#[mcp::tool]
async fn schedule(
    name: String,
    window: Option<Window>,
    limit: Option<u64>,
    #[mcp(default = 1)] step: usize,
    weight: f64,
) -> Json<Plan> {
    Json(Plan {
        runs: limit.unwrap_or(10) / step.max(1) as u64,
        note: window
            .as_ref()
            .and_then(|w| w.until.as_ref())
            .map(|until| format!("{name} until {until}")),
        offset: None,
        window: window.map(|w| Summary {
            hours: w.every_hours,
            ratio: weight as f32,
            limited_slots: w.slots.iter().flatten().count(),
        }),
    })
}

fn server() -> McpServer {
    McpServer::new("macro-tools")
        .version("1.0.0")
        .tools(mcp::tools![
            echo, add, greet, fallible, forecast, count, deploy, raw, schedule
        ])
}

fn client() -> Client {
    let duplex = server().serve_in_memory().expect("a valid server");
    Client::builder(Implementation::new("test", "1.0.0"))
        .capabilities(
            serde_json::from_value(json!({"elicitation": {"form": {}}})).expect("capabilities"),
        )
        .connect(duplex)
}

async fn call(client: &Client, name: &str, args: Value) -> CallToolResult {
    match client
        .call_tool_once(name, Some(args), None, None)
        .await
        .expect("a result")
    {
        Outcome::Complete(result) => result,
        Outcome::InputRequired(ask) => panic!("unexpected ask: {ask:?}"),
    }
}

fn text(result: &CallToolResult) -> &str {
    result.content[0].as_text().expect("text content")
}

#[tokio::test]
async fn the_listing_matches_the_committed_snapshot() {
    let client = client();
    let listed: ListToolsResult = client.list_tools(None).await.expect("tools/list");
    let mut tools = listed.tools;
    let mut cursor = listed.next_cursor;
    while let Some(next) = cursor {
        let page = client.list_tools(Some(&next)).await.expect("next page");
        tools.extend(page.tools);
        cursor = page.next_cursor;
    }
    assert_json_snapshot("macro_tools", &tools);
}

#[tokio::test]
async fn arguments_decode_with_options_defaults_and_renames() {
    let client = client();
    assert_eq!(
        text(&call(&client, "echo", json!({"text": "hi"})).await),
        "hi"
    );
    assert_eq!(
        text(&call(&client, "math.add", json!({"a": 2, "b": 40})).await),
        "42"
    );
    let plain = call(&client, "greet", json!({"name": "Ada"})).await;
    assert_eq!(text(&plain), "Hello, Ada.");
    let full = json!({"name": "Ada", "greeting": "Hi", "excited": true, "times": 2});
    assert_eq!(
        text(&call(&client, "greet", full).await),
        "Hi, Ada!Hi, Ada!"
    );
}

#[tokio::test]
async fn bad_arguments_are_tool_errors_that_name_the_argument() {
    let client = client();
    let missing = call(&client, "echo", json!({})).await;
    assert_eq!(missing.is_error, Some(true));
    assert_eq!(
        text(&missing),
        "Invalid arguments for tool `echo`: missing required argument `text`"
    );
    let wrong = call(&client, "math.add", json!({"a": "two", "b": 1})).await;
    assert_eq!(wrong.is_error, Some(true));
    assert!(text(&wrong).contains("argument `a`"), "{}", text(&wrong));
    // The server keeps serving.
    assert_eq!(
        text(&call(&client, "echo", json!({"text": "ok"})).await),
        "ok"
    );
}

#[tokio::test]
async fn errors_become_is_error_results() {
    let client = client();
    let failed = call(&client, "fallible", json!({"fail": true})).await;
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(text(&failed), "the disk is full");
    let fine = call(&client, "fallible", json!({"fail": false})).await;
    assert_eq!(fine.is_error, None);
    assert_eq!(text(&fine), "written");
}

#[tokio::test]
async fn structured_output_carries_content_and_wraps_non_objects() {
    let client = client();
    let weather = call(&client, "forecast", json!({"city": "Lisbon"})).await;
    assert_eq!(
        weather.structured_content,
        Some(json!({"celsius": 21.5, "summary": "sunny in Lisbon"}))
    );
    let counted = call(&client, "count", json!({})).await;
    assert_eq!(counted.structured_content, Some(json!({"result": 3})));
    assert_eq!(text(&call(&client, "raw", json!({})).await), "raw");
}

#[tokio::test]
async fn an_explicit_null_is_an_absent_argument_and_outputs_match_their_schema() {
    let client = client();
    let listed: ListToolsResult = client.list_tools(None).await.expect("tools/list");
    let tool = listed
        .tools
        .iter()
        .find(|t| t.name == "schedule")
        .expect("schedule is listed");
    let output = tool.output_schema.as_deref().expect("an output schema");
    let validator = jsonschema::validator_for(output).expect("a valid output schema");
    // The schema leaves `null` out of optional arguments; a client that sends it anyway is
    // answered as if it had left the argument out.
    let absent = json!({"name": "n", "window": null, "limit": null, "step": null, "weight": 0.5});
    let plan = call(&client, "schedule", absent).await;
    assert_eq!(plan.is_error, None, "{plan:?}");
    let plan = plan.structured_content.expect("structured content");
    assert_eq!(plan, json!({"runs": 10, "note": null, "window": null}));
    assert!(validator.is_valid(&plan), "{plan} against {output}");
    let window = json!({"every_hours": 6, "until": "May", "slots": [3, null]});
    let given = json!({"name": "n", "window": window, "limit": 8, "step": 2, "weight": 0.5});
    let plan = call(&client, "schedule", given).await.structured_content;
    let plan = plan.expect("structured content");
    assert_eq!(
        plan,
        json!({
            "runs": 4,
            "note": "n until May",
            "window": {"hours": 6, "ratio": 0.5, "limited_slots": 1},
        })
    );
    assert!(validator.is_valid(&plan), "{plan} against {output}");
}

#[tokio::test]
async fn a_manual_ask_round_trips_through_sealed_state() {
    let client = client();
    let first = client
        .call_tool_once("deploy", Some(json!({"env": "prod"})), None, None)
        .await
        .expect("first round");
    let Outcome::InputRequired(ask) = first else {
        panic!("the first round asks");
    };
    let token = ask.request_state.clone().expect("a state");
    assert!(token.starts_with("v1."), "sealed by default: {token}");
    let mut answers = InputResponses::new();
    let ok = json!({"ok": true}).as_object().cloned().expect("object");
    answers.insert("confirm", ElicitResult::accept(ok));
    let second = client
        .call_tool_once(
            "deploy",
            Some(json!({"env": "prod"})),
            Some(answers.clone()),
            Some(token.clone()),
        )
        .await
        .expect("second round");
    let Outcome::Complete(done) = second else {
        panic!("the second round finishes");
    };
    assert_eq!(text(&done), "deployed to prod");
    // The same state on other arguments is refused with the fixed error.
    let replay = client
        .call_tool_once(
            "deploy",
            Some(json!({"env": "dev"})),
            Some(answers),
            Some(token),
        )
        .await;
    let error = replay.expect_err("rejected");
    assert!(
        error
            .to_string()
            .contains("Invalid or expired requestState"),
        "{error}"
    );
}

#[test]
fn duplicate_names_are_a_construction_error_naming_both() {
    let error = McpServer::new("dup")
        .tools(mcp::tools![echo, add, echo])
        .build()
        .expect_err("duplicate");
    assert_eq!(
        error.to_string(),
        "two tools are named `echo` (registrations #1 and #3); tool names must be unique"
    );
}

#[tokio::test]
async fn an_unknown_tool_is_invalid_params() {
    let client = client();
    let error = client
        .call_tool_once("nope", Some(json!({})), None, None)
        .await
        .expect_err("unknown");
    assert!(error.to_string().contains("Unknown tool: nope"), "{error}");
}

mod shared_state {
    use super::*;
    use mcp::State;

    struct Counter {
        start: u32,
    }

    struct Greeting(String);

    /// Adds to the shared counter's start.
    #[mcp::tool]
    async fn bump(by: u32, counter: State<Counter>, ctx: Context) -> String {
        let greeting = ctx
            .state::<Greeting>()
            .map(|g| g.0.clone())
            .unwrap_or_default();
        format!("{greeting} {}", counter.start + by)
    }

    #[tokio::test]
    async fn handlers_receive_registered_state() {
        let duplex = McpServer::new("stateful")
            .state(Counter { start: 40 })
            .state(Greeting("hi".into()))
            .tools(mcp::tools![bump])
            .serve_in_memory()
            .expect("valid");
        let client = Client::builder(Implementation::new("t", "1")).connect(duplex);
        let result = call(&client, "bump", json!({"by": 2})).await;
        assert_eq!(text(&result), "hi 42");
    }

    #[test]
    fn missing_state_is_a_build_error_naming_the_type() {
        let error = McpServer::new("stateless")
            .tools(mcp::tools![bump])
            .build()
            .expect_err("no Counter");
        let message = error.to_string();
        assert!(
            message.starts_with("tool `bump` takes `State<"),
            "{message}"
        );
        assert!(message.contains("Counter"), "{message}");
    }
}

mod protocol_errors {
    use super::*;
    use mcp::protocol::McpError;

    /// Refuses with a protocol error of its choosing.
    #[mcp::tool]
    async fn strict(value: i64) -> Result<i64, McpError> {
        if value < 0 {
            return Err(McpError::invalid_params("value must not be negative")
                .with_data(json!({"field": "value"})));
        }
        Ok(value)
    }

    #[tokio::test]
    async fn an_mcp_error_answers_with_that_json_rpc_error() {
        let duplex = McpServer::new("strict")
            .tools(mcp::tools![strict])
            .serve_in_memory()
            .expect("valid");
        let client = Client::builder(Implementation::new("t", "1")).connect(duplex);
        assert_eq!(
            text(&call(&client, "strict", json!({"value": 3})).await),
            "3"
        );
        let error = client
            .call_tool_once("strict", Some(json!({"value": -1})), None, None)
            .await
            .expect_err("a protocol error");
        let mcp::client::ClientError::Rpc(error) = error else {
            panic!("not a JSON-RPC error: {error}");
        };
        assert_eq!(error.code, -32602);
        assert_eq!(error.data, Some(json!({"field": "value"})));
    }
}

mod task_settings {
    use super::*;
    use mcp::protocol::ElicitResult;
    use mcp::server::TaskSupport;
    use mcp::{Elicit, Elicited};

    /// Go ahead?
    #[derive(serde::Deserialize, mcp::Elicitation)]
    struct Confirm {
        ok: bool,
    }

    /// Runs only as a task.
    #[mcp::tool(task = "required")]
    async fn build(target: String) -> String {
        target
    }

    /// Asks on the call itself, then may run as a task.
    #[mcp::tool(task = "optional", ask_before_task)]
    async fn release(
        version: String,
        #[mcp(ask = format!("Release {version}?"))] confirm: Elicited<Confirm>,
    ) -> String {
        match confirm {
            Elicited::Accepted(Confirm { ok: true }) => format!("released {version}"),
            _ => "not released".to_owned(),
        }
    }

    /// Never a task.
    #[mcp::tool]
    async fn status(sure: Elicit<Confirm>) -> String {
        format!("{}", sure.ok)
    }

    #[test]
    fn the_task_settings_reach_the_entry() {
        let [build, release, status] = mcp::tools![build, release, status];
        assert_eq!(build.task_support(), TaskSupport::Required);
        assert_eq!(release.task_support(), TaskSupport::Optional);
        assert_eq!(status.task_support(), TaskSupport::Forbidden);
        assert!(release.asks_before_task());
        assert!(!build.asks_before_task() && !status.asks_before_task());
    }

    /// Outside a task, a tool that asks before its task asks and answers like any other (the
    /// hook its wrapper calls before the body returns at once).
    #[tokio::test]
    async fn asking_before_the_task_is_a_plain_call_outside_one() {
        let duplex = McpServer::new("tasks")
            .tools(mcp::tools![release])
            .serve_in_memory()
            .expect("valid");
        // A client that takes no task: the call is answered in full.
        let client = Client::builder(Implementation::new("t", "1"))
            .capabilities(
                serde_json::from_value(json!({"elicitation": {"form": {}}})).expect("capabilities"),
            )
            .accept_tasks(false)
            .connect(duplex);
        let args = json!({"version": "1.2"});
        let first = client
            .call_tool_once("release", Some(args.clone()), None, None)
            .await
            .expect("r1");
        let Outcome::InputRequired(ask) = first else {
            panic!("answered without asking");
        };
        let keys: Vec<&str> = ask.requests().map(|(key, _)| key).collect();
        assert_eq!(keys, ["confirm"]);
        let mut answers = InputResponses::new();
        answers.insert(
            "confirm",
            ElicitResult::accept(json!({"ok": true}).as_object().cloned().expect("object")),
        );
        let second = client
            .call_tool_once("release", Some(args), Some(answers), ask.request_state)
            .await
            .expect("r2");
        let Outcome::Complete(result) = second else {
            panic!("asked again");
        };
        assert_eq!(text(&result), "released 1.2");
    }
}
