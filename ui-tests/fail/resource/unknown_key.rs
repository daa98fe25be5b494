#[mcp::resource("docs://readme", mimetype = "text/plain")]
async fn readme() -> String {
    String::new()
}

fn main() {}
