#[mcp::prompt(mime_type = "text/plain")]
async fn greet(name: String) -> String {
    name
}

fn main() {}
