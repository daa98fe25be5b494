#[mcp::tool(task = "optional", ask_before_task)]
async fn build(target: String) -> String {
    target
}

fn main() {
    let _ = mcp::tools![build];
}
