#[mcp::tool(task = "always")]
async fn build() -> String {
    String::new()
}

fn main() {
    let _ = mcp::tools![build];
}
