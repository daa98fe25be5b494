//! Every shape of completion function, on prompt arguments and template variables.

use mcp::protocol::CompleteResult;
use mcp::server::CompletionRequest;

async fn plain(prefix: String) -> Vec<String> {
    vec![prefix]
}

async fn with_request(prefix: String, request: CompletionRequest) -> Result<CompleteResult, String> {
    let _ = (request.ctx.protocol_version(), request.argument("other"));
    Ok(CompleteResult::values(vec![prefix]))
}

mod nested {
    pub async fn regions(_: String) -> Vec<String> {
        vec!["eu-west-1".into()]
    }
}

/// Greets.
#[mcp::prompt]
async fn greet(
    #[mcp(complete = plain)] name: String,
    #[mcp(complete = with_request, title = "Other", rename = "other")] second: Option<String>,
    #[mcp(complete = nested::regions)] region: String,
) -> String {
    format!("{name} {second:?} {region}")
}

/// A page.
#[mcp::resource("docs://{region}/{page}")]
async fn page(
    #[mcp(complete = nested::regions)] region: String,
    #[mcp(complete = |prefix: String| async move { vec![prefix] })] page: u32,
) -> String {
    format!("{region} {page}")
}

fn main() {
    let _ = mcp::McpServer::new("s")
        .prompts(mcp::prompts![greet])
        .resources(mcp::resources![page]);
}
