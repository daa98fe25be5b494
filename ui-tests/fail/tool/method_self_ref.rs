struct Service;

impl Service {
    #[mcp::tool]
    async fn status(&self) -> String {
        "up".into()
    }
}

fn main() {}
