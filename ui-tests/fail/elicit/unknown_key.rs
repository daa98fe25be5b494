/// Confirm?
#[derive(serde::Deserialize, mcp::Elicitation)]
#[elicitation(question = "Sure?")]
struct Confirm {
    #[elicitation(placeholder = "yes")]
    ok: bool,
}

fn main() {}
