//! The client under test for the official conformance suite's client scenarios. The harness
//! starts a mock server, then runs this program with the server URL as the last argument and
//! the scenario in `MCP_CONFORMANCE_SCENARIO`.
//!
//! ```sh
//! conformance client --command "target/release/examples/conformance_client" --scenario tools_call
//! ```
//!
//! The `auth/*` scenarios put the server behind OAuth: the client authorizes headlessly (the
//! mock authorization server approves at once), with the credentials the scenario passes in
//! `MCP_CONFORMANCE_CONTEXT` when it has some. The `auth/client-credentials-*` ones have no
//! user: the client obtains its token for itself, with a secret or a signed assertion. DPoP
//! (`auth/dpop*`) needs nothing here: the client binds its tokens wherever it is offered.

use anyhow::{Context as _, bail};
use mcp::auth::JwtAlgorithm;
use mcp::client::Client;
use mcp::client::auth::{ClientCredentials, HeadlessAuthorize, OAuth};
use mcp::protocol::{
    CreateMessageResult, ElicitParams, ElicitResult, Implementation, ListRootsResult, OneOrMany,
    Role, SamplingContent,
};
use mcp::transport::http_client;
use serde_json::{Value, json};

/// Where this client's Client ID Metadata Document would be published: the URL the
/// `auth/basic-cimd` scenario expects as the `client_id` (nobody fetches it there).
const CLIENT_METADATA_DOCUMENT: &str = "https://conformance-test.local/client-metadata.json";

/// The scenario's data (credentials, tool calls), `null` if it has none.
fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null)
}

/// The OAuth client of the `auth/*` scenarios: pre-registered credentials when the scenario
/// hands some out, else the metadata document or dynamic registration, as the server allows;
/// the client credentials grant with the scenario's secret or key where there is no user.
fn oauth(scenario: &str) -> anyhow::Result<OAuth> {
    let context = context();
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    if scenario.starts_with("auth/client-credentials-") {
        let client_id = text("client_id").context("no client_id in the context")?;
        let credentials = match (text("private_key_pem"), text("client_secret")) {
            (Some(pem), _) => {
                let algorithm = match text("signing_algorithm").as_deref() {
                    None | Some("ES256") => JwtAlgorithm::ES256,
                    Some("ES384") => JwtAlgorithm::ES384,
                    Some("RS256") => JwtAlgorithm::RS256,
                    Some("EdDSA") => JwtAlgorithm::EdDSA,
                    Some(other) => bail!("unsupported signing_algorithm {other}"),
                };
                ClientCredentials::private_key_jwt(client_id, pem, algorithm)?
            }
            (None, Some(secret)) => ClientCredentials::confidential(client_id, secret),
            (None, None) => bail!("no private_key_pem or client_secret in the context"),
        };
        return Ok(OAuth::client_credentials(credentials).build());
    }
    let mut oauth = OAuth::builder(HeadlessAuthorize::new("http://127.0.0.1:8976/callback"))
        .client_name("mcp-rust-conformance-client")
        .client_metadata_document(CLIENT_METADATA_DOCUMENT);
    if let Some(client_id) = text("client_id") {
        let credentials = match text("client_secret") {
            Some(secret) => ClientCredentials::confidential(client_id, secret),
            None => ClientCredentials::public(client_id),
        };
        oauth = oauth.pre_registered(text("issuer"), credentials);
    }
    Ok(oauth.build())
}

fn client(url: &str, scenario: &str) -> anyhow::Result<Client> {
    let duplex = if scenario.starts_with("auth/") {
        http_client::Builder::new(url)
            .auth(oauth(scenario)?)
            .connect()?
    } else {
        http_client::connect(url)?
    };
    Ok(
        Client::builder(Implementation::new("mcp-rust-conformance-client", "1.0.0"))
            .on_elicit(|question| async move { Ok(ElicitResult::accept(answer_form(&question))) })
            .on_sample(|_params| async {
                Ok(CreateMessageResult {
                    role: Role::Assistant,
                    content: OneOrMany::One(SamplingContent::text("A sampled answer.")),
                    model: "conformance-model".into(),
                    stop_reason: Some("endTurn".into()),
                    meta: None,
                })
            })
            .on_list_roots(|| async { Ok(ListRootsResult { roots: Vec::new() }) })
            .connect(duplex),
    )
}

