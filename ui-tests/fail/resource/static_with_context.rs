#[mcp::resource("docs://readme")]
async fn readme(ctx: mcp::Context) -> String {
    ctx.protocol_version().to_owned()
}

fn main() {}
