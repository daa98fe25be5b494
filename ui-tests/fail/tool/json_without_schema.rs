#[derive(serde::Serialize)]
struct Reply {
    text: String,
}

#[mcp::tool]
async fn ask() -> mcp::Json<Reply> {
    mcp::Json(Reply { text: String::new() })
}

fn main() {}
