//! Every supported prompt shape compiles and registers.

use mcp::{Context, GetPromptResult, InputRequiredResult, McpServer, Outcome, PromptMessage};

/// No arguments.
#[mcp::prompt]
async fn plain() -> &'static str {
    "hello"
}

#[mcp::prompt(name = "greet.formal", title = "Greeting", description = "A formal greeting.")]
async fn greet(name: String, #[mcp(rename = "honorific")] title: Option<String>) -> String {
    format!("{} {name}", title.unwrap_or_default())
}

/// Arguments parsed with `FromStr`, required and optional, and renamed.
#[mcp::prompt]
async fn typed(
    days: u32,
    verbose: Option<bool>,
    #[mcp(rename = "ratio")] share: Option<f64>,
    addr: std::net::IpAddr,
) -> String {
    format!("{days} {verbose:?} {share:?} {addr}")
}

#[mcp::prompt]
async fn messages() -> Vec<PromptMessage> {
    vec![PromptMessage::user("a")]
}

#[mcp::prompt]
async fn one() -> PromptMessage {
    PromptMessage::user("a")
}

#[mcp::prompt]
async fn full() -> GetPromptResult {
    GetPromptResult::new(vec![])
}

#[mcp::prompt]
async fn fallible() -> Result<String, std::fmt::Error> {
    Ok(String::new())
}

#[mcp::prompt]
async fn manual(ctx: Context) -> Result<Vec<PromptMessage>, InputRequiredResult> {
    let _ = ctx.input_responses();
    Err(InputRequiredResult::new().with_state("x"))
}

#[mcp::prompt]
async fn outcome(topic: String) -> Outcome<GetPromptResult> {
    Outcome::Complete(GetPromptResult::new(vec![PromptMessage::user(topic)]))
}

fn main() {
    let _ = McpServer::new("p")
        .prompts(mcp::prompts![plain, greet, typed, messages, one, full, fallible, manual, outcome])
        .build();
}
