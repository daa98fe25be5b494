/// Confirm?
#[derive(serde::Deserialize, mcp::Elicitation)]
#[serde(rename_all = "Title Case")]
struct Confirm {
    ok: bool,
}

fn main() {}
