use std::cell::RefCell;
use std::rc::Rc;

#[mcp::prompt]
async fn tally(topic: String) -> String {
    let seen = Rc::new(RefCell::new(Vec::new()));
    seen.borrow_mut().push(topic);
    tokio::task::yield_now().await;
    seen.borrow().join(", ")
}

fn main() {
    let _ = mcp::prompts![tally];
}
