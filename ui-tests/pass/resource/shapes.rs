//! Every supported resource shape compiles and registers.

use mcp::{Context, InputRequiredResult, McpServer, ReadResourceResult, ResourceContents};

#[mcp::resource("docs://readme", name = "readme", title = "README", mime_type = "text/markdown")]
async fn readme() -> &'static str {
    "# hi"
}

/// Bytes.
#[mcp::resource("bin://logo")]
async fn logo() -> Vec<u8> {
    vec![1, 2, 3]
}

#[mcp::resource("docs://all")]
async fn all() -> Vec<ResourceContents> {
    vec![ResourceContents::text("docs://all", "x")]
}

#[mcp::resource("docs://full")]
async fn full() -> ReadResourceResult {
    ReadResourceResult::new(vec![])
}

#[mcp::resource("db://{table}/rows/{limit}")]
async fn rows(table: String, limit: u32) -> Result<String, std::io::Error> {
    Ok(format!("{table}{limit}"))
}

#[mcp::resource("file:///{+path}")]
async fn file(path: String) -> String {
    path
}

#[mcp::resource("deploy://{env}/confirm")]
async fn confirm(env: String, ctx: Context) -> Result<String, InputRequiredResult> {
    let _ = ctx.request_state();
    Ok(env)
}

fn main() {
    let _ = McpServer::new("r")
        .resources(mcp::resources![readme, logo, all, full, rows, file, confirm])
        .build();
}
