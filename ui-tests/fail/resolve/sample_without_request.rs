#[mcp::tool]
async fn summarize(summary: mcp::Sample) -> String {
    summary.text().unwrap_or_default().to_owned()
}

fn main() {}
