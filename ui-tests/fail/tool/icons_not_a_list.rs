#[mcp::tool(icons = "https://example.com/a.png")]
async fn deploy() -> String {
    String::new()
}

fn main() {
    let _ = mcp::tools![deploy];
}
