//! Every supported field shape derives.

use mcp::Elicitation;

#[derive(serde::Deserialize, mcp::Elicitation)]
#[serde(rename_all = "snake_case")]
enum Tier {
    /// The cheap one
    Basic,
    #[elicitation(title = "The fast one")]
    Premium,
}

#[derive(serde::Deserialize, mcp::Elicitation)]
enum Plain {
    A,
    B,
}

#[doc = "Fill"]
#[doc = "this in."]
#[derive(serde::Deserialize, mcp::Elicitation)]
#[allow(dead_code)]
struct Everything {
    text: String,
    small: i8,
    big: u64,
    real: f32,
    flag: bool,
    tier: Tier,
    tiers: Vec<Plain>,
    maybe_text: Option<String>,
    maybe_tier: Option<Tier>,
    maybe_many: Option<Vec<Tier>>,
    #[elicitation(default = "x", title = "Text", format = "uri")]
    with_default: String,
    #[elicitation(default = true)]
    defaulted_flag: bool,
    r#type: String,
}

fn main() {
    assert_eq!(Everything::MESSAGE, "Fill\nthis in.");
    let _ = Everything::requested_schema();
}
