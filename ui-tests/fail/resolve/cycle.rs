use mcp::Elicit;

/// Yes?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Yes {
    ok: bool,
}

#[mcp::tool]
async fn tangled(
    #[mcp(ask = format!("after {}", second.ok))] first: Elicit<Yes>,
    #[mcp(ask = format!("after {}", first.ok))] second: Elicit<Yes>,
) -> String {
    format!("{}{}", first.ok, second.ok)
}

#[mcp::tool]
async fn selfish(#[mcp(ask = format!("again {}", me.ok))] me: Elicit<Yes>) -> bool {
    me.ok
}

fn main() {}
