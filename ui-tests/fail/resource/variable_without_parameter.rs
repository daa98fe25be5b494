#[mcp::resource("db://{schema}/{table}/rows")]
async fn rows(table: String) -> String {
    table
}

fn main() {}
