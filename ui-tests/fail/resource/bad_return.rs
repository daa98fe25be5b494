#[mcp::resource("docs://readme")]
async fn readme() -> bool {
    true
}

fn main() {}
