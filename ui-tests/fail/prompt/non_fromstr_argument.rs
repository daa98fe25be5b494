/// Not parsed from a string.
struct Window {
    days: u32,
}

#[mcp::prompt]
async fn digest(window: Window) -> String {
    window.days.to_string()
}

fn main() {}
