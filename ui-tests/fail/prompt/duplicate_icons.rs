#[mcp::prompt(icons = ["https://example.com/a.png"], icons = [icon(src = "https://example.com/b.png", theme = "dark", theme = "light")])]
async fn greet(name: String) -> String {
    name
}

fn main() {
    let _ = mcp::prompts![greet];
}
