//! Our client against the Python SDK's server (`mcp==2.3.0`, `scripts/python_mrtr_server.py`
//! over stdio): the automatic round loop completes its resolver tool (a question, then a
//! dependent one) and its hand-built `InputRequiredResult`, as a 2026-07-28 client and over the
//! 2025-11-25 back-channel.

use std::sync::{Arc, Mutex};

use mcp::client::Client;
use mcp::protocol::{ElicitParams, ElicitResult, Implementation};
use mcp::transport::stdio;
use serde_json::json;

use crate::support::process::{python, root};

/// A client of the Python server that answers forms and records every question asked.
fn connect() -> (Client, Arc<Mutex<Vec<String>>>, tokio::process::Child) {
    let mut command = tokio::process::Command::new(python());
    command.arg(root().join("scripts/python_mrtr_server.py"));
    let (duplex, child) = stdio::spawn(command).expect("start the Python server");
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    let client = Client::builder(Implementation::new("rust-client", "1.0.0"))
        .on_elicit(move |question: ElicitParams| {
            let log = log.clone();
            async move {
                let message = question.message().to_owned();
                log.lock().expect("log").push(message.clone());
                let content = if message.starts_with("Which region") {
                    json!({"region": "eu-west-1"})
                } else {
                    json!({"confirm": true})
                };
                Ok(ElicitResult::accept(
                    content.as_object().cloned().unwrap_or_default(),
                ))
            }
        })
        .connect(duplex);
    (client, asked, child)
}

fn text(result: &mcp::CallToolResult) -> &str {
    result.content[0].as_text().expect("text")
}

#[tokio::test]
async fn our_client_completes_the_python_servers_rounds() {
    let (client, asked, _server) = connect();
    assert_eq!(client.negotiate().await.expect("negotiate"), "2026-07-28");
    let result = client
        .call_tool("provision", Some(json!({"name": "orders"})))
        .await
        .expect("the resolver tool completes");
    assert_eq!(text(&result), "Provisioned 'orders' in eu-west-1.");
    assert_eq!(
        *asked.lock().expect("log"),
        [
            "Which region should 'orders' live in?",
            "Provision 'orders' in eu-west-1?"
        ]
    );
    let deployed = client
        .call_tool("deploy", Some(json!({"env": "prod"})))
        .await
        .expect("the hand-built round completes");
    assert_eq!(text(&deployed), "Deployed to prod (confirm=True).");
}

#[tokio::test]
async fn our_client_answers_the_python_servers_back_channel() {
    let (client, asked, _server) = connect();
    let init = client.initialize().await.expect("2025-11-25 session");
    assert_eq!(init.protocol_version, "2025-11-25");
    let result = client
        .call_tool("provision", Some(json!({"name": "legacy"})))
        .await
        .expect("completes over the back-channel");
    assert_eq!(text(&result), "Provisioned 'legacy' in eu-west-1.");
    assert_eq!(asked.lock().expect("log").len(), 2);
}

/// The same flows over Streamable HTTP, with our HTTP client transport.
#[cfg(feature = "http")]
mod over_http {
    use std::process::{Command, Stdio};

    use mcp::transport::http_client;

    use super::*;
    use crate::support::process::{ChildGuard, free_port};

    fn start() -> (ChildGuard, String) {
        let port = free_port();
        let mut server = ChildGuard::spawn(
            Command::new(python())
                .arg(root().join("scripts/python_mrtr_server.py"))
                .args(["--http", &port.to_string()])
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        );
        let addr = format!("127.0.0.1:{port}");
        server.wait_listening(&addr);
        (server, format!("http://{addr}/mcp"))
    }

    fn client(url: &str) -> Client {
        let duplex = http_client::connect(url).expect("a valid URL");
        Client::builder(Implementation::new("rust-client", "1.0.0"))
            .on_elicit(|question: ElicitParams| async move {
                let content = if question.message().starts_with("Which region") {
                    json!({"region": "eu-west-1"})
                } else {
                    json!({"confirm": true})
                };
                Ok(ElicitResult::accept(
                    content.as_object().cloned().unwrap_or_default(),
                ))
            })
            .connect(duplex)
    }

    #[tokio::test]
    async fn our_http_client_completes_the_python_servers_rounds_on_both_wires() {
        let (_server, url) = start();
        let modern = client(&url);
        assert_eq!(modern.negotiate().await.expect("negotiate"), "2026-07-28");
        let result = modern
            .call_tool("provision", Some(json!({"name": "orders"})))
            .await
            .expect("completes");
        assert_eq!(text(&result), "Provisioned 'orders' in eu-west-1.");

        let legacy = client(&url);
        let init = legacy.initialize().await.expect("a 2025-11-25 session");
        assert_eq!(init.protocol_version, "2025-11-25");
        let result = legacy
            .call_tool("provision", Some(json!({"name": "legacy"})))
            .await
            .expect("completes over the back-channel");
        assert_eq!(text(&result), "Provisioned 'legacy' in eu-west-1.");
    }
}
