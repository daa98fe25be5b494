async fn suggest(prefix: String) -> usize {
    prefix.len()
}

#[mcp::prompt]
async fn greet(#[mcp(complete = suggest)] name: String) -> String {
    name
}

fn main() {
    let _ = mcp::prompts![greet];
}
