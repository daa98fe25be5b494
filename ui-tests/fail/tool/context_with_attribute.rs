#[mcp::tool]
async fn look(#[mcp(default)] ctx: mcp::Context) -> String {
    ctx.protocol_version().to_owned()
}

fn main() {}
