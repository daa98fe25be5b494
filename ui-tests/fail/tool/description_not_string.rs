#[mcp::tool(description = 5)]
async fn look() -> String {
    String::new()
}

fn main() {}
