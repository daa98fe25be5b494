struct Table;

#[mcp::resource("db://{table}/rows")]
async fn rows(table: Table) -> String {
    let _ = table;
    String::new()
}

fn main() {}
