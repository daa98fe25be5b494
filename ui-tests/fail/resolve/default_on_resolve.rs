/// Yes?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Yes {
    ok: bool,
}

#[mcp::tool]
async fn check(#[mcp(default)] answer: mcp::Elicit<Yes>) -> bool {
    answer.ok
}

fn main() {}
