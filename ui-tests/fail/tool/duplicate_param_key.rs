#[mcp::tool]
async fn greet(
    #[mcp(rename = "who", rename = "whom")] name: String,
    #[mcp(default)]
    #[mcp(default = 2)]
    times: u8,
) -> String {
    name.repeat(times.into())
}

fn main() {
    let _ = mcp::tools![greet];
}
