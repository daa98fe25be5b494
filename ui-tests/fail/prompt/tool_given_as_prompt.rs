#[mcp::tool]
async fn echo(text: String) -> String {
    text
}

fn main() {
    let _ = mcp::McpServer::new("x").prompts(mcp::prompts![echo]);
}
