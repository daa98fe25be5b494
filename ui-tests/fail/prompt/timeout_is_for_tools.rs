#[mcp::prompt(scopes = ["notes:read"], timeout = "30s")]
async fn digest() -> String {
    String::new()
}

fn main() {
    let _ = mcp::prompts![digest];
}
