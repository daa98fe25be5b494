#[derive(serde::Deserialize, mcp::Elicitation)]
struct Confirm {
    ok: bool,
}

fn main() {}
