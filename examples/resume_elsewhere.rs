//! A round persisted to a file and finished by another process, against another server
//! instance: what a distributed client does with 2026-07-28's stateless rounds.
//!
//! ```sh
//! cargo run --example resume_elsewhere            # both steps, each in its own process
//! cargo run --example resume_elsewhere -- start round.json
//! cargo run --example resume_elsewhere -- finish round.json
//! ```
//!
//! Each step starts its own `provisioner` server (the example next to this one) over stdio;
//! both share `MCP_REQUEST_STATE_KEYS`, so the second instance accepts the state the first
//! one sealed.

#[path = "support/logging.rs"]
mod logging;

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use mcp::client::{Client, Resume};
use mcp::protocol::{ElicitParams, ElicitResult, Implementation, InputRequiredResult};
use mcp::transport::stdio;
use serde_json::{Value, json};

const KEYS: &str = "resume-elsewhere-demo-secret-0123456789abcdef";

/// The `provisioner` example built next to this one.
fn provisioner() -> anyhow::Result<tokio::process::Command> {
    let mut path = std::env::current_exe()?;
    path.set_file_name(format!("provisioner{}", std::env::consts::EXE_SUFFIX));
    if !path.exists() {
        bail!("build the provisioner first: cargo build --example provisioner");
    }
    let mut command = tokio::process::Command::new(path);
    command.env("MCP_REQUEST_STATE_KEYS", KEYS);
    Ok(command)
}

fn arguments() -> Value {
    json!({"name": "orders"})
}

/// Step 1: the first round, saved.
async fn start(file: &Path) -> anyhow::Result<()> {
    let (duplex, _server) = stdio::spawn(provisioner()?)?;
    let client = Client::builder(Implementation::new("starter", "1.0.0"))
        .capabilities(serde_json::from_value(
            json!({"elicitation": {"form": {}}}),
        )?)
        .connect(duplex);
    match client
        .call_tool_once("provision", Some(arguments()), None, None)
        .await?
    {
        mcp::Outcome::InputRequired(ask) => {
            std::fs::write(file, serde_json::to_string_pretty(&ask)?)?;
            println!(
                "[starter pid {}] saved the round to {}",
                std::process::id(),
                file.display()
            );
            Ok(())
        }
        mcp::Outcome::Complete(_) => bail!("the server did not ask"),
    }
}

/// Step 2: a new process answers the saved questions and lets the loop finish the call.
async fn finish(file: &Path) -> anyhow::Result<()> {
    let saved: InputRequiredResult =
        serde_json::from_str(&std::fs::read_to_string(file).context("read the saved round")?)?;
    let (duplex, _server) = stdio::spawn(provisioner()?)?;
    let client = Client::builder(Implementation::new("finisher", "1.0.0"))
        .on_elicit(|question: ElicitParams| async move {
            println!("    asked: {}", question.message());
            let answer = if question.message().starts_with("Which region") {
                json!({"region": "eu-west-1"})
            } else {
                json!({"confirm": true})
            };
            Ok(ElicitResult::accept(
                answer.as_object().cloned().unwrap_or_default(),
            ))
        })
        .connect(duplex);
    // Answer the saved questions with the same handler, then let the loop take over.
    let answers = client.answer(&saved).await?;
    let result = client
        .resume_tool(
            "provision",
            Some(arguments()),
            Resume {
                input_responses: Some(answers),
                request_state: saved.request_state,
            },
        )
        .await?;
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or("");
    println!("[finisher pid {}] {text}", std::process::id());
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    logging::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["start", file] => start(Path::new(file)).await,
        ["finish", file] => finish(Path::new(file)).await,
        [] => {
            let file: PathBuf =
                std::env::temp_dir().join(format!("mcp-round-{}.json", std::process::id()));
            let me = std::env::current_exe()?;
            for step in ["start", "finish"] {
                let status = std::process::Command::new(&me)
                    .arg(step)
                    .arg(&file)
                    .status()?;
                if !status.success() {
                    bail!("the {step} step failed: {status}");
                }
            }
            let _ = std::fs::remove_file(&file);
            Ok(())
        }
        _ => bail!("usage: resume_elsewhere [start FILE | finish FILE]"),
    }
}
