async fn suggest(prefix: String) -> Vec<String> {
    vec![prefix]
}

#[mcp::resource("docs://{page}")]
async fn page(page: String, #[mcp(complete = suggest)] ctx: mcp::Context) -> String {
    let _ = ctx;
    page
}

fn main() {
    let _ = mcp::resources![page];
}
