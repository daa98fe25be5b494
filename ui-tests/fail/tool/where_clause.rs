#[mcp::tool]
async fn echo(value: String) -> String
where
    String: Clone,
{
    value
}

fn main() {}
