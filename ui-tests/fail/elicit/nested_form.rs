/// Inner?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Inner {
    ok: bool,
}

/// Outer?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Outer {
    inner: Inner,
}

fn main() {}
