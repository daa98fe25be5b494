use mcp::{CallToolResult, CreateMessageParams, Outcome, Sample};

#[mcp::tool]
async fn summarize(
    text: String,
    #[mcp(ask = CreateMessageParams::prompt(text.clone(), 10))] summary: Sample,
) -> Outcome<CallToolResult> {
    let _ = summary;
    Outcome::Complete(CallToolResult::text(text))
}

fn main() {}
