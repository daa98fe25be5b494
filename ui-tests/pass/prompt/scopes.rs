//! A prompt only for callers whose token holds a scope.

/// Today's notes.
#[mcp::prompt(scopes = ["notes:read"])]
async fn digest() -> String {
    "Summarize today's notes.".to_owned()
}

fn main() {
    let entries = mcp::prompts![digest];
    assert_eq!(entries[0].required_scopes(), ["notes:read"]);
    let _ = mcp::McpServer::new("notes").prompts(entries).build();
}
