#[mcp::prompt]
async fn greet(#[mcp(title = "Context")] ctx: mcp::Context) -> String {
    ctx.protocol_version().to_owned()
}

fn main() {
    let _ = mcp::prompts![greet];
}
