#[mcp::resource("menu://today", cache(scope = "everyone"))]
async fn menu() -> &'static str {
    "soup"
}

fn main() {
    let _ = mcp::resources![menu];
}