/// A scripted user: every field of the form gets its default (SEP-1034: a client applies the
/// schema's defaults to fields the user left alone), or a plausible value of its type.
fn answer_form(question: &ElicitParams) -> serde_json::Map<String, Value> {
    let ElicitParams::Form {
        requested_schema, ..
    } = question
    else {
        return serde_json::Map::new();
    };
    let Some(properties) = requested_schema
        .get("properties")
        .and_then(Value::as_object)
    else {
        return serde_json::Map::new();
    };
    properties
        .iter()
        .map(|(name, field)| {
            let value = field.get("default").cloned().unwrap_or_else(|| {
                match field.get("type").and_then(Value::as_str) {
                    Some("boolean") => json!(true),
                    Some("integer") | Some("number") => json!(1),
                    Some("array") => json!([]),
                    _ => field
                        .get("enum")
                        .and_then(|e| e.get(0))
                        .cloned()
                        .unwrap_or_else(|| json!("conformance")),
                }
            });
            (name.clone(), value)
        })
        .collect()
}

/// Lists every tool (all pages).
async fn tools(client: &Client) -> anyhow::Result<Vec<mcp::protocol::Tool>> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = client.list_tools(cursor.as_deref()).await?;
        all.extend(page.tools);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(all),
        }
    }
}

async fn run(scenario: &str, url: &str) -> anyhow::Result<()> {
    let client = client(url, scenario)?;
    if std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() == Ok("2025-11-25") {
        client.initialize().await?;
    }
    match scenario {
        "tools_call" => {
            tools(&client).await?;
            client
                .call_tool("add_numbers", Some(json!({"a": 2, "b": 3})))
                .await?;
        }
        "sep-2322-client-request-state" => request_state(&client).await?,
        // The server reads back the focal tool's inputSchema as this client holds it: every
        // JSON Schema 2020-12 keyword must have survived the client's model of a tool.
        "json-schema-2020-12-preservation" => {
            let focal = tools(&client)
                .await?
                .into_iter()
                .find(|tool| tool.name == "json_schema_2020_12_tool")
                .context("no json_schema_2020_12_tool")?;
            let schema = serde_json::to_value(&focal.input_schema)?;
            client
                .call_tool_once(
                    "json_schema_echo",
                    Some(json!({"schema": schema})),
                    None,
                    None,
                )
                .await?;
        }
        // Every request must get through: a failed authorization fails the run (the
        // scenarios that expect a refusal accept the exit code).
        auth if auth.starts_with("auth/") => {
            for tool in tools(&client).await? {
                client
                    .call_tool_once(&tool.name, Some(json!({})), None, None)
                    .await?;
            }
        }
        "http-custom-headers" => {
            tools(&client).await?;
            let calls = context()
                .get("toolCalls")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for call in calls {
                let name = call
                    .get("name")
                    .and_then(Value::as_str)
                    .context("a tool call without a name")?;
                client
                    .call_tool_once(name, call.get("arguments").cloned(), None, None)
                    .await?;
            }
        }
        "http-invalid-tool-headers" => {
            // Tools with invalid annotations are dropped from the listing; call what remains.
            for tool in tools(&client).await? {
                let _ = client
                    .call_tool_once(&tool.name, Some(json!({})), None, None)
                    .await;
            }
        }
        // request-metadata, http-standard-headers, json-schema-ref-no-deref and the rest:
        // discover, list, and use what the server offers.
        _ => {
            if client.protocol_version() != "2025-11-25" {
                let _ = client.discover().await;
            }
            for tool in tools(&client).await? {
                let _ = client
                    .call_tool_once(&tool.name, Some(json!({})), None, None)
                    .await;
            }
        }
    }
    Ok(())
}

/// echo_state → unrelated → retry echo_state → no_state → retry → no_result_type, driven by
/// hand so the rounds interleave as the scenario expects.
async fn request_state(client: &Client) -> anyhow::Result<()> {
    let first = client
        .call_tool_once("test_mrtr_echo_state", Some(json!({})), None, None)
        .await?;
    let mcp::Outcome::InputRequired(ask) = first else {
        bail!("test_mrtr_echo_state did not ask");
    };
    client
        .call_tool_once("test_mrtr_unrelated", Some(json!({})), None, None)
        .await?;
    let answers = client.answer(&ask).await?;
    client
        .call_tool_once(
            "test_mrtr_echo_state",
            Some(json!({})),
            Some(answers),
            ask.request_state.clone(),
        )
        .await?;
    client
        .call_tool("test_mrtr_no_state", Some(json!({})))
        .await?;
    client
        .call_tool("test_mrtr_no_result_type", Some(json!({})))
        .await?;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let url = std::env::args()
        .next_back()
        .filter(|a| a.starts_with("http"))
        .context("the server URL must be the last argument")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    run(&scenario, &url).await
}
