//! Resolve parameters end to end through the in-memory transport: rounds, batching,
//! dependencies, the answer ledger pinned to questions, validation, declines, capability
//! gating, prompts and templates, and rounds finished on another instance.

use std::sync::atomic::{AtomicU32, Ordering};

use mcp::client::{Client, ClientError};
use mcp::protocol::{
    ElicitResult, Implementation, InputRequest, InputRequiredResult, InputResponses,
};
use mcp::state::RequestStateSecurity;
use mcp::{
    CallToolResult, CreateMessageParams, Elicit, Elicited, ListRoots, McpServer, Outcome, Sample,
};
use serde_json::{Value, json};

#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
enum RegionChoice {
    #[serde(rename = "eu-west-1")]
    EuWest1,
    #[serde(rename = "us-east-1")]
    UsEast1,
}

/// Which region should the database live in?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct Region {
    region: RegionChoice,
}

/// Go ahead?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct Confirm {
    ok: bool,
}

/// Provisions after asking the region, then (depending on it) a confirmation.
#[mcp::tool]
async fn provision(
    name: String,
    #[mcp(ask = format!("Which region should '{name}' live in?"))] region: Elicit<Region>,
    #[mcp(ask = format!("Provision '{name}' in {:?}?", region.region))] confirm: Elicited<Confirm>,
) -> String {
    match confirm {
        Elicited::Accepted(Confirm { ok: true }) => {
            format!("Provisioned '{name}' in {:?}.", region.region)
        }
        _ => "Not provisioned.".to_owned(),
    }
}

/// Two independent questions.
#[mcp::tool]
async fn pair(first: Elicit<Confirm>, #[mcp(key = "second")] other: Elicit<Region>) -> String {
    format!("{} {:?}", first.ok, other.region)
}

/// How many replicas?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct Replicas {
    #[elicitation(default = 3)]
    replicas: u8,
    #[elicitation(default = "standard")]
    tier: String,
}

/// Scales, with defaults the client may leave out.
#[mcp::tool]
async fn scale(replicas: Elicit<Replicas>) -> String {
    format!("{} {}", replicas.replicas, replicas.tier)
}

/// Reads its note only to ask about it; `_tag` it never reads.
#[mcp::tool]
async fn file_note(
    note: String,
    _tag: String,
    #[mcp(ask = format!("File {note:?}?"))] sure: Elicit<Confirm>,
) -> String {
    format!("filed={}", sure.ok)
}

static WORDING: AtomicU32 = AtomicU32::new(1);

/// Its question's wording changes between rounds when the test says so.
#[mcp::tool]
async fn reworded(
    #[mcp(ask = format!("Version {}?", WORDING.load(Ordering::SeqCst)))] answer: Elicit<Confirm>,
) -> String {
    format!("ok={}", answer.ok)
}

/// Samples and lists roots in one round.
#[mcp::tool]
async fn summarize(
    topic: String,
    #[mcp(ask = CreateMessageParams::prompt(format!("Summarize {topic}"), 50))] summary: Sample,
    roots: ListRoots,
) -> Result<String, String> {
    let text = summary.text().ok_or("no text")?;
    Ok(format!("{topic}: {text} ({} roots)", roots.len()))
}

/// A prompt that asks.
#[mcp::prompt]
async fn tailored(audience: Elicit<Confirm>) -> String {
    format!("tailored ok={}", audience.ok)
}

/// A template resource that asks.
#[mcp::resource("deploy://{env}/plan")]
async fn plan(
    env: String,
    #[mcp(ask = format!("Show the {env} plan?"))] go: Elicit<Confirm>,
) -> String {
    format!("plan for {env}: {}", go.ok)
}

const KEY: &str = "a-shared-secret-of-at-least-thirty-two-bytes";

fn server(security: RequestStateSecurity) -> McpServer {
    McpServer::new("resolver")
        .tools(mcp::tools![
            provision, pair, reworded, summarize, scale, file_note
        ])
        .prompts(mcp::prompts![tailored])
        .resources(mcp::resources![plan])
        .request_state_security(security)
}

fn connect(server: McpServer, capabilities: Value) -> Client {
    let duplex = server.serve_in_memory().expect("valid server");
    Client::builder(Implementation::new("test", "1.0.0"))
        .capabilities(serde_json::from_value(capabilities).expect("capabilities"))
        .connect(duplex)
}

fn all_capabilities() -> Value {
    json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}})
}

fn client() -> Client {
    connect(
        server(RequestStateSecurity::ephemeral()),
        all_capabilities(),
    )
}

