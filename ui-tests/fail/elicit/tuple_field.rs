/// Where?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Point {
    coordinates: (f64, f64),
}

fn main() {}
