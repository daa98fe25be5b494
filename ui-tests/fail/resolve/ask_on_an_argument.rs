#[mcp::tool]
async fn echo(#[mcp(ask = "what?", key = "k")] text: String) -> String {
    text
}

fn main() {}
