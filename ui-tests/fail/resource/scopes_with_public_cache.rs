/// Salaries, for HR only.
#[mcp::resource(
    "hr://salaries",
    scopes = ["hr:read"],
    cache(ttl_ms = 60_000, scope = "public")
)]
async fn salaries() -> String {
    String::new()
}

/// A scope with a space in it is two scopes run together.
#[mcp::resource("hr://reviews", scopes = ["hr:read hr:write"])]
async fn reviews() -> String {
    String::new()
}

fn main() {}