fn accept(content: Value) -> ElicitResult {
    ElicitResult::accept(content.as_object().cloned().expect("object"))
}

async fn round(
    client: &Client,
    tool: &str,
    args: Value,
    answers: Option<InputResponses>,
    state: Option<String>,
) -> Result<Outcome<CallToolResult>, ClientError> {
    client
        .call_tool_once(tool, Some(args), answers, state)
        .await
}

/// The first call of a tool that must ask before it can run.
async fn first_round(client: &Client, tool: &str, args: Value) -> InputRequiredResult {
    asking(round(client, tool, args, None, None).await.expect("r1"))
}

fn asked(ask: &InputRequiredResult) -> Vec<String> {
    ask.requests().map(|(key, _)| key.to_owned()).collect()
}

fn message(ask: &InputRequiredResult, key: &str) -> String {
    ask.requests()
        .find(|(k, _)| *k == key)
        .and_then(|(_, r)| match r {
            InputRequest::Elicit(e) => Some(e.message().to_owned()),
            _ => None,
        })
        .expect("an elicitation")
}

fn done(outcome: Outcome<CallToolResult>) -> CallToolResult {
    match outcome {
        Outcome::Complete(result) => result,
        Outcome::InputRequired(ask) => panic!("still asking: {:?}", asked(&ask)),
    }
}

fn asking(outcome: Outcome<CallToolResult>) -> InputRequiredResult {
    match outcome {
        Outcome::InputRequired(ask) => ask,
        Outcome::Complete(result) => panic!("finished early: {result:?}"),
    }
}

fn text(result: &CallToolResult) -> &str {
    result.content[0].as_text().expect("text")
}

#[tokio::test]
async fn a_dependent_question_goes_out_in_the_next_round() {
    let client = client();
    let args = json!({"name": "orders"});
    let first = first_round(&client, "provision", args.clone()).await;
    assert_eq!(asked(&first), ["region"]);
    assert_eq!(
        message(&first, "region"),
        "Which region should 'orders' live in?"
    );
    let state = first.request_state.clone().expect("state");
    assert!(state.starts_with("v1."), "sealed: {state}");

    let mut answers = InputResponses::new();
    answers.insert("region", accept(json!({"region": "eu-west-1"})));
    let second = asking(
        round(
            &client,
            "provision",
            args.clone(),
            Some(answers),
            Some(state),
        )
        .await
        .expect("r2"),
    );
    assert_eq!(asked(&second), ["confirm"]);
    assert_eq!(
        message(&second, "confirm"),
        "Provision 'orders' in EuWest1?"
    );

    // The region is carried in the state: only the new answer is sent.
    let mut answers = InputResponses::new();
    answers.insert("confirm", accept(json!({"ok": true})));
    let result = done(
        round(
            &client,
            "provision",
            args,
            Some(answers),
            second.request_state,
        )
        .await
        .expect("r3"),
    );
    assert_eq!(text(&result), "Provisioned 'orders' in EuWest1.");
}

#[tokio::test]
async fn independent_questions_go_out_together() {
    let client = client();
    let first = first_round(&client, "pair", json!({})).await;
    assert_eq!(asked(&first), ["first", "second"]);
    let mut answers = InputResponses::new();
    answers.insert("first", accept(json!({"ok": true})));
    answers.insert("second", accept(json!({"region": "us-east-1"})));
    answers.insert("unknown", json!({"anything": 1}));
    let result = done(
        round(
            &client,
            "pair",
            json!({}),
            Some(answers),
            first.request_state,
        )
        .await
        .expect("r2"),
    );
    assert_eq!(text(&result), "true UsEast1");
}

#[tokio::test]
async fn an_answer_without_its_state_is_asked_again() {
    let client = client();
    let mut answers = InputResponses::new();
    answers.insert("first", accept(json!({"ok": true})));
    answers.insert("second", accept(json!({"region": "us-east-1"})));
    let again = asking(
        round(&client, "pair", json!({}), Some(answers), None)
            .await
            .expect("r"),
    );
    assert_eq!(asked(&again), ["first", "second"]);
}

#[tokio::test]
async fn a_reworded_question_is_asked_again() {
    let client = client();
    let first = first_round(&client, "reworded", json!({})).await;
    let before = message(&first, "answer");
    WORDING.fetch_add(1, Ordering::SeqCst);
    let mut answers = InputResponses::new();
    answers.insert("answer", accept(json!({"ok": true})));
    let again = asking(
        round(
            &client,
            "reworded",
            json!({}),
            Some(answers.clone()),
            first.request_state,
        )
        .await
        .expect("r2"),
    );
    assert_ne!(message(&again, "answer"), before);
    let result = done(
        round(
            &client,
            "reworded",
            json!({}),
            Some(answers),
            again.request_state,
        )
        .await
        .expect("r3"),
    );
    assert_eq!(text(&result), "ok=true");
}

