#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Limits {
    max: u32,
}

fn standard() -> Limits {
    Limits { max: 10 }
}

/// Its default could not be shown in the input schema.
#[mcp::tool]
async fn throttle(#[mcp(default = standard())] limits: Limits) -> String {
    limits.max.to_string()
}

fn main() {}
