//! A raw 2026-07-28 connection to a server in this process: JSON-RPC lines in, JSON out, for
//! tests that look at the wire itself.

use std::time::Duration;

use mcp::server::Server;
use mcp::transport::Duplex;
use serde_json::{Value, json};

/// The `_meta` of a 2026-07-28 request declaring `capabilities`.
pub fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// A 2026-07-28 request line declaring `capabilities`.
pub fn request(id: u64, method: &str, mut params: Value, capabilities: Value) -> String {
    params["_meta"] = meta(capabilities);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// One in-memory connection.
pub struct Wire {
    end: Duplex,
    next_id: u64,
}

impl Wire {
    pub fn new(server: &Server) -> Self {
        Self {
            end: server.serve_in_memory(),
            next_id: 1,
        }
    }

    /// Sends `line`; the notifications before the reply, and the reply.
    pub async fn exchange(&mut self, line: String) -> (Vec<Value>, Value) {
        self.end.outgoing.send(line).await.expect("send");
        let mut notifications = Vec::new();
        loop {
            let line = tokio::time::timeout(Duration::from_secs(10), self.end.incoming.recv())
                .await
                .expect("an answer in time")
                .expect("open")
                .expect("a frame");
            let message: Value = serde_json::from_str(&line).expect("JSON");
            if message.get("id").is_some() {
                return (notifications, message);
            }
            notifications.push(message);
        }
    }

    /// Sends `line` and waits for nothing (a notification).
    pub async fn send(&mut self, line: String) {
        self.end.outgoing.send(line).await.expect("send");
    }

    /// The reply to `method` with `params` (whose `_meta` is set to declare `capabilities`).
    pub async fn call(&mut self, method: &str, params: Value, capabilities: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let (_, reply) = self
            .exchange(request(id, method, params, capabilities))
            .await;
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }
}
