#[mcp::tool(timeout = "30 parsecs")]
async fn slow() -> String {
    String::new()
}

#[mcp::tool(timeout = "0s")]
async fn instant() -> String {
    String::new()
}

fn main() {
    let _ = mcp::tools![slow, instant];
}
