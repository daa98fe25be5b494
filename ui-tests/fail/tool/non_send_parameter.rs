use std::rc::Rc;

#[mcp::tool]
async fn shout(text: Rc<String>) -> String {
    text.to_uppercase()
}

fn main() {
    let _ = mcp::tools![shout];
}
