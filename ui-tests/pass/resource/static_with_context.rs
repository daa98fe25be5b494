//! A static resource may take the request context (and shared state) without becoming a
//! template.

use mcp::protocol::LoggingLevel;

struct Motd(&'static str);

/// The message of the day, for whoever asks.
#[mcp::resource("docs://motd")]
async fn motd(ctx: mcp::Context, motd: mcp::State<Motd>) -> String {
    ctx.log(LoggingLevel::Info, None, "motd read").await;
    let who = ctx.identity().and_then(|id| id.subject.as_deref());
    let who = who.unwrap_or("anonymous");
    format!("{} ({who})", motd.0)
}

fn main() {
    let _ = mcp::McpServer::new("s")
        .state(Motd("hello"))
        .resources(mcp::resources![motd]);
}