#[tokio::test]
async fn an_answer_that_is_no_elicitation_result_ends_the_call_and_says_which() {
    let client = client();
    let first = first_round(&client, "pair", json!({})).await;
    let not_a_result = "tool `pair`: the answer to `first` is not an elicitation result";
    for (answer, expected) in [
        (json!({"content": {"ok": true}}), not_a_result),
        (
            json!({"action": "maybe", "content": {"ok": true}}),
            not_a_result,
        ),
        (json!({"action": "accept", "content": "ok"}), not_a_result),
        (json!({"action": "accept", "content": [true]}), not_a_result),
        (json!("accept"), not_a_result),
        (json!(["accept", {"ok": true}]), not_a_result),
        (
            json!({"action": "accept", "content": null}),
            "tool `pair`: the answer to `first` was accepted with no content",
        ),
        (
            json!({"action": "accept"}),
            "tool `pair`: the answer to `first` was accepted with no content",
        ),
    ] {
        let result = pair_answered(&client, answer.clone(), first.request_state.clone()).await;
        assert_eq!(result.is_error, Some(true), "{answer}");
        assert_eq!(text(&result), expected, "{answer}");
    }
    // Members the result does not define are no reason to refuse it.
    let answer = json!({"action": "accept", "content": {"ok": true}, "_meta": {"x": 1}});
    let result = pair_answered(&client, answer, first.request_state).await;
    assert_eq!(result.is_error, None, "{}", text(&result));
}

/// `pair`'s second round, with `first` as the answer to `first` and a good one to `second`.
async fn pair_answered(client: &Client, first: Value, state: Option<String>) -> CallToolResult {
    let mut answers = InputResponses::new();
    answers.insert("first", first);
    answers.insert("second", accept(json!({"region": "us-east-1"})));
    let outcome = round(client, "pair", json!({}), Some(answers), state).await;
    done(outcome.expect("answered"))
}

#[tokio::test]
async fn declines_and_bad_answers_end_the_call_with_an_error_result() {
    let client = client();
    let first = first_round(&client, "pair", json!({})).await;
    let mut declined = InputResponses::new();
    declined.insert("first", ElicitResult::decline());
    declined.insert("second", accept(json!({"region": "us-east-1"})));
    let result = done(
        round(
            &client,
            "pair",
            json!({}),
            Some(declined),
            first.request_state.clone(),
        )
        .await
        .expect("declined"),
    );
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).contains("did not answer `first`"),
        "{}",
        text(&result)
    );

    let mut bad = InputResponses::new();
    bad.insert("first", accept(json!({"ok": "yes"})));
    bad.insert("second", accept(json!({"region": "mars-1"})));
    let result = done(
        round(
            &client,
            "pair",
            json!({}),
            Some(bad),
            first.request_state.clone(),
        )
        .await
        .expect("bad"),
    );
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        text(&result),
        "tool `pair`: the answer to `first` does not match the requested schema"
    );

    let mut wrong_kind = InputResponses::new();
    wrong_kind.insert("first", json!({"roots": []}));
    let result = done(
        round(
            &client,
            "pair",
            json!({}),
            Some(wrong_kind),
            first.request_state,
        )
        .await
        .expect("wrong kind"),
    );
    assert_eq!(result.is_error, Some(true));
}

#[tokio::test]
async fn a_decline_reaches_a_function_that_takes_the_outcome() {
    let client = client();
    let args = json!({"name": "orders"});
    let first = first_round(&client, "provision", args.clone()).await;
    let mut answers = InputResponses::new();
    answers.insert("region", accept(json!({"region": "us-east-1"})));
    let second = asking(
        round(
            &client,
            "provision",
            args.clone(),
            Some(answers),
            first.request_state,
        )
        .await
        .expect("r2"),
    );
    let mut answers = InputResponses::new();
    answers.insert("confirm", ElicitResult::decline());
    let result = done(
        round(
            &client,
            "provision",
            args,
            Some(answers),
            second.request_state,
        )
        .await
        .expect("r3"),
    );
    assert_eq!(result.is_error, None);
    assert_eq!(text(&result), "Not provisioned.");
}

