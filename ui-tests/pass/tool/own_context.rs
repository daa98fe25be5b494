//! Parameters are classified by their types' traits, not their names: a user's own `Context`
//! (or `State<T>`) deriving `Deserialize + JsonSchema` is an ordinary argument, in the input
//! schema and decoded from the call, while `mcp::Context`, a `use`-renamed alias of it and
//! `mcp::State<T>` are filled by the runtime and never in the schema.

use mcp::client::Client;
use mcp::protocol::Implementation;
use mcp::{CallToolResult, McpServer, Outcome};
use serde_json::{Value, json};

/// Where the call comes from (the user's own type, named like the runtime's).
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Context {
    /// The caller's team.
    team: String,
}

/// A user's own generic type named `State`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct State<T> {
    value: T,
}

mod runtime {
    pub use mcp::Context as Ctx;
}
use runtime::Ctx;

struct Greeting(&'static str);

/// Greets a team.
#[mcp::tool]
async fn greet(
    /// Who is asking.
    context: Context,
    state: State<u8>,
    ctx: mcp::Context,
    again: Ctx,
    greeting: mcp::State<Greeting>,
) -> String {
    let _ = (ctx.request_id(), again.protocol_version());
    format!("{} {} #{}", greeting.0, context.team, state.value)
}

/// A prompt whose runtime context is renamed.
#[mcp::prompt]
async fn brief(topic: String, ctx: Ctx) -> String {
    format!("{topic} {}", ctx.protocol_version().is_empty())
}

/// A resource template whose runtime context is renamed.
#[mcp::resource("teams://{team}")]
async fn team(team: String, ctx: Ctx) -> String {
    format!("{team} {}", ctx.protocol_version().is_empty())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let [entry] = mcp::tools![greet];
    let schema = serde_json::to_value(&*entry.tool().input_schema).expect("a schema");
    let properties = schema["properties"].as_object().expect("properties");
    let names: Vec<&str> = properties.keys().map(String::as_str).collect();
    assert_eq!(names, ["context", "state"], "{schema}");
    assert_eq!(schema["required"], json!(["context", "state"]), "{schema}");
    assert_eq!(properties["context"]["description"], "Who is asking.", "{schema}");

    let duplex = McpServer::new("teams")
        .state(Greeting("Hello"))
        .tools([entry])
        .prompts(mcp::prompts![brief])
        .resources(mcp::resources![team])
        .serve_in_memory()
        .expect("a server");
    let client = Client::builder(Implementation::new("t", "1")).connect(duplex);
    let arguments = json!({"context": {"team": "infra"}, "state": {"value": 7}});
    let result: CallToolResult = match client
        .call_tool_once("greet", Some(arguments), None, None)
        .await
        .expect("a result")
    {
        Outcome::Complete(result) => result,
        Outcome::InputRequired(ask) => panic!("unexpected ask: {ask:?}"),
    };
    assert_eq!(
        result.content[0].as_text(),
        Some("Hello infra #7"),
        "{:?}",
        serde_json::to_value(&result).unwrap_or(Value::Null)
    );
}
