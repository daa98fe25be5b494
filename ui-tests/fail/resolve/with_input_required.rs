use mcp::{Elicit, InputRequiredResult};

/// Which region?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Region {
    region: String,
}

#[mcp::tool]
async fn provision(name: String, region: Elicit<Region>) -> Result<String, InputRequiredResult> {
    Ok(format!("{name}{}", region.region))
}

fn main() {}
