#[mcp::resource(
    "docs://readme",
    annotations(audience = ["user", "robot"], priority = 1.5, last_modified = "yesterday"),
)]
async fn readme() -> &'static str {
    ""
}

fn main() {
    let _ = mcp::resources![readme];
}
