#[derive(serde::Deserialize)]
struct Point {
    x: i32,
}

#[mcp::tool]
async fn plot(point: Point) -> String {
    point.x.to_string()
}

fn main() {}
