#[derive(serde::Deserialize)]
struct Address {
    city: String,
}

/// Where do you live?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Profile {
    name: String,
    address: Address,
}

fn main() {}
