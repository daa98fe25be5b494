#[derive(serde::Deserialize, mcp::Elicitation)]
enum Size {
    Small,
    Custom(u32),
    Large { factor: u8 },
}

fn main() {}
