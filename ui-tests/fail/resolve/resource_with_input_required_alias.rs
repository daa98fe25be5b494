use mcp::{Elicit, InputRequiredResult};

/// Sure?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Sure {
    ok: bool,
}

type MaybeAsk = Result<String, InputRequiredResult>;

#[mcp::resource("deploy://{env}/plan")]
async fn plan(env: String, sure: Elicit<Sure>) -> MaybeAsk {
    Ok(format!("{env} {}", sure.ok))
}

fn main() {
    let _ = mcp::resources![plan];
}
