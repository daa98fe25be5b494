#[mcp::tool]
async fn link(sign_in: mcp::ElicitUrl) -> String {
    sign_in.url().to_owned()
}

fn main() {}
