//! The provisioner, end to end in one process: a server that needs to know which region to
//! provision in, and a client that answers the question from a script.
//!
//! Round 1: the client calls `provision`; the server returns an `InputRequiredResult` asking for
//! the region, with an opaque `requestState`. Round 2: the client retries the same call with
//! the answer and the state echoed byte for byte; the server finishes.
//!
//! The tool is a plain `async fn` under `#[mcp::tool]`. The server seals its `requestState`
//! (AES-256-GCM, bound to this call, its arguments and this server, valid ten minutes): the
//! function writes and reads `awaiting-region`, the client only ever sees an opaque `v1.…` token.
//!
//! Run it with `cargo run --example demo`. Every message on the wire is printed.

#[path = "support/logging.rs"]
mod logging;

use mcp::client::Client;
use mcp::protocol::{
    ElicitAction, ElicitParams, ElicitResult, Implementation, InputRequest, InputResponses,
};
use mcp::transport::{Duplex, memory};
use mcp::{Context, InputRequiredResult, McpServer, Outcome};
use serde_json::json;

const STATE: &str = "awaiting-region";

/// Provision a database. Asks which region to put it in.
#[mcp::tool]
async fn provision(
    /// The database to create.
    name: String,
    ctx: Context,
) -> Result<String, InputRequiredResult> {
    // An answer counts only when it comes back with the state of the round that asked for it
    // (sealed by the runtime, so the client cannot forge it).
    let answer = ctx
        .input_responses()
        .filter(|_| ctx.request_state() == Some(STATE))
        .and_then(|responses| responses.elicit("region")?.ok());
    match answer {
        Some(ElicitResult {
            action: ElicitAction::Accept,
            content: Some(content),
        }) => match content.get("region").and_then(|r| r.as_str()) {
            Some(region) => Ok(format!("Provisioned '{name}' in {region}.")),
            None => Ok("The answer did not name a region.".to_owned()),
        },
        Some(_) => Ok("Provisioning cancelled: no region was chosen.".to_owned()),
        None => Err(InputRequiredResult::new()
            .ask(
                "region",
                InputRequest::Elicit(ElicitParams::form(
                    format!("Which region should '{name}' live in?"),
                    json!({
                        "type": "object",
                        "properties": {"region": {
                            "type": "string",
                            "enum": ["eu-west-1", "us-east-1", "ap-south-1"],
                        }},
                        "required": ["region"],
                    }),
                )),
            )
            .with_state(STATE)),
    }
}

/// Relays messages between two ends, printing each one.
fn tapped_pair() -> (Duplex, Duplex) {
    fn pump(
        mut rx: tokio::sync::mpsc::Receiver<mcp::transport::Frame>,
        tx: tokio::sync::mpsc::Sender<String>,
        arrow: &'static str,
    ) {
        tokio::spawn(async move {
            while let Some(Ok(line)) = rx.recv().await {
                println!("{arrow} {line}");
                if tx.send(line).await.is_err() {
                    break;
                }
            }
        });
    }
    let (client_side, tap_client) = memory::pair();
    let (tap_server, server_side) = memory::pair();
    pump(tap_client.incoming, tap_server.outgoing, "->");
    pump(tap_server.incoming, tap_client.outgoing, "<-");
    (client_side, server_side)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    logging::init();
    let (client_end, server_end) = tapped_pair();
    // Sealing of requestState is on by default (a random key per process); deployments with
    // several instances pass shared keys with `.request_state_security(..)`.
    let server = McpServer::new("provisioner")
        .version(env!("CARGO_PKG_VERSION"))
        .tools(mcp::tools![provision])
        .build()?;
    tokio::spawn(async move { server.serve(server_end).await });

    let client = Client::builder(Implementation::new("demo-client", "1.0.0"))
        .capabilities(serde_json::from_value(json!({"elicitation": {}}))?)
        .connect(client_end);

    let arguments = json!({"name": "orders"});
    let (mut responses, mut state) = (None, None);
    for round in 1.. {
        println!("\n== round {round}: tools/call provision");
        match client
            .call_tool_once(
                "provision",
                Some(arguments.clone()),
                responses.take(),
                state.take(),
            )
            .await?
        {
            Outcome::Complete(result) => {
                let text = result
                    .content
                    .first()
                    .and_then(|c| c.as_text())
                    .unwrap_or("");
                println!("\n== done: {text}");
                break;
            }
            Outcome::InputRequired(ask) => {
                let mut answers = InputResponses::new();
                for (key, request) in ask.requests() {
                    if let InputRequest::Elicit(question) = request {
                        println!("   the server asks ({key}): {}", question.message());
                        println!("   the scripted user answers: eu-west-1");
                        let content = json!({"region": "eu-west-1"});
                        let content = content.as_object().cloned().unwrap_or_default();
                        answers.insert(key, ElicitResult::accept(content));
                    }
                }
                responses = Some(answers);
                state = ask.request_state;
            }
        }
    }
    Ok(())
}
