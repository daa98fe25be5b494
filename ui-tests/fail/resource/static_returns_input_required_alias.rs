type MaybeAsk = Result<String, mcp::InputRequiredResult>;

#[mcp::resource("docs://readme")]
async fn readme() -> MaybeAsk {
    Ok(String::new())
}

fn main() {}
