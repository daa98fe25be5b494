//! Icons, `_meta`, annotations, size and argument titles on every kind of item.

use serde_json::json;

/// Deploys.
#[mcp::tool(
    title = "Deploy",
    icons = ["https://example.com/a.png", icon(src = "data:image/png;base64,AA==", mime_type = "image/png", sizes = ["48x48", "any"], theme = "dark")],
    meta = json!({"k": 1}),
)]
async fn deploy() -> String {
    String::new()
}

/// Greets.
#[mcp::prompt(icons = [], meta = serde_json::Map::new())]
async fn greet(#[mcp(title = "Name", rename = "who")] name: String) -> String {
    name
}

/// A page.
#[mcp::resource("docs://{page}", icons = ["http://example.com/p.png"], annotations(audience = ["assistant"]), cache(ttl_ms = 0))]
async fn page(page: String) -> String {
    page
}

/// The readme.
#[mcp::resource(
    "docs://readme",
    cache(ttl_ms = 60_000, scope = "public"),
    annotations(priority = 0, last_modified = "2025-01-12"),
    size = 0,
    meta = json!({}),
)]
async fn readme() -> &'static str {
    ""
}

fn main() {
    let _ = mcp::McpServer::new("s")
        .tools(mcp::tools![deploy])
        .prompts(mcp::prompts![greet])
        .resources(mcp::resources![page, readme]);
}
