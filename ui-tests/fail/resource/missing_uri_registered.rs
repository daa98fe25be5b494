// The attribute lacks its URI: that is the one error, and the registration below still
// resolves.
#[mcp::resource(name = "readme")]
async fn readme() -> String {
    String::new()
}

fn main() {
    let _ = mcp::resources![readme];
}
