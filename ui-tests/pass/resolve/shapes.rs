//! Every Resolve shape compiles: forms, outcomes, URLs, sampling, roots, dependencies, keys,
//! on tools, prompts and templates.

use mcp::{CreateMessageParams, Elicit, ElicitUrl, Elicited, ListRoots, McpServer, Sample};

/// Which region?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Region {
    region: String,
}

/// Sure?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Sure {
    ok: bool,
}

#[mcp::tool]
async fn provision(
    name: String,
    #[mcp(ask = format!("Where should {name} live?"))] region: Elicit<Region>,
    #[mcp(ask = format!("{name} in {}?", region.region), key = "confirm")] sure: Elicited<Sure>,
    ctx: mcp::Context,
) -> Result<String, String> {
    let _ = ctx.request_id();
    match sure {
        Elicited::Accepted(Sure { ok: true }) => Ok(format!("{name} in {}", region.region)),
        _ => Err("no".into()),
    }
}

#[mcp::tool]
async fn research(
    topic: String,
    #[mcp(ask = CreateMessageParams::prompt(format!("About {topic}"), 100))] notes: Sample,
    roots: ListRoots,
) -> String {
    format!("{topic} {:?} {}", notes.text(), roots.len())
}

#[mcp::tool]
async fn link(
    account: String,
    #[mcp(ask = ElicitUrl::ask(format!("Sign in to {account}"), "https://example.com/connect"))]
    sign_in: ElicitUrl,
    #[mcp(ask = format!("Link {account} via {}?", sign_in.url()))] sure: Elicit<Sure>,
) -> String {
    sign_in.complete().await;
    format!("{account} {}", sure.ok)
}

#[mcp::prompt]
async fn brief(topic: String, sure: Elicit<Sure>) -> String {
    format!("{topic} {}", sure.ok)
}

#[mcp::resource("deploy://{env}/plan")]
async fn plan(env: String, #[mcp(ask = format!("Plan {env}?"))] sure: Elicit<Sure>) -> String {
    format!("{env} {}", sure.ok)
}

#[mcp::resource("deploy://{env}/approve")]
async fn approve(
    env: String,
    #[mcp(ask = ElicitUrl::ask("Approve", format!("https://example.com/approve/{env}")))]
    approval: ElicitUrl,
) -> String {
    format!("{env} {:?}", approval.elicitation_id())
}

fn main() {
    let _ = McpServer::new("r")
        .tools(mcp::tools![provision, research, link])
        .prompts(mcp::prompts![brief])
        .resources(mcp::resources![plan, approve])
        .build();
}
