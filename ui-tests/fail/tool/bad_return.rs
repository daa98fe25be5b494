struct Reply;

#[mcp::tool]
async fn ask() -> Reply {
    Reply
}

fn main() {}
