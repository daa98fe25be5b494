use mcp::Elicit;

/// Go ahead?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Confirm {
    ok: bool,
}

#[mcp::tool(ask_before_task)]
async fn deploy(confirm: Elicit<Confirm>) -> String {
    format!("{}", confirm.ok)
}

fn main() {
    let _ = mcp::tools![deploy];
}