#[tokio::test]
async fn sampling_and_roots_batch_and_are_injected() {
    let client = client();
    let args = json!({"topic": "MRTR"});
    let first = first_round(&client, "summarize", args.clone()).await;
    assert_eq!(asked(&first), ["roots", "summary"]);
    let mut answers = InputResponses::new();
    answers.insert(
        "summary",
        json!({"role": "assistant", "content": {"type": "text", "text": "Short."}, "model": "m"}),
    );
    answers.insert(
        "roots",
        json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}),
    );
    let result = done(
        round(
            &client,
            "summarize",
            args,
            Some(answers),
            first.request_state,
        )
        .await
        .expect("r2"),
    );
    assert_eq!(text(&result), "MRTR: Short. (2 roots)");
}

#[tokio::test]
async fn a_missing_capability_is_refused_before_anything_is_asked() {
    let client = connect(
        server(RequestStateSecurity::ephemeral()),
        json!({"elicitation": {}}),
    );
    let error = round(&client, "summarize", json!({"topic": "x"}), None, None)
        .await
        .expect_err("refused");
    let ClientError::Rpc(error) = error else {
        panic!("a JSON-RPC error: {error:?}");
    };
    assert_eq!(error.code, -32021);
    let required = &error.data.expect("data")["requiredCapabilities"];
    assert!(
        required.get("sampling").is_some() && required.get("roots").is_some(),
        "{required}"
    );
}

#[tokio::test]
async fn prompts_and_templates_ask_too() {
    let client = client();
    let Outcome::InputRequired(ask) = client
        .get_prompt_once("tailored", None, None, None)
        .await
        .expect("r1")
    else {
        panic!("asks");
    };
    let mut answers = InputResponses::new();
    answers.insert("audience", accept(json!({"ok": true})));
    let Outcome::Complete(prompt) = client
        .get_prompt_once("tailored", None, Some(answers.clone()), ask.request_state)
        .await
        .expect("r2")
    else {
        panic!("complete");
    };
    assert_eq!(
        prompt.messages[0].content.as_text(),
        Some("tailored ok=true")
    );

    let Outcome::InputRequired(ask) = client
        .read_resource_once("deploy://prod/plan", None, None)
        .await
        .expect("r1")
    else {
        panic!("asks");
    };
    assert_eq!(message(&ask, "go"), "Show the prod plan?");
    let mut answers = InputResponses::new();
    answers.insert("go", accept(json!({"ok": false})));
    let Outcome::Complete(read) = client
        .read_resource_once("deploy://prod/plan", Some(answers), ask.request_state)
        .await
        .expect("r2")
    else {
        panic!("complete");
    };
    let contents = serde_json::to_value(&read.contents).expect("json");
    assert_eq!(contents[0]["text"], "plan for prod: false");
}

#[tokio::test]
async fn a_round_finishes_on_another_instance_only_if_it_shares_the_keys() {
    let keys = || RequestStateSecurity::keys([KEY]).expect("keys");
    let a = connect(server(keys()), all_capabilities());
    let b = connect(server(keys()), all_capabilities());
    let stranger = connect(
        server(RequestStateSecurity::ephemeral()),
        all_capabilities(),
    );
    let first = asking(
        round(&a, "pair", json!({}), None, None)
            .await
            .expect("r1 on a"),
    );
    let mut answers = InputResponses::new();
    answers.insert("first", accept(json!({"ok": true})));
    answers.insert("second", accept(json!({"region": "eu-west-1"})));
    let result = done(
        round(
            &b,
            "pair",
            json!({}),
            Some(answers.clone()),
            first.request_state.clone(),
        )
        .await
        .expect("r2 on b"),
    );
    assert_eq!(text(&result), "true EuWest1");
    let error = round(
        &stranger,
        "pair",
        json!({}),
        Some(answers),
        first.request_state,
    )
    .await
    .expect_err("another key");
    let ClientError::Rpc(error) = error else {
        panic!("a JSON-RPC error");
    };
    assert_eq!(
        serde_json::to_value(&error).expect("json"),
        json!({"code": -32602, "message": "Invalid or expired requestState",
               "data": {"reason": "invalid_request_state"}})
    );
}

/// A 2025-11-25 client on the raw wire: `initialize`, then a call whose Resolve parameters
/// arrive as real server→client requests on the same connection.
mod legacy_back_channel {
    use super::*;
    use mcp::transport::{Duplex, memory};

    struct Legacy {
        end: Duplex,
    }

