#[mcp::resource(name = "readme")]
async fn readme() -> String {
    String::new()
}

fn main() {}
