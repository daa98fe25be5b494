//! Schema lookup per call. A tool's input schema is built from its argument type (schemars) when
//! the tool is registered (`ToolEntry::new`), kept as an `Arc<Value>` in its `Tool`, and only
//! shared after that: `tools/list` clones the `Arc`, and a `tools/call` finds its tool by name in
//! a `HashMap` and decodes the arguments parameter by parameter (no schema involved).
//!
//! This bench shows it two ways on a server with 50 tools: it times building one schema (what a
//! per-call rebuild would add) next to a whole in-memory `tools/call` and `tools/list`, and it
//! counts the schema builds, asserting after every benchmark that there were exactly 50, one per
//! tool at registration, however many calls and listings ran.

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::BoxFuture;
use mcp_runtime::protocol::{CallToolParams, CallToolResult, McpError, Outcome};
// The registration path `#[mcp::tool]` expands to, which names these macro-support items.
use mcp_runtime::__private::{ToolInfo, input_schema};
use mcp_runtime::server::{Context, McpServer, TaskSupport, ToolEntry};
use mcp_runtime::transport::Duplex;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

const TOOLS: usize = 50;

/// How many input schemas were built so far.
static SCHEMAS_BUILT: AtomicUsize = AtomicUsize::new(0);

/// Arguments of the size a real tool takes.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)] // only its schema is used
struct Args {
    /// What to echo.
    text: String,
    /// How many times.
    count: Option<u32>,
    /// Labels to attach.
    tags: Vec<String>,
    /// Where.
    region: Region,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Region {
    EuWest1,
    UsEast1,
}

/// The input schema, counted.
fn counted_schema() -> Value {
    SCHEMAS_BUILT.fetch_add(1, Ordering::Relaxed);
    input_schema::<Args>()
}

fn echo(
    _ctx: Context,
    params: CallToolParams,
) -> BoxFuture<Result<Outcome<CallToolResult>, McpError>> {
    Box::pin(async move {
        let text = params
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        Ok(CallToolResult::text(text).into())
    })
}

fn server() -> McpServer {
    let tools = (0..TOOLS).map(|i| {
        let info = ToolInfo {
            name: Box::leak(format!("tool_{i:02}").into_boxed_str()),
            title: None,
            description: Some("Echo the text back."),
            read_only: Some(true),
            destructive: None,
            idempotent: None,
            open_world: None,
            icons: &[],
            requires: &[],
            task: TaskSupport::Forbidden,
            ask_before_task: false,
        };
        ToolEntry::new(info, counted_schema, || None, echo)
    });
    McpServer::new("bench").tools(tools.collect::<Vec<_>>())
}

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

async fn round_trip(client: &mut Duplex, line: String) -> String {
    client.outgoing.send(line).await.expect("server alive");
    match client.incoming.recv().await {
        Some(Ok(answer)) => answer,
        other => panic!("no answer: {other:?}"),
    }
}

fn assert_built_once_per_tool() {
    assert_eq!(
        SCHEMAS_BUILT.load(Ordering::Relaxed),
        TOOLS,
        "input schemas must be built once per tool at registration, never per call"
    );
}

fn schema_lookup(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut client = {
        let _guard = rt.enter();
        server().serve_in_memory().expect("server")
    };
    assert_built_once_per_tool();

    let call = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{META},"name":"tool_37","arguments":{{"text":"hello","count":1,"tags":["a"],"region":"EuWest1"}}}}}}"#
    );
    let list =
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{"_meta":{META}}}}}"#);
    rt.block_on(async {
        let answer = round_trip(&mut client, call.clone()).await;
        assert!(answer.contains(r#""text":"hello""#), "{answer}");
        let answer = round_trip(&mut client, list.clone()).await;
        assert_eq!(
            answer.matches(r#""inputSchema""#).count(),
            TOOLS,
            "{answer}"
        );
    });

    c.bench_function("schema/build_one_input_schema", |b| {
        b.iter(input_schema::<Args>)
    });
    c.bench_function("schema/tools_call_among_50_tools", |b| {
        b.iter(|| rt.block_on(round_trip(&mut client, black_box(call.clone()))))
    });
    assert_built_once_per_tool();
    c.bench_function("schema/tools_list_50_tools", |b| {
        b.iter(|| rt.block_on(round_trip(&mut client, black_box(list.clone()))))
    });
    assert_built_once_per_tool();
}

criterion_group!(benches, schema_lookup);
criterion_main!(benches);
