#[mcp::tool(meta = 42)]
async fn deploy() -> String {
    String::new()
}

fn main() {
    let _ = mcp::tools![deploy];
}
