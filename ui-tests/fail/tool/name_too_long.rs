#[mcp::tool(name = "a_tool_name_that_goes_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on")]
async fn long() -> String {
    String::new()
}

fn main() {}
