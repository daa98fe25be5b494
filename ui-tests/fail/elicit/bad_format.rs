/// Contact?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Contact {
    #[elicitation(format = "phone")]
    phone: String,
}

fn main() {}
