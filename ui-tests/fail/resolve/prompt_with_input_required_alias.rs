use mcp::{Elicit, InputRequiredResult};

/// Yes?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Yes {
    ok: bool,
}

type MaybeAsk = Result<String, InputRequiredResult>;

#[mcp::prompt]
async fn brief(answer: Elicit<Yes>) -> MaybeAsk {
    Ok(answer.ok.to_string())
}

fn main() {}
