//! The tasks extension's settings: `task = "…"` alone, and with `ask_before_task` on a tool
//! with a Resolve parameter.

use mcp::{Context, Elicit, McpServer};

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

/// Asks on the call, then runs as a task when the client can.
#[mcp::tool(task = "optional", ask_before_task)]
async fn deploy(
    env: String,
    ctx: Context,
    #[mcp(ask = format!("Deploy to {env}?"))] confirm: Elicit<Confirm>,
) -> String {
    let _ = ctx.protocol_version();
    format!("{env}: {}", confirm.ok)
}

/// Spelled out: the defaults.
#[mcp::tool(task = "forbidden", ask_before_task = false)]
async fn ping() -> &'static str {
    "pong"
}

fn main() {
    let _ = McpServer::new("tasks").tools(mcp::tools![build, deploy, ping]);
}
