struct Service;

impl Service {
    #[mcp::tool]
    async fn consume(self, name: String) -> String {
        name
    }
}

fn main() {}
