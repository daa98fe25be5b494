#[mcp::tool(icons = [
    "ftp://example.com/a.png",
    icon(src = "https://example.com/b.png", mime_type = "text/plain", sizes = ["48", "any"], theme = "blue"),
])]
async fn deploy() -> String {
    String::new()
}

fn main() {
    let _ = mcp::tools![deploy];
}
