struct Plain {
    ok: bool,
}

#[mcp::tool]
async fn check(answer: mcp::Elicit<Plain>) -> bool {
    answer.ok
}

fn main() {}
