async fn plain() -> String {
    String::new()
}

struct NotATool;

fn main() {
    let _ = mcp::McpServer::new("x").tools(mcp::tools![plain]);
    let _ = mcp::McpServer::new("x").tools(mcp::tools![NotATool]);
}
