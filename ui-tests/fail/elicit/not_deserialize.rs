/// Confirm?
#[derive(mcp::Elicitation)]
struct Confirm {
    ok: bool,
}

fn main() {}
