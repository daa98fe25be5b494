use mcp::Elicit;

/// Which region?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Region {
    region: String,
}

#[mcp::tool]
async fn replicate(
    #[mcp(key = "region")] primary: Elicit<Region>,
    region: Elicit<Region>,
) -> String {
    format!("{} {}", primary.region, region.region)
}

fn main() {
    let _ = mcp::tools![replicate];
}
