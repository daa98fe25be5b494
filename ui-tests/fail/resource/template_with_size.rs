#[mcp::resource("docs://{page}", size = 1024)]
async fn page(page: String) -> String {
    page
}

fn main() {
    let _ = mcp::resources![page];
}
