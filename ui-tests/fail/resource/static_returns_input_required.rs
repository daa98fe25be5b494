use mcp::InputRequiredResult;

#[mcp::resource("docs://readme")]
async fn readme() -> Result<String, InputRequiredResult> {
    Ok(String::new())
}

fn main() {}
