#[mcp::tool]
async fn echo(#[mcp(defualt)] text: String) -> String {
    text
}

fn main() {}
