use mcp::{Elicit, InputRequiredResult};

/// Which region?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Region {
    region: String,
}

type MaybeAsk = Result<String, InputRequiredResult>;

#[mcp::tool]
async fn provision(region: Elicit<Region>) -> MaybeAsk {
    Ok(region.into_inner().region)
}

fn main() {}
