//! `examples/provisioner.rs` as a child process over stdio: the region in one round, the
//! dependent confirmation in the next, then the result; the state sealed throughout.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::process::{ChildGuard, example};

fn call(id: u64, answers: Option<Value>, state: Option<&str>) -> String {
    let mut params = json!({
        "name": "provision",
        "arguments": {"name": "orders"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        },
    });
    if let Some(answers) = answers {
        params["inputResponses"] = answers;
    }
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string() + "\n"
}

#[test]
fn the_provisioner_asks_region_then_confirmation_over_stdio() {
    let mut child = ChildGuard::spawn(
        Command::new(example("provisioner"))
            .env_remove("MCP_REQUEST_STATE_KEYS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped()),
    );
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut next = || -> Value {
        let line = lines.next().expect("a line").expect("read");
        serde_json::from_str(&line).expect("json")
    };

    stdin
        .write_all(call(1, None, None).as_bytes())
        .expect("write");
    let first = next();
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert_eq!(
        result["inputRequests"].as_object().map(|o| o.len()),
        Some(1)
    );
    assert!(result["inputRequests"]["region"].is_object(), "{first}");
    let state = result["requestState"].as_str().expect("state").to_owned();
    assert!(state.starts_with("v1."));

    let answers = json!({"region": {"action": "accept", "content": {"region": "ap-south-1"}}});
    stdin
        .write_all(call(2, Some(answers), Some(&state)).as_bytes())
        .expect("write");
    let second = next();
    let result = &second["result"];
    assert_eq!(
        result["inputRequests"]["confirm"]["params"]["message"],
        "Provision 'orders' in ap-south-1?"
    );
    let state = result["requestState"].as_str().expect("state").to_owned();

    let answers = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    stdin
        .write_all(call(3, Some(answers), Some(&state)).as_bytes())
        .expect("write");
    let third = next();
    assert_eq!(
        third["result"]["content"][0]["text"],
        "Provisioned 'orders' in ap-south-1."
    );
    // The end of its input ends the server.
    drop(stdin);
    let status = child.wait_exit(Duration::from_secs(10));
    assert!(status.success(), "{status}");
}
