#[mcp::resource("docs://readme", annotations(importance = 1))]
async fn readme() -> &'static str {
    ""
}

fn main() {
    let _ = mcp::resources![readme];
}
