//! Hostile and careless stdio clients against `examples/provisioner.rs` as a child process:
//! input that ends while replies are still queued, pipelining without waiting, a client that
//! writes but never reads. Every request read is answered, in a server of bounded size.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::process::{ChildGuard, example};

fn provisioner() -> ChildGuard {
    ChildGuard::spawn(
        Command::new(example("provisioner"))
            .env_remove("MCP_REQUEST_STATE_KEYS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
    )
}

/// A stateless (2026-07-28) `server/discover`.
fn discover(id: u64) -> String {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "server/discover",
        "params": {"_meta": meta}});
    request.to_string() + "\n"
}

/// Every line the server writes until it exits, parsed.
fn replies(stdout: ChildStdout) -> Vec<Value> {
    BufReader::new(stdout)
        .lines()
        .map(|line| serde_json::from_str(&line.expect("read")).expect("JSON"))
        .collect()
}

#[test]
fn one_request_then_end_of_input_is_always_answered() {
    // The writer used to be killed with the runtime once the last request had merely queued
    // its reply: about one run in three printed nothing.
    for run in 0..50 {
        let mut child = provisioner();
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(discover(1).as_bytes()).expect("write");
        drop(stdin);
        let replies = replies(child.stdout.take().expect("stdout"));
        assert_eq!(replies.len(), 1, "run {run}: {replies:?}");
        assert_eq!(replies[0]["id"], 1, "run {run}: {replies:?}");
        assert!(replies[0]["result"].is_object(), "run {run}: {replies:?}");
        assert!(child.wait().expect("exit").success(), "run {run}");
    }
}

#[test]
fn pipelined_requests_then_end_of_input_are_all_answered() {
    const REQUESTS: u64 = 20_000;
    let mut child = provisioner();
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let mut batch = String::new();
        for id in 1..=REQUESTS {
            batch.push_str(&discover(id));
        }
        stdin.write_all(batch.as_bytes()).expect("write");
    });
    let replies = replies(child.stdout.take().expect("stdout"));
    writer.join().expect("writer");
    let ids: HashSet<u64> = replies.iter().filter_map(|r| r["id"].as_u64()).collect();
    assert_eq!(replies.len() as u64, REQUESTS, "replies");
    assert_eq!(ids.len() as u64, REQUESTS, "distinct ids");
    assert!(
        replies.iter().all(|r| r["result"].is_object()),
        "every reply is a result"
    );
}

#[test]
fn initialize_initialized_and_ping_written_back_to_back_all_succeed() {
    // `ping` used to race `initialize` (each ran on a task of its own) and fail with "must call
    // initialize first" about three times in five.
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "hasty", "version": "1"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let burst = format!("{initialize}\n{initialized}\n{ping}\n");
    for run in 0..20 {
        let mut child = provisioner();
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(burst.as_bytes()).expect("write");
        drop(stdin);
        let replies = replies(child.stdout.take().expect("stdout"));
        assert_eq!(replies.len(), 2, "run {run}: {replies:?}");
        for reply in &replies {
            assert!(reply["result"].is_object(), "run {run}: {reply}");
        }
    }
}

/// The server's resident memory may not pass this, whatever its client does.
const RSS_BOUND_KIB: u64 = 100 * 1024;

fn proc_status(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status")
}

fn rss_kib(status: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

#[test]
fn a_client_that_never_reads_cannot_grow_the_server() {
    // One task per request without a bound used to grow the server by about 2 KB a request
    // (600 MB after 300,000) while the client left stdout unread. Now the server stops reading
    // once its bound of requests in flight is waiting on the full pipe.
    const REQUESTS: u64 = 300_000;
    let mut child = provisioner();
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let written = Arc::new(AtomicU64::new(0));
    let progress = written.clone();
    std::thread::spawn(move || {
        let mut batch = String::new();
        for id in 1..=REQUESTS {
            batch.push_str(&discover(id));
            if id % 100 == 0 {
                if stdin.write_all(batch.as_bytes()).is_err() {
                    return; // the server was stopped at the end of the test
                }
                batch.clear();
                progress.store(id, Ordering::Relaxed);
            }
        }
    });
    // Sampled with the time and the requests written so far, and the server's whole status
    // kept from the first sample over the bound: a failure says when and how it grew.
    let started = Instant::now();
    let mut samples = Vec::new();
    let mut status_over = None;
    while started.elapsed() < Duration::from_secs(3) {
        let status = proc_status(pid);
        let rss = rss_kib(&status);
        samples.push((
            started.elapsed().as_millis(),
            rss,
            written.load(Ordering::Relaxed),
        ));
        if rss >= RSS_BOUND_KIB && status_over.is_none() {
            status_over = Some(status);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let taken = written.load(Ordering::Relaxed);
    // What the pipes, the read-ahead and the requests in flight hold: a few thousand at most.
    assert!(
        taken < 10_000,
        "the server took {taken} requests unanswered"
    );
    let peak = samples.iter().map(|&(_, rss, _)| rss).max().unwrap_or(0);
    assert!(
        status_over.is_none(),
        "RSS reached {peak} KiB (bound {RSS_BOUND_KIB}); samples (ms, KiB, requests \
         written): {samples:?}; /proc status when first over:\n{}",
        status_over.unwrap_or_default()
    );
    // Reading now lets the requests through again.
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    for _ in 0..taken + 1000 {
        lines.next().expect("a reply").expect("read");
    }
}

#[tokio::test]
async fn at_the_bound_a_connection_waiting_on_its_client_still_reads_its_answers() {
    use mcp::protocol::{CallToolResult, Implementation, Tool};
    // One request at a time, and that one waits for the client's answer to its question: the
    // loop must keep reading (else the answer, queued behind the next request, never arrives)
    // and refuse the next request rather than buffer it.
    let server = mcp::server::Server::builder(Implementation::new("one-at-a-time", "1"))
        .max_requests_in_flight(1)
        .list_tools(vec![Tool::new("ask", json!({"type": "object"}))])
        .on_call_tool(|ctx, _call| async move {
            let answer: Value = ctx
                .request_client(
                    "elicitation/create",
                    &json!({"message": "Name?",
                    "requestedSchema": {"type": "object", "properties": {}}}),
                )
                .await?;
            Ok(CallToolResult::text(
                answer["action"].as_str().unwrap_or("none"),
            ))
        })
        .build()
        .expect("builds");
    let mut duplex = server.serve_in_memory();
    let mut next = async || -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), duplex.incoming.recv())
            .await
            .expect("a message within 5 s")
            .expect("open")
            .expect("a line");
        serde_json::from_str(&line).expect("JSON")
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "slow", "version": "1"}}});
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "ask", "arguments": {}}})
    };
    for message in [
        initialize,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        call(2),
    ] {
        duplex
            .outgoing
            .send(message.to_string())
            .await
            .expect("send");
    }
    assert_eq!(next().await["id"], 1);
    let question = next().await;
    assert_eq!(question["method"], "elicitation/create", "{question}");
    duplex
        .outgoing
        .send(call(3).to_string())
        .await
        .expect("send");
    let refused = next().await;
    assert_eq!(refused["id"], 3, "{refused}");
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    let answer = json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}});
    duplex
        .outgoing
        .send(answer.to_string())
        .await
        .expect("send");
    let done = next().await;
    assert_eq!(done["id"], 2, "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "decline", "{done}");
}
