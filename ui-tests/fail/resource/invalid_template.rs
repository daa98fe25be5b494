#[mcp::resource("db://{table}{column}")]
async fn cell(table: String, column: String) -> String {
    format!("{table}{column}")
}

#[mcp::resource("db://{?query}")]
async fn search(query: String) -> String {
    query
}

fn main() {}
