#[mcp::prompt]
async fn count(items: u32) -> String {
    items.to_string()
}

fn main() {}
