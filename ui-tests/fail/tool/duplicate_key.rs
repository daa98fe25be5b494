#[mcp::tool(name = "echo", read_only, name = "say", read_only = false)]
async fn echo(text: String) -> String {
    text
}

#[mcp::tool(crate = "mcp", crate = "mcp")]
async fn ping() -> &'static str {
    "pong"
}

fn main() {
    let _ = mcp::tools![echo, ping];
}
