#[mcp::tool]
struct Tool;

fn main() {}
