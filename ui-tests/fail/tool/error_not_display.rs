#[derive(Debug)]
struct Opaque;

#[mcp::tool]
async fn risky() -> Result<String, Opaque> {
    Err(Opaque)
}

fn main() {}
