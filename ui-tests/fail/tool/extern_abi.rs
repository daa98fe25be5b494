#[mcp::tool]
async extern "C" fn exported() -> u32 {
    1
}

fn main() {}
