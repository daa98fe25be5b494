#[mcp::tool(colour = "red", name = "bad name")]
fn ping<T>(&self, (a, b): (u8, u8)) -> String {
    String::new()
}

fn main() {}
