//! A tool's call policy: the scopes its caller needs, how long a round may run, how often one
//! caller may call it; with tasks too.

use mcp::McpServer;

/// Erases a note.
#[mcp::tool(scopes = ["notes:write", "notes:admin"], timeout = "1m30s", rate_limit = "10/min")]
async fn erase(id: String) -> String {
    id
}

/// Reindexes, as a task when the client can take one.
#[mcp::tool(task = "optional", timeout = "500ms", rate_limit = "100/10s")]
async fn reindex() -> String {
    String::new()
}

fn main() {
    let entries = mcp::tools![erase, reindex];
    assert_eq!(entries[0].required_scopes(), ["notes:write", "notes:admin"]);
    let _ = McpServer::new("notes").tools(entries).build();
}
