use std::collections::HashMap;

/// Your labels?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Labels {
    labels: HashMap<String, String>,
}

fn main() {}
