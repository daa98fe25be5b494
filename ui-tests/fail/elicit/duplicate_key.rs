use mcp::Elicitation;

#[derive(serde::Deserialize, mcp::Elicitation)]
#[elicitation(message = "Which region?")]
#[elicitation(message = "Where?")]
struct Region {
    #[elicitation(title = "Region", format = "uri", title = "Name")]
    region: String,
}

#[derive(serde::Deserialize, mcp::Elicitation)]
enum Tier {
    #[elicitation(title = "Cheap", title = "Basic")]
    Basic,
}

fn main() {
    let _ = Region::requested_schema();
    let _ = <Tier as mcp::__private::ElicitationEnum>::CHOICES;
}
