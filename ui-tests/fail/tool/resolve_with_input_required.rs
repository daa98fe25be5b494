use mcp::InputRequiredResult;

struct Elicit<T>(T);
struct Region;

#[mcp::tool]
async fn provision(name: String, region: Elicit<Region>) -> Result<String, InputRequiredResult> {
    let _ = region;
    Ok(name)
}

fn main() {}
