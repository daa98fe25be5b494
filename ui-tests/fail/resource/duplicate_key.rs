#[mcp::resource("docs://readme", mime_type = "text/markdown", name = "readme", mime_type = "text/plain")]
async fn readme() -> &'static str {
    "# hi"
}

fn main() {
    let _ = mcp::resources![readme];
}
