use std::rc::Rc;

#[mcp::tool]
async fn local() -> String {
    let shared = Rc::new(1);
    tokio::task::yield_now().await;
    shared.to_string()
}

fn main() {}
