#[mcp::tool]
async fn echo(text: &str) -> String {
    text.to_owned()
}

fn main() {}
