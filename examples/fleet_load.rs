//! Drives full exchanges of the provisioner's `provision` tool (three `tools/call` rounds: the
//! region, a confirmation, the result) through one URL, usually a load balancer in front of
//! several `examples/provisioner.rs` instances, and prints the counts as one JSON line.
//!
//! ```sh
//! cargo run --example fleet_load -- --url http://127.0.0.1:8080/mcp --exchanges 1000 --concurrency 8
//! ```
//!
//! - `--exchanges N`: how many exchanges to run (default 100).
//! - `--concurrency C`: how many clients run exchanges at once, each its own connection pool
//!   (default 8).
//! - `--restart-on-invalid-state MAX`: a call whose retry is rejected with the fixed
//!   `Invalid or expired requestState` error starts over, up to MAX times
//!   ([`Client::restart_on_invalid_state`]); without it such a call fails.
//! - `--until FILE`: keep going after N exchanges until FILE exists (for a rolling restart).
//!
//! The line holds `exchanges`, `ok`, `failed`, `rejected_rounds` (rounds answered with the fixed
//! error), `restarts`, `seconds`, and `errors` (each failure's message with its count).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use mcp::client::{Client, ClientError};
use mcp::protocol::{ElicitParams, ElicitResult, Implementation};
use mcp::transport::http_client;
use serde_json::json;

/// No exchange of this small tool should take anywhere near this long; one that does is
/// counted as failed instead of holding the run.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

const USAGE: &str = "usage: fleet_load --url URL [--exchanges N] [--concurrency C] \
                     [--restart-on-invalid-state MAX] [--until FILE]";

struct Options {
    url: String,
    exchanges: u64,
    concurrency: usize,
    restarts: u32,
    until: Option<PathBuf>,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut options = Options {
            url: String::new(),
            exchanges: 100,
            concurrency: 8,
            restarts: 0,
            until: None,
        };
        for pair in args.chunks(2) {
            let [flag, value] = pair else { bail!(USAGE) };
            match flag.as_str() {
                "--url" => options.url = value.clone(),
                "--exchanges" => options.exchanges = value.parse().context("--exchanges")?,
                "--concurrency" => options.concurrency = value.parse().context("--concurrency")?,
                "--restart-on-invalid-state" => {
                    options.restarts = value.parse().context("--restart-on-invalid-state")?;
                }
                "--until" => options.until = Some(PathBuf::from(value)),
                _ => bail!(USAGE),
            }
        }
        if options.url.is_empty() || options.concurrency == 0 {
            bail!(USAGE);
        }
        Ok(options)
    }

    /// Whether exchange number `n` (from 0) should run.
    fn wants(&self, n: u64) -> bool {
        n < self.exchanges || self.until.as_ref().is_some_and(|stop| !stop.exists())
    }
}

/// What all clients count together.
#[derive(Default)]
struct Counts {
    started: AtomicU64,
    ok: AtomicU64,
    failed: AtomicU64,
    rejected_final: AtomicU64,
    region_questions: AtomicU64,
    errors: Mutex<BTreeMap<String, u64>>,
}

impl Counts {
    fn fail(&self, message: String) {
        self.failed.fetch_add(1, Ordering::Relaxed);
        let mut errors = self.errors.lock().unwrap_or_else(|e| e.into_inner());
        *errors.entry(message).or_default() += 1;
    }
}

/// The scripted user: eu-west-1, and yes. Each call, and each restart of one, asks the region
/// once, so the region questions beyond the calls started are the restarts.
fn client(url: &str, restarts: u32, counts: Arc<Counts>) -> anyhow::Result<Client> {
    let duplex = http_client::connect(url)?;
    Ok(Client::builder(Implementation::new("fleet_load", "1.0.0"))
        .call_timeout(CALL_TIMEOUT)
        .restart_on_invalid_state(restarts)
        .on_elicit(move |question: ElicitParams| {
            let counts = counts.clone();
            async move {
                let content = if question.message().starts_with("Which region") {
                    counts.region_questions.fetch_add(1, Ordering::Relaxed);
                    json!({"region": "eu-west-1"})
                } else {
                    json!({"confirm": true})
                };
                Ok(ElicitResult::accept(
                    content.as_object().cloned().unwrap_or_default(),
                ))
            }
        })
        .connect(duplex))
}

async fn run_client(client: Client, options: Arc<Options>, counts: Arc<Counts>) {
    loop {
        let n = counts.started.fetch_add(1, Ordering::Relaxed);
        if !options.wants(n) {
            counts.started.fetch_sub(1, Ordering::Relaxed);
            return;
        }
        let name = format!("db-{n}");
        let expected = format!("Provisioned '{name}' in eu-west-1.");
        match client
            .call_tool("provision", Some(json!({ "name": name })))
            .await
        {
            Ok(result)
                if result.content.first().and_then(|c| c.as_text()) == Some(expected.as_str()) =>
            {
                counts.ok.fetch_add(1, Ordering::Relaxed);
            }
            Ok(result) => counts.fail(format!("unexpected result: {:?}", result.content)),
            Err(ClientError::Rpc(error)) if error.is_invalid_request_state() => {
                counts.rejected_final.fetch_add(1, Ordering::Relaxed);
                counts.fail(error.to_string());
            }
            Err(error) => counts.fail(error.to_string()),
        }
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = Arc::new(Options::parse(&args)?);
    let counts = Arc::new(Counts::default());
    let started = Instant::now();
    let mut clients = tokio::task::JoinSet::new();
    for _ in 0..options.concurrency {
        let client = client(&options.url, options.restarts, counts.clone())?;
        clients.spawn(run_client(client, options.clone(), counts.clone()));
    }
    while let Some(done) = clients.join_next().await {
        done.context("a client task failed")?;
    }
    let exchanges = counts.started.load(Ordering::Relaxed);
    let restarts = counts
        .region_questions
        .load(Ordering::Relaxed)
        .saturating_sub(exchanges);
    let errors = counts.errors.lock().unwrap_or_else(|e| e.into_inner());
    let report = json!({
        "exchanges": exchanges,
        "ok": counts.ok.load(Ordering::Relaxed),
        "failed": counts.failed.load(Ordering::Relaxed),
        // Every rejection either restarted its call or ended it.
        "rejected_rounds": restarts + counts.rejected_final.load(Ordering::Relaxed),
        "restarts": restarts,
        "seconds": (started.elapsed().as_secs_f64() * 100.0).round() / 100.0,
        "errors": *errors,
    });
    println!("{report}");
    Ok(())
}
