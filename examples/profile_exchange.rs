//! Drives exactly N operations through `bench_server`'s tools in process, line in and line out
//! over the in-memory transport (no HTTP), checking every answer: the deterministic load for
//! `scripts/profile.sh`, which runs it under callgrind twice and takes the difference, so
//! start-up cancels out. The tools and requests are those of the load benchmark
//! (`BENCHMARKS.md`); `requestState` is sealed, as by default.
//!
//! `seal` seals and opens a 200-byte state with every claim, as the `sealing` criterion bench
//! of `mcp-runtime` does.
//!
//! ```sh
//! cargo run --release --example profile_exchange -- mrtr 1000
//! ```

#[path = "support/bench_tools.rs"]
mod bench_tools;

use mcp::McpServer;
use mcp::auth::Identity;
use mcp::state::{RequestBinding, RequestStateSecurity, StateBoundary};

use bench_tools::{echo, provision};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"0.1.0"}}"#;
const ANSWER: &str =
    r#""inputResponses":{"region":{"action":"accept","content":{"region":"eu-west-1"}}}"#;
const USAGE: &str = "usage: profile_exchange echo|mrtr|seal COUNT";

fn call(id: u64, tool: &str, arguments: &str, extra: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments},{extra}{META}}}}}"#
    )
}

/// The `requestState` of a round-1 answer; a sealed token is base64url, so never escaped.
fn request_state(answer: &str) -> anyhow::Result<&str> {
    const KEY: &str = r#""requestState":""#;
    let start = answer
        .find(KEY)
        .ok_or_else(|| anyhow::anyhow!("no requestState: {answer}"))?
        + KEY.len();
    let len = answer[start..]
        .find('"')
        .ok_or_else(|| anyhow::anyhow!("unterminated requestState: {answer}"))?;
    Ok(&answer[start..start + len])
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mrtr, count): (bool, u64) = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["echo", count] => (false, count.parse()?),
        ["mrtr", count] => (true, count.parse()?),
        ["seal", count] => return seal_and_open(count.parse()?),
        _ => anyhow::bail!(USAGE),
    };
    let mut wire = McpServer::new("bench")
        .tools(mcp::tools![echo, provision])
        .serve_in_memory()?;
    let mut round_trip = async |line: String| -> anyhow::Result<String> {
        wire.outgoing.send(line).await?;
        match wire.incoming.recv().await {
            Some(Ok(answer)) => Ok(answer),
            other => anyhow::bail!("no answer: {other:?}"),
        }
    };
    let echo_line = call(1, "echo", r#"{"text":"hello world"}"#, "");
    let first = call(1, "provision", r#"{"name":"orders"}"#, "");
    for _ in 0..count {
        if !mrtr {
            let answer = round_trip(echo_line.clone()).await?;
            anyhow::ensure!(answer.contains(r#""text":"hello world""#), "{answer}");
            continue;
        }
        let asked = round_trip(first.clone()).await?;
        anyhow::ensure!(
            asked.contains(r#""resultType":"input_required""#),
            "{asked}"
        );
        let state = request_state(&asked)?;
        let retry = call(
            2,
            "provision",
            r#"{"name":"orders"}"#,
            &format!(r#"{ANSWER},"requestState":"{state}","#),
        );
        let done = round_trip(retry).await?;
        anyhow::ensure!(
            done.contains("eu-west-1") && !done.contains(r#""isError":true"#),
            "{done}"
        );
    }
    Ok(())
}

/// Seals and opens `count` times what the `sealing` bench does: 200 bytes of state, bound to
/// a call, an audience and a verified caller.
fn seal_and_open(count: u64) -> anyhow::Result<()> {
    let security = RequestStateSecurity::keys(["benchmark-secret-0123456789abcdef0123456789"])?;
    let boundary = StateBoundary::new(security, "bench")?;
    let arguments = serde_json::json!({"name": "orders", "region": "eu-west-1"});
    let binding = RequestBinding::new("tools/call", "provision", Some(&arguments));
    let identity = Identity {
        client_id: Some("bench-client".into()),
        issuer: Some("https://issuer.example".into()),
        subject: Some("user-42".into()),
        ..Identity::default()
    };
    let state = "s".repeat(200);
    for _ in 0..count {
        let token = boundary.seal(&state, &binding, Some(&identity))?;
        let opened = boundary.open(&serde_json::Value::String(token), &binding, Some(&identity))?;
        anyhow::ensure!(opened == state, "opened {opened:?}");
    }
    Ok(())
}
