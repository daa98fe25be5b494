//! Every Resolve shape compiles: forms, outcomes, sampling, roots, dependencies, keys, on
//! tools, prompts and templates.

use mcp::{CreateMessageParams, Elicit, Elicited, ListRoots, McpServer, Sample};

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

#[mcp::prompt]
async fn brief(topic: String, sure: Elicit<Sure>) -> String {
    format!("{topic} {}", sure.ok)
}

#[mcp::resource("deploy://{env}/plan")]
async fn plan(env: String, #[mcp(ask = format!("Plan {env}?"))] sure: Elicit<Sure>) -> String {
    format!("{env} {}", sure.ok)
}

fn main() {
    let _ = McpServer::new("r")
        .tools(mcp::tools![provision, research])
        .prompts(mcp::prompts![brief])
        .resources(mcp::resources![plan])
        .build();
}
