//! The facade end to end: a client and a server in one process, both generations.

use mcp::client::{Client, ClientError};
use mcp::protocol::{
    CallToolResult, ElicitParams, ElicitResult, Implementation, InputRequest, InputRequiredResult,
    InputResponses, Outcome, Tool,
};
use mcp::server::Server;
use serde_json::json;

use crate::support;

fn server() -> Server {
    Server::builder(Implementation::new("greeter", "1.0.0"))
        .list_tools(vec![Tool::new("greet", json!({"type":"object"}))])
        .on_call_tool(|_, call| async move {
            let answer = call
                .input_responses
                .as_ref()
                .filter(|_| call.request_state.as_deref() == Some("asked"))
                .and_then(|r| r.elicit("who"))
                .transpose()?
                .and_then(|a| a.content)
                .and_then(|c| c.get("name").and_then(|n| n.as_str()).map(str::to_owned));
            Ok(match answer {
                Some(name) => Outcome::Complete(CallToolResult::text(format!("Hello, {name}!"))),
                None => Outcome::InputRequired(
                    InputRequiredResult::new()
                        .ask(
                            "who",
                            InputRequest::Elicit(ElicitParams::form(
                                "Your name?",
                                json!({"type":"object","properties":{"name":{"type":"string"}}}),
                            )),
                        )
                        .with_state("asked"),
                ),
            })
        })
        .build()
        .expect("the server builds")
}

fn connect() -> Client {
    support::connect_in_memory(server())
}

#[tokio::test]
async fn a_two_round_call_completes_with_the_answer() {
    let client = Client::builder(Implementation::new("test-client", "1.0.0"))
        .capabilities(serde_json::from_value(json!({"elicitation":{}})).expect("capabilities"))
        .connect(server().serve_in_memory());
    let Outcome::InputRequired(ask) = client
        .call_tool_once("greet", None, None, None)
        .await
        .unwrap()
    else {
        panic!("the first round must ask");
    };
    assert_eq!(ask.request_state.as_deref(), Some("asked"));
    let mut answers = InputResponses::new();
    answers.insert(
        "who",
        ElicitResult::accept(json!({"name":"Ada"}).as_object().cloned().unwrap()),
    );
    let outcome = client
        .call_tool_once(
            "greet",
            None,
            Some(answers.clone()),
            ask.request_state.clone(),
        )
        .await
        .unwrap();
    let Outcome::Complete(result) = outcome else {
        panic!("the second round must finish");
    };
    assert_eq!(result.content[0].as_text(), Some("Hello, Ada!"));

    // The same answers without the state that asked for them are not trusted.
    let outcome = client
        .call_tool_once("greet", None, Some(answers), None)
        .await
        .unwrap();
    assert!(matches!(outcome, Outcome::InputRequired(_)));
}

#[tokio::test]
async fn a_client_without_the_capability_is_told_what_is_missing() {
    let client = connect();
    match client.call_tool_once("greet", None, None, None).await {
        Err(ClientError::Rpc(e)) => {
            assert_eq!(e.code, -32021);
            assert_eq!(
                e.data,
                Some(json!({"requiredCapabilities":{"elicitation":{"form":{}}}}))
            );
        }
        other => panic!("expected -32021, got {other:?}"),
    }
}

#[tokio::test]
async fn an_old_client_gets_a_session_and_an_internal_error_instead_of_a_question() {
    let client = connect();
    let init = client.initialize().await.unwrap();
    assert_eq!(init.protocol_version, "2025-11-25");
    assert_eq!(client.protocol_version(), "2025-11-25");
    let tools = client.list_tools(None).await.unwrap();
    assert_eq!(tools.tools.len(), 1);
    assert_eq!(tools.result_type, None);
    match client.call_tool_once("greet", None, None, None).await {
        Err(ClientError::Rpc(e)) => assert_eq!(e.code, -32603),
        other => panic!("expected -32603, got {other:?}"),
    }
}

#[tokio::test]
async fn discover_reports_the_modern_revision() {
    let client = connect();
    let discovered = client.discover().await.unwrap();
    assert_eq!(discovered.supported_versions, ["2026-07-28"]);
    let info = discovered
        .meta
        .and_then(|m| m.server_info)
        .expect("serverInfo");
    assert_eq!(info.name, "greeter");
}

#[tokio::test]
async fn the_client_answers_a_servers_ping() {
    let (client_end, mut server_end) = mcp::transport::memory::pair();
    let _client = Client::builder(mcp::protocol::Implementation::new("c", "1")).connect(client_end);
    let ping = json!({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"});
    server_end
        .outgoing
        .send(ping.to_string())
        .await
        .expect("send");
    let line = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        server_end.incoming.recv(),
    )
    .await
    .expect("an answer within 5 s")
    .expect("open")
    .expect("a line");
    let reply: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(reply["id"], "srv-1", "{reply}");
    assert_eq!(reply["result"], json!({}), "{reply}");
}

/// A prompt, a static resource and a template, for the typed listings.
#[mcp::prompt]
async fn greeting(name: String) -> String {
    format!("Say hello to {name}.")
}

#[mcp::resource("note://readme")]
async fn readme() -> String {
    "read me".to_owned()
}

#[mcp::resource("note://{id}")]
async fn note(id: String) -> String {
    format!("note {id}")
}

#[tokio::test]
async fn the_typed_listings_completion_and_ping() {
    use mcp::protocol::{CompleteParams, CompleteResult};
    let server = mcp::McpServer::new("notes")
        .prompts(mcp::prompts![greeting])
        .resources(mcp::resources![readme, note])
        .on_complete(|_ctx, params| async move {
            Ok(CompleteResult::values(vec![format!(
                "{}-1",
                params.argument.value
            )]))
        })
        .build()
        .expect("builds");
    let client = support::connect_in_memory(server);
    let prompts = client.list_prompts(None).await.expect("prompts/list");
    assert_eq!(prompts.prompts[0].name, "greeting");
    let resources = client.list_resources(None).await.expect("resources/list");
    assert_eq!(resources.resources[0].uri, "note://readme");
    let templates = client
        .list_resource_templates(None)
        .await
        .expect("resources/templates/list");
    assert_eq!(templates.resource_templates[0].uri_template, "note://{id}");
    let params: CompleteParams = serde_json::from_value(json!({
        "ref": {"type": "ref/prompt", "name": "greeting"},
        "argument": {"name": "name", "value": "ad"}
    }))
    .expect("params");
    let completed = client.complete(&params).await.expect("completion/complete");
    assert_eq!(completed.completion.values, ["ad-1"]);
    // `ping` is a 2025-11-25 method: refused on 2026-07-28, answered in a session.
    assert!(client.ping().await.is_err());
    client.initialize().await.expect("initialize");
    client.ping().await.expect("ping");
}
