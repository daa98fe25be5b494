//! In-memory dispatch: a `tools/call` echo, and a full two-round MRTR exchange with hand-built
//! state, measured line in → line out through the server's message loop.

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::BoxFuture;
use mcp_runtime::protocol::CallToolParams;
use mcp_runtime::protocol::{
    CallToolResult, ElicitParams, Implementation, InputRequest, InputRequiredResult, McpError,
    Outcome, Tool,
};
use mcp_runtime::server::{Context, McpServer, Server, ToolEntry};
use mcp_runtime::transport::{Duplex, memory};
use serde_json::{Value, json};
use tokio::runtime::Runtime;

fn server() -> Server {
    Server::builder(Implementation::new("bench", "1.0.0"))
        .list_tools(vec![
            Tool::new("echo", json!({"type":"object"})),
            Tool::new("provision", json!({"type":"object"})),
        ])
        .on_call_tool(|_, call| async move {
            let args = call.arguments.unwrap_or_default();
            let outcome: Outcome<CallToolResult> = match call.name.as_str() {
                "echo" => CallToolResult::text(
                    args.get("text").and_then(Value::as_str).unwrap_or_default(),
                )
                .into(),
                "provision" => {
                    let region = call
                        .input_responses
                        .as_ref()
                        .filter(|_| call.request_state.as_deref() == Some("awaiting-region"))
                        .and_then(|r| r.elicit("region"))
                        .transpose()?
                        .and_then(|answer| answer.content)
                        .and_then(|c| c.get("region").and_then(Value::as_str).map(str::to_owned));
                    match region {
                        Some(region) => CallToolResult::text(format!(
                            "Provisioned 'orders' in {region}."
                        ))
                        .into(),
                        None => InputRequiredResult::new()
                            .ask(
                                "region",
                                InputRequest::Elicit(ElicitParams::form(
                                    "Which region?",
                                    json!({"type":"object","properties":{"region":{"type":"string"}},"required":["region"]}),
                                )),
                            )
                            .with_state("awaiting-region")
                            .into(),
                    }
                }
                other => return Err(McpError::invalid_params(format!("Unknown tool: {other}"))),
            };
            Ok(outcome)
        })
        .build().expect("the server builds")
}

/// The same echo through `McpServer`'s tables (listing and dispatch by name), among 50 tools.
fn mcp_server() -> Server {
    fn echo(
        _: Context,
        call: CallToolParams,
    ) -> BoxFuture<Result<Outcome<CallToolResult>, McpError>> {
        let args = call.arguments.unwrap_or_default();
        let text = args
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        Box::pin(async move { Ok(CallToolResult::text(text).into()) })
    }
    let tools = (0..50).map(|i| {
        let name = if i == 25 {
            "echo".to_owned()
        } else {
            format!("tool_{i}")
        };
        ToolEntry::from_tool(Tool::new(name, json!({"type":"object"})), echo)
    });
    McpServer::new("bench")
        .tools(tools)
        .build()
        .expect("the server builds")
}

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;

async fn round_trip(client: &mut Duplex, line: String) -> String {
    client.outgoing.send(line).await.expect("server alive");
    match client.incoming.recv().await {
        Some(Ok(answer)) => answer,
        other => panic!("no answer: {other:?}"),
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut client = start(&rt);
    let echo = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{META},"name":"echo","arguments":{{"text":"hello"}}}}}}"#
    );
    let round1 = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"_meta":{META},"name":"provision","arguments":{{"name":"orders"}}}}}}"#
    );
    let round2 = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"_meta":{META},"name":"provision","arguments":{{"name":"orders"}},"inputResponses":{{"region":{{"action":"accept","content":{{"region":"eu-west-1"}}}}}},"requestState":"awaiting-region"}}}}"#
    );
    // Sanity: the exchange really takes two rounds and finishes.
    rt.block_on(async {
        assert!(
            round_trip(&mut client, round1.clone())
                .await
                .contains("input_required")
        );
        assert!(
            round_trip(&mut client, round2.clone())
                .await
                .contains("Provisioned")
        );
    });

    c.bench_function("dispatch/tools_call_echo", |b| {
        b.iter(|| rt.block_on(round_trip(&mut client, echo.clone())))
    });
    c.bench_function("dispatch/mrtr_two_rounds", |b| {
        b.iter(|| {
            rt.block_on(async {
                round_trip(&mut client, round1.clone()).await;
                round_trip(&mut client, round2.clone()).await
            })
        })
    });
}

fn bench_mcp_server(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut client = start_with(&rt, mcp_server());
    let echo = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{META},"name":"echo","arguments":{{"text":"hello"}}}}}}"#
    );
    let list =
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{"_meta":{META}}}}}"#);
    rt.block_on(async {
        assert!(
            round_trip(&mut client, echo.clone())
                .await
                .contains("hello")
        );
        assert!(
            round_trip(&mut client, list.clone())
                .await
                .contains("tool_49")
        );
    });
    c.bench_function("dispatch/mcp_server_tools_call_echo", |b| {
        b.iter(|| rt.block_on(round_trip(&mut client, echo.clone())))
    });
    c.bench_function("dispatch/mcp_server_tools_list_50", |b| {
        b.iter(|| rt.block_on(round_trip(&mut client, list.clone())))
    });
}

fn start(rt: &Runtime) -> Duplex {
    start_with(rt, server())
}

fn start_with(rt: &Runtime, server: Server) -> Duplex {
    let _guard = rt.enter();
    let (client, server_end) = memory::pair();
    rt.spawn(async move { server.serve(server_end).await });
    client
}

criterion_group!(benches, bench, bench_mcp_server);
criterion_main!(benches);
