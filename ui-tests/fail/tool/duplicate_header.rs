#[mcp::tool]
async fn route(
    #[mcp(header = "Region")] region: String,
    #[mcp(header = "region")] zone: String,
) -> String {
    region + &zone
}

fn main() {
    let _ = mcp::tools![route];
}
