#[mcp::tool(name = "send mail")]
async fn send(to: String) -> String {
    to
}

fn main() {}
