#[mcp::tool]
async fn send(text: String, #[mcp(rename = "text")] body: String) -> String {
    text + &body
}

fn main() {
    let _ = mcp::tools![send];
}
