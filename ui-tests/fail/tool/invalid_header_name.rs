#[mcp::tool]
async fn route(#[mcp(header = "Region Name")] region: String) -> String {
    region
}

fn main() {}