    impl Legacy {
        async fn start(capabilities: Value) -> Self {
            let (end, server_end) = memory::pair();
            let server = server(RequestStateSecurity::ephemeral())
                .build()
                .expect("server");
            tokio::spawn(async move { server.serve(server_end).await });
            let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": capabilities,
                "clientInfo": {"name": "old", "version": "1"}}});
            end.outgoing.send(init.to_string()).await.expect("send");
            let mut legacy = Self { end };
            let reply = legacy.recv().await;
            assert_eq!(reply["result"]["protocolVersion"], "2025-11-25", "{reply}");
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            legacy.send(initialized).await;
            legacy
        }

        async fn send(&mut self, message: Value) {
            self.end
                .outgoing
                .send(message.to_string())
                .await
                .expect("send");
        }

        async fn recv(&mut self) -> Value {
            let line =
                tokio::time::timeout(std::time::Duration::from_secs(5), self.end.incoming.recv())
                    .await
                    .expect("an answer in time")
                    .expect("open")
                    .expect("a frame");
            serde_json::from_str(&line).expect("json")
        }
    }

    #[tokio::test]
    async fn resolve_parameters_become_server_to_client_requests() {
        let mut client = Legacy::start(json!({"elicitation": {}})).await;
        client
            .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "provision", "arguments": {"name": "orders"}}}))
            .await;
        let ask_region = client.recv().await;
        assert_eq!(ask_region["method"], "elicitation/create", "{ask_region}");
        assert_eq!(
            ask_region["params"]["message"],
            "Which region should 'orders' live in?"
        );
        client
            .send(json!({"jsonrpc": "2.0", "id": ask_region["id"], "result": {
                "action": "accept", "content": {"region": "us-east-1"}}}))
            .await;
        let ask_confirm = client.recv().await;
        assert_eq!(
            ask_confirm["params"]["message"],
            "Provision 'orders' in UsEast1?"
        );
        client
            .send(
                json!({"jsonrpc": "2.0", "id": ask_confirm["id"], "result": {
                "action": "accept", "content": {"ok": true}}}),
            )
            .await;
        let done = client.recv().await;
        assert_eq!(done["id"], 2);
        assert_eq!(
            done["result"]["content"][0]["text"],
            "Provisioned 'orders' in UsEast1."
        );
        assert!(
            done["result"].get("resultType").is_none(),
            "2025 results carry no resultType"
        );
    }

    #[tokio::test]
    async fn the_session_capabilities_gate_the_back_channel() {
        let mut client = Legacy::start(json!({})).await;
        client
            .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "pair", "arguments": {}}}))
            .await;
        let reply = client.recv().await;
        assert_eq!(reply["error"]["code"], -32021, "{reply}");
    }

    #[tokio::test]
    async fn a_client_error_ends_the_call_with_an_error_result() {
        let mut client = Legacy::start(json!({"elicitation": {}})).await;
        client
            .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "reworded", "arguments": {}}}))
            .await;
        let ask = client.recv().await;
        client
            .send(json!({"jsonrpc": "2.0", "id": ask["id"], "error": {
                "code": -32600, "message": "Elicitation not supported"}}))
            .await;
        let done = client.recv().await;
        assert_eq!(done["result"]["isError"], true, "{done}");
    }
}

#[tokio::test]
async fn an_answer_that_leaves_out_defaulted_fields_gets_the_defaults() {
    let client = client();
    let first = first_round(&client, "scale", json!({})).await;
    let requests = serde_json::to_value(&first.input_requests).expect("requests");
    let schema = &requests["replicas"]["params"]["requestedSchema"];
    assert_eq!(schema["properties"]["replicas"]["default"], 3, "{requests}");
    assert!(schema.get("required").is_none(), "{requests}");
    for (content, expected) in [
        (json!({}), "3 standard"),
        (json!({"tier": "gold"}), "3 gold"),
        (json!({"replicas": 5}), "5 standard"),
    ] {
        let mut answers = InputResponses::new();
        answers.insert("replicas", accept(content.clone()));
        let result = done(
            round(
                &client,
                "scale",
                json!({}),
                Some(answers),
                first.request_state.clone(),
            )
            .await
            .expect("r2"),
        );
        assert_eq!(text(&result), expected, "{content}");
    }
}

#[tokio::test]
async fn a_leading_underscore_stays_off_the_wire() {
    let client = client();
    let listed = client.list_tools(None).await.expect("tools/list");
    let tool = listed
        .tools
        .iter()
        .find(|t| t.name == "file_note")
        .expect("listed");
    let properties = &tool.input_schema["properties"];
    assert!(properties.get("tag").is_some(), "{properties}");
    assert!(properties.get("_tag").is_none(), "{properties}");
    let first = first_round(&client, "file_note", json!({"note": "n", "tag": "t"})).await;
    assert_eq!(message(&first, "sure"), "File \"n\"?");
}
