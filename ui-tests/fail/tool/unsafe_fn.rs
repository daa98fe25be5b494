#[mcp::tool]
async unsafe fn danger() -> String {
    String::new()
}

fn main() {}
