#[mcp::tool]
fn ping() -> &'static str {
    "pong"
}

fn main() {}
