//! What a client declares, as the server reads it on the wire: the handlers' capabilities
//! (`sampling.tools` only for a handler that runs tool loops) and the tasks extension, merged
//! into what the application declared by hand without overwriting any of it.

use mcp::client::{Client, ClientBuilder};
use mcp::protocol::{
    ClientCapabilities, CreateMessageResult, ElicitResult, Implementation, ListRootsResult,
    OneOrMany, Role, SamplingContent,
};
use mcp::transport::memory;
use serde_json::{Value, json};

fn builder() -> ClientBuilder {
    Client::builder(Implementation::new("caps-client", "1"))
}

fn model_answer() -> CreateMessageResult {
    CreateMessageResult {
        role: Role::Assistant,
        content: OneOrMany::One(SamplingContent::text("hi")),
        model: "m".into(),
        stop_reason: None,
        meta: None,
    }
}

/// The `clientCapabilities` of the client's first 2026-07-28 request, read off the wire.
async fn declared(builder: ClientBuilder) -> Value {
    let (client_end, mut server_end) = memory::pair();
    let client = builder.connect(client_end);
    let asking = tokio::spawn(async move { client.discover().await });
    let line = server_end
        .incoming
        .recv()
        .await
        .expect("a request")
        .expect("a frame");
    asking.abort();
    let request: Value = serde_json::from_str(&line).expect("JSON");
    request["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"].clone()
}

/// The extensions a client declares by default: tasks.
fn tasks() -> Value {
    json!({"io.modelcontextprotocol/tasks": {}})
}

fn hand_set(capabilities: Value) -> ClientCapabilities {
    serde_json::from_value(capabilities).expect("capabilities")
}

#[tokio::test]
async fn a_plain_sampling_handler_does_not_declare_tools() {
    let caps = declared(builder().on_sample(|_| async { Ok(model_answer()) })).await;
    assert_eq!(caps, json!({"sampling": {}, "extensions": tasks()}));
}

#[tokio::test]
async fn a_sampling_handler_with_tools_declares_sampling_tools() {
    let caps = declared(builder().on_sample_with_tools(|_| async { Ok(model_answer()) })).await;
    assert_eq!(
        caps,
        json!({"sampling": {"tools": {}}, "extensions": tasks()})
    );
}

#[tokio::test]
async fn hand_set_capabilities_are_kept_beside_the_handlers() {
    let builder = builder()
        .capabilities(hand_set(json!({
            "sampling": {"context": {}},
            "elicitation": {"form": {}},
            "roots": {"listChanged": true},
            "experimental": {"x": {}}
        })))
        .on_sample_with_tools(|_| async { Ok(model_answer()) })
        .on_elicit(|_| async { Ok(ElicitResult::decline()) })
        .on_list_roots(|| async { Ok(ListRootsResult { roots: vec![] }) });
    let caps = declared(builder).await;
    assert_eq!(
        caps,
        json!({
            "sampling": {"context": {}, "tools": {}},
            "elicitation": {"form": {}},
            "roots": {"listChanged": true},
            "experimental": {"x": {}},
            "extensions": tasks(),
        })
    );
}

#[tokio::test]
async fn handlers_alone_declare_their_defaults() {
    let builder = builder()
        .on_elicit(|_| async { Ok(ElicitResult::decline()) })
        .on_list_roots(|| async { Ok(ListRootsResult { roots: vec![] }) });
    let caps = declared(builder).await;
    assert_eq!(
        caps,
        json!({"elicitation": {"form": {}, "url": {}}, "roots": {}, "extensions": tasks()})
    );
}

#[tokio::test]
async fn the_tasks_extension_is_declared_unless_switched_off_and_hand_set_settings_stay() {
    assert_eq!(declared(builder()).await, json!({"extensions": tasks()}));
    assert_eq!(declared(builder().accept_tasks(false)).await, json!({}));
    let hand_set = hand_set(json!({"extensions": {
        "io.modelcontextprotocol/tasks": {"x": 1},
        "com.example/other": {},
    }}));
    let caps = declared(builder().capabilities(hand_set.clone())).await;
    assert_eq!(caps, serde_json::to_value(&hand_set).expect("JSON"));
    let caps = declared(builder().capabilities(hand_set.clone()).accept_tasks(false)).await;
    assert_eq!(caps, serde_json::to_value(&hand_set).expect("JSON"));
}

#[tokio::test]
async fn a_2025_initialize_declares_no_extension_of_its_own() {
    let (client_end, mut server_end) = memory::pair();
    let client = builder().connect(client_end);
    let asking = tokio::spawn(async move { client.initialize().await });
    let line = server_end
        .incoming
        .recv()
        .await
        .expect("a request")
        .expect("a frame");
    asking.abort();
    let request: Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(request["method"], "initialize");
    assert_eq!(request["params"]["capabilities"], json!({}));
}
