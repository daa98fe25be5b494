#[mcp::tool(rate_limit = "10/fortnight")]
async fn chatty() -> String {
    String::new()
}

#[mcp::tool(rate_limit = "0/min")]
async fn never() -> String {
    String::new()
}

fn main() {
    let _ = mcp::tools![chatty, never];
}
