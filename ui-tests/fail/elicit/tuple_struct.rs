/// Which region?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Region(String);

fn main() {}
