#[mcp::tool(task = "optional", task = "required")]
async fn build() -> String {
    String::new()
}

fn main() {
    let _ = mcp::tools![build];
}
