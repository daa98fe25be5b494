#[derive(serde::Serialize)]
struct Reply {
    text: String,
}

#[mcp::tool]
async fn ask() -> Result<mcp::Json<Reply>, String> {
    Ok(mcp::Json(Reply { text: String::new() }))
}

fn main() {}
