//! The Python SDK's own client (`mcp==2.3.0`, in `.venv`, made by `scripts/python-venv.sh`)
//! completes every round of `examples/provisioner.rs`, over stdio and Streamable HTTP, as a
//! 2026-07-28 client (rounds of `InputRequiredResult`) and as a 2025-11-25 one (the
//! back-channel).

use std::process::{Command, Stdio};

use crate::support::process::{ChildGuard, example, free_port, python, root};

/// Runs the Python client against `target` in `mode` and checks it finished every round.
fn python_client(target: &str, mode: &str, version: &str) {
    let output = Command::new(python())
        .arg(root().join("scripts/python_client_interop.py"))
        .args([target, mode])
        .env_remove("MCP_REQUEST_STATE_KEYS")
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{target} {mode}:\n{stdout}\n{stderr}"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "asked: Which region should 'orders' live in?",
            "asked: Provision 'orders' in eu-west-1?",
            &format!("version: {version}"),
            "result: Provisioned 'orders' in eu-west-1.",
        ],
        "{target} {mode}\n{stderr}"
    );
}

#[test]
fn the_python_client_completes_every_round_over_stdio() {
    let command = example("provisioner");
    let command = command.to_str().expect("utf-8 path");
    python_client(command, "auto", "2026-07-28");
    python_client(command, "legacy", "2025-11-25");
}

#[test]
fn the_python_client_completes_every_round_over_http() {
    let addr = format!("127.0.0.1:{}", free_port());
    let mut server = ChildGuard::spawn(
        Command::new(example("provisioner"))
            .args(["--http", &addr])
            .env_remove("MCP_REQUEST_STATE_KEYS")
            .stderr(Stdio::null()),
    );
    server.wait_listening(&addr);
    let url = format!("http://{addr}/mcp");
    python_client(&url, "auto", "2026-07-28");
    python_client(&url, "legacy", "2025-11-25");
}
