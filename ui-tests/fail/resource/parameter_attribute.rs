#[mcp::resource("db://{table}/rows")]
async fn rows(#[mcp(rename = "t")] table: String) -> String {
    table
}

fn main() {}
