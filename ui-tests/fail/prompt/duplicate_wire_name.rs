#[mcp::prompt]
async fn greet(name: String, #[mcp(rename = "name")] nickname: Option<String>) -> String {
    nickname.unwrap_or(name)
}

fn main() {
    let _ = mcp::prompts![greet];
}
