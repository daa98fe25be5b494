//! A parameter read only by another's `ask = …` is used: no "unused variable" warning (denied
//! here), on tools, prompts and templates alike.
#![deny(unused_variables)]

use mcp::{Elicit, McpServer};

/// Sure?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Sure {
    ok: bool,
}

#[mcp::tool]
async fn delete(
    name: String,
    reason: String,
    #[mcp(ask = format!("Delete {name} ({})?", reason))] sure: Elicit<Sure>,
) -> bool {
    sure.ok
}

#[mcp::prompt]
async fn review(topic: String, #[mcp(ask = format!("Review {topic:?}?"))] sure: Elicit<Sure>) -> String {
    format!("{}", sure.ok)
}

#[mcp::resource("plan://{env}")]
async fn plan(env: String, #[mcp(ask = format!("Show {env}?"))] sure: Elicit<Sure>) -> String {
    format!("{}", sure.ok)
}

fn main() {
    let _ = McpServer::new("asked")
        .tools(mcp::tools![delete])
        .prompts(mcp::prompts![review])
        .resources(mcp::resources![plan]);
}
