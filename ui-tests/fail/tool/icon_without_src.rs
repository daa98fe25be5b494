#[mcp::tool(icons = [icon(mime_type = "image/png", sizes = ["48x48"])])]
async fn deploy() -> String {
    String::new()
}

fn main() {
    let _ = mcp::tools![deploy];
}
