struct ListRoots;

#[mcp::resource("docs://readme")]
async fn readme(roots: ListRoots) -> String {
    let _ = roots;
    String::new()
}

fn main() {}
