//! Every request the server refuses is logged once, with its reason, at a level an operator
//! sees with a subscriber at `info`: client mistakes at INFO, refusals that protect the server
//! at WARN (and those only once, where the cause is known). And `serve_http` logs where it
//! listens.
//!
//! The subscriber is this thread's only (the tests share a process), and the runtime is
//! single-threaded so the server's tasks log on this thread too.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::http::{Running, modern, post};
use crate::support::log::CapturedLog;

/// The lines logged since the last look, once the server has had time to log them.
async fn lines(log: &CapturedLog) -> Vec<String> {
    tokio::time::sleep(Duration::from_millis(20)).await;
    log.take().lines().map(str::to_owned).collect()
}

/// The one line among `lines` that contains each of `parts`, at `level`.
fn once(lines: &[String], level: &str, parts: &[&str]) {
    let matching: Vec<_> = lines
        .iter()
        .filter(|l| parts.iter().all(|p| l.contains(p)))
        .collect();
    assert_eq!(matching.len(), 1, "one line with {parts:?} in {lines:#?}");
    assert!(matching[0].contains(level), "{level}: {}", matching[0]);
}

#[tokio::test(flavor = "current_thread")]
async fn http_refusals_are_logged_once_with_their_reason() {
    let (log, _guard) = CapturedLog::start();
    let s = Running::start().await;
    log.take();

    let reply = s
        .post(modern(1, "nope/never", json!({})))
        .routing("nope/never", None)
        .send()
        .await;
    assert_eq!(reply.error_code(), -32601, "{}", reply.body);
    once(
        &lines(&log).await,
        "INFO",
        &["refused nope/never", "Method not found"],
    );

    let reply = s.post("{").send().await;
    assert_eq!(reply.status, 400);
    once(&lines(&log).await, "INFO", &["refused -", "code=-32700"]);

    let reply = s
        .post(modern(2, "tools/list", json!({})))
        .header("host", "evil.example")
        .send()
        .await;
    assert_eq!(reply.status, 403);
    once(&lines(&log).await, "WARN", &["DNS-rebinding"]);

    let reply = s
        .post(modern(3, "tools/list", json!({})))
        .header("content-type", "text/plain")
        .send()
        .await;
    assert_eq!(reply.status, 415);
    once(&lines(&log).await, "INFO", &["(415)", "application/json"]);

    let reply = s.method("GET").send().await;
    assert_eq!(reply.status, 405);
    once(&lines(&log).await, "INFO", &["(405)", "Mcp-Session-Id"]);

    let body = modern(4, "tools/call", json!({"name": "echo"}));
    let reply = post(s.addr, body)
        .routing("tools/call", Some("another"))
        .send()
        .await;
    assert_eq!(reply.error_code(), -32020, "{}", reply.body);
    once(&lines(&log).await, "INFO", &["refused", "-32020"]);

    // Logged where the cause is known (WARN), not a second time as a refusal.
    let body = modern(5, "tools/call", json!({"name": "echo", "requestState": 42}));
    let reply = post(s.addr, body)
        .routing("tools/call", Some("echo"))
        .send()
        .await;
    assert_eq!(reply.error_code(), -32602, "{}", reply.body);
    let lines = lines(&log).await;
    once(&lines, "WARN", &["requestState rejected"]);
    assert!(!lines.iter().any(|l| l.contains("refused")), "{lines:#?}");
    s.stop.cancel();
}

#[tokio::test(flavor = "current_thread")]
async fn stream_refusals_and_bad_tool_arguments_are_logged() {
    #[mcp::tool]
    async fn count(times: u32) -> String {
        times.to_string()
    }
    let (log, _guard) = CapturedLog::start();
    let server = mcp::McpServer::new("logged")
        .tools(mcp::tools![count])
        .build()
        .expect("builds");
    let mut duplex = server.serve_in_memory();
    let mut exchange = async |line: String| -> Value {
        duplex.outgoing.send(line).await.expect("send");
        let reply = tokio::time::timeout(Duration::from_secs(5), duplex.incoming.recv())
            .await
            .expect("an answer within 5 s")
            .expect("open")
            .expect("a line");
        serde_json::from_str(&reply).expect("JSON")
    };

    let reply = exchange("not json".into()).await;
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    once(&lines(&log).await, "INFO", &["refused -", "-32700"]);

    let reply = exchange(modern(1, "tools/call", json!({"name": "missing"}))).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    once(
        &lines(&log).await,
        "INFO",
        &["refused tools/call", "missing"],
    );

    let call = json!({"name": "count", "arguments": {"times": "three"}});
    let reply = exchange(modern(2, "tools/call", call)).await;
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    once(
        &lines(&log).await,
        "INFO",
        &["refused a tool call", "`times`"],
    );
}

#[cfg(feature = "http")]
#[tokio::test(flavor = "current_thread")]
async fn serve_http_logs_the_endpoint_with_the_port_the_system_chose() {
    let (log, _guard) = CapturedLog::start();
    let serving = tokio::spawn(mcp::McpServer::new("knobs").serve_http("127.0.0.1:0"));
    let mut endpoint = None;
    for _ in 0..500 {
        endpoint = log
            .text()
            .lines()
            .find(|l| l.contains("INFO") && l.contains("serving MCP"))
            .and_then(|l| l.split("endpoint=").nth(1))
            .map(|e| e.trim().to_owned());
        if endpoint.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let endpoint = endpoint.unwrap_or_else(|| panic!("no endpoint logged: {}", log.text()));
    let addr = endpoint
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("not an endpoint: {endpoint}"));
    let port: u16 = addr
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a port");
    assert_ne!(port, 0, "the port the system chose, not 0");
    let answer = post(
        addr.parse().expect("an address"),
        modern(1, "server/discover", json!({})),
    )
    .routing("server/discover", None)
    .send()
    .await;
    assert!(answer.json().get("result").is_some(), "{}", answer.json());
    serving.abort();
}
