/// Which region?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Placement {
    region: String,
}

#[derive(serde::Serialize)]
struct Reply {
    region: String,
}

#[mcp::tool]
async fn provision(placement: mcp::Elicit<Placement>) -> mcp::Json<Reply> {
    mcp::Json(Reply {
        region: placement.region.clone(),
    })
}

fn main() {}
