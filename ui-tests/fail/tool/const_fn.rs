#[mcp::tool]
const fn fixed() -> u32 {
    1
}

fn main() {}
