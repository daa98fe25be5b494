#[mcp::resource("docs://readme")]
async fn readme(section: String) -> String {
    section
}

fn main() {}
