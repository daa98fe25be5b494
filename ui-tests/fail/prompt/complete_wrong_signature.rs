async fn suggest(prefix: u32) -> Vec<String> {
    vec![prefix.to_string()]
}

#[mcp::prompt]
async fn greet(#[mcp(complete = suggest)] name: String) -> String {
    name
}

fn main() {
    let _ = mcp::prompts![greet];
}
