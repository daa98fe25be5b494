use mcp::Elicitation;

/// Who are you?
#[derive(serde::Deserialize, mcp::Elicitation)]
#[serde(rename_all = "camelCase")]
struct Person {
    first_name: String,
    #[serde(rename = "firstName")]
    given_name: String,
}

fn main() {
    let _ = Person::requested_schema();
}
