fn suggest(prefix: String) -> Vec<String> {
    vec![prefix]
}

#[mcp::prompt]
async fn greet(#[mcp(complete = suggest)] name: String) -> String {
    name
}

fn main() {
    let _ = mcp::prompts![greet];
}
