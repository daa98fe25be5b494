/// Value?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Wrapper<T> {
    value: T,
}

fn main() {}
