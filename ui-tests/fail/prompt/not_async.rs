#[mcp::prompt]
fn greet(name: String) -> String {
    name
}

fn main() {}
