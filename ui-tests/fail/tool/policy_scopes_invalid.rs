#[mcp::tool(scopes = ["notes:read notes:write", ""])]
async fn read_and_write() -> String {
    String::new()
}

#[mcp::tool(scopes = [])]
async fn nothing_required() -> String {
    String::new()
}

#[mcp::tool(scopes = "notes:write")]
async fn not_a_list() -> String {
    String::new()
}

fn main() {
    let _ = mcp::tools![read_and_write, nothing_required];
}
