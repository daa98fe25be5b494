#[mcp::tool(name = "")]
async fn nameless() -> String {
    String::new()
}

fn main() {}
