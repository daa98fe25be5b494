struct Window {
    days: u32,
}

#[mcp::prompt]
async fn digest(#[mcp(rename = "range")] window: Option<Window>) -> String {
    window.map(|w| w.days.to_string()).unwrap_or_default()
}

fn main() {}
