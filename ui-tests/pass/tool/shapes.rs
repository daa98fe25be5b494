//! Every supported tool shape compiles and registers.

use mcp::{CallToolResult, ContentBlock, Context, InputRequiredResult, Json, McpServer, Outcome};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Report {
    lines: Vec<String>,
}

/// No parameters, text out.
#[mcp::tool]
async fn unit() -> &'static str {
    "ok"
}

/// No return type.
#[mcp::tool]
async fn nothing(_flag: bool) {}

#[mcp::tool]
async fn owned(text: String, count: Option<u32>, items: Vec<i64>) -> String {
    format!("{text}{count:?}{items:?}")
}

#[mcp::tool(name = "report.build", title = "Report", description = "Builds a report.")]
async fn report() -> Json<Report> {
    Json(Report { lines: vec![] })
}

#[mcp::tool(read_only, destructive = false, idempotent, open_world = true)]
async fn hinted() -> CallToolResult {
    CallToolResult::text("hinted")
}

#[mcp::tool]
async fn content() -> Vec<ContentBlock> {
    vec![ContentBlock::text("a"), ContentBlock::text("b")]
}

#[mcp::tool]
async fn fallible() -> Result<String, std::io::Error> {
    Ok("fine".into())
}

#[mcp::tool]
async fn structured_fallible() -> Result<Json<Report>, String> {
    Err("no".into())
}

#[mcp::tool]
async fn manual(ctx: Context) -> Result<String, InputRequiredResult> {
    match ctx.request_state() {
        Some(_) => Ok("done".into()),
        None => Err(InputRequiredResult::new().with_state("step-1")),
    }
}

#[mcp::tool]
async fn manual_outcome(ctx: Context, _again: Context) -> Outcome<CallToolResult> {
    let _ = ctx.input_responses();
    Outcome::Complete(CallToolResult::text("x"))
}

#[mcp::tool]
async fn defaults(
    #[mcp(default)] a: u8,
    #[mcp(default = "x".to_owned())] b: String,
    #[mcp(rename = "type")] kind: String,
    r#loop: bool,
) -> String {
    format!("{a}{b}{kind}{}", r#loop)
}

#[doc = include_str!("shapes.rs")]
#[mcp::tool]
async fn documented_by_include() -> u64 {
    7
}

pub mod nested {
    /// A tool in a module, registered by path.
    #[mcp::tool]
    pub async fn inner() -> bool {
        true
    }
}

fn main() {
    let server = McpServer::new("shapes").tools(mcp::tools![
        unit,
        nothing,
        owned,
        report,
        hinted,
        content,
        fallible,
        structured_fallible,
        manual,
        manual_outcome,
        defaults,
        documented_by_include,
        nested::inner,
    ]);
    let _ = server.build();
    // The function stays callable as written.
    let _ = owned(String::new(), None, Vec::new());
}
