#[mcp::tool(nmae = "echo")]
async fn echo(text: String) -> String {
    text
}

fn main() {}
