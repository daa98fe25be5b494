#[mcp::resource("db://{table}/rows")]
async fn rows(table: String, limit: u32) -> String {
    format!("{table}{limit}")
}

fn main() {}
