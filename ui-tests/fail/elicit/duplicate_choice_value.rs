#[derive(serde::Deserialize, mcp::Elicitation)]
#[serde(rename_all = "kebab-case")]
enum Region {
    EuWest,
    #[serde(rename = "eu-west")]
    Ireland,
}

fn main() {
    let _ = <Region as mcp::__private::ElicitationEnum>::CHOICES;
}
