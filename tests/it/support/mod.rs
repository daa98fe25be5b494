//! What several facade tests share: a tool that asks a region, then (depending on it) a
//! confirmation, and the scripted user that answers it; `http` is the raw HTTP client,
//! `snapshot` compares generated JSON with committed files.

#[cfg(feature = "http")]
pub mod http;
pub mod snapshot;

use mcp::Elicit;
use mcp::protocol::{ElicitParams, ElicitResult};
use serde_json::json;

/// Which region?
#[derive(serde::Deserialize, mcp::Elicitation)]
pub struct Region {
    pub region: String,
}

/// Sure?
#[derive(serde::Deserialize, mcp::Elicitation)]
pub struct Sure {
    pub ok: bool,
}

#[mcp::tool]
pub async fn provision(
    name: String,
    #[mcp(ask = format!("Region for {name}?"))] region: Elicit<Region>,
    #[mcp(ask = format!("{name} in {}?", region.region))] sure: Elicit<Sure>,
) -> String {
    format!("{name} in {}: {}", region.region, sure.ok)
}

/// The scripted user of `provision`: `eu-west-1` for the region, yes to everything else.
pub fn answer(question: &ElicitParams) -> ElicitResult {
    let content = if question.message().starts_with("Region") {
        json!({"region": "eu-west-1"})
    } else {
        json!({"ok": true})
    };
    ElicitResult::accept(content.as_object().cloned().unwrap_or_default())
}

/// The project root (where `scripts/` and `.venv/` are).
pub fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Python interpreter of `.venv` (with `mcp==2.3.0`), creating the venv on first use.
pub fn python() -> &'static std::path::PathBuf {
    static PYTHON: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    PYTHON.get_or_init(|| {
        let status = std::process::Command::new(root().join("scripts/python-venv.sh"))
            .status()
            .expect("run scripts/python-venv.sh");
        assert!(status.success(), "scripts/python-venv.sh failed");
        root().join(".venv/bin/python")
    })
}

/// An example binary: `cargo test` builds the examples next to the test binaries' directory.
pub fn example(name: &str) -> std::path::PathBuf {
    let mut dir = std::env::current_exe().expect("test binary path");
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join("examples").join(name)
}

/// Blocks until a server child process listens on `addr` (at most 10 s).
pub fn wait_listening(addr: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the server at {addr} did not start listening"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A client talking to `server` in this process, over an in-memory transport.
pub fn connect_in_memory(server: mcp::server::Server) -> mcp::client::Client {
    let (client_end, server_end) = mcp::transport::memory::pair();
    tokio::spawn(async move { server.serve(server_end).await });
    mcp::client::Client::connect(
        client_end,
        mcp::protocol::Implementation::new("test-client", "1.0.0"),
    )
}
