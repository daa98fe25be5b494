/// Which tags?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Tags {
    tags: Vec<String>,
}

fn main() {}
