#[mcp::prompt(title = "Greeting", description = "Greets.", title = "Hello")]
async fn greet(name: String) -> String {
    name
}

fn main() {
    let _ = mcp::prompts![greet];
}
