use mcp::{CallToolResult, Outcome};

struct Sample;

#[mcp::tool]
async fn summarize(text: String, summary: Sample) -> Outcome<CallToolResult> {
    let _ = (text, summary);
    Outcome::Complete(CallToolResult::text(""))
}

fn main() {}
