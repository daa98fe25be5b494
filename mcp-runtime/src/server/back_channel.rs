//! Requests the server sends to a 2025-11-25 client (`elicitation/create`,
//! `sampling/createMessage`, `roots/list`), and the routing of their responses. A 2026-07-28
//! server never calls the client; it returns `InputRequiredResult` instead.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::protocol::{McpError, RawResponse, RequestId, request_line};

type Pending = HashMap<RequestId, oneshot::Sender<Result<Value, McpError>>>;

/// The server's side of one connection's back-channel.
#[derive(Debug, Default)]
pub(crate) struct BackChannel {
    next: AtomicU64,
    pending: Mutex<Pending>,
    outgoing: Mutex<Option<mpsc::Sender<String>>>,
}

impl BackChannel {
    /// Where request lines for the client go (the connection's writer, or an HTTP session's
    /// event stream).
    pub fn attach(&self, outgoing: mpsc::Sender<String>) {
        *lock(&self.outgoing) = Some(outgoing);
    }

    /// Sends `method` to the client and waits for its answer.
    pub async fn call(&self, method: &str, params: &Value) -> Result<Value, McpError> {
        let outgoing = lock(&self.outgoing).clone().ok_or_else(|| {
            McpError::internal("This transport cannot send requests to the client")
        })?;
        // Our ids live in their own namespace; the prefix keeps logs readable.
        let id = RequestId::String(format!(
            "mcp-server-{}",
            self.next.fetch_add(1, Ordering::Relaxed)
        ));
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let line = request_line(&id, method, params);
        if outgoing.send(line).await.is_err() {
            lock(&self.pending).remove(&id);
            return Err(McpError::internal("The client connection is closed"));
        }
        rx.await
            .unwrap_or_else(|_| Err(McpError::internal("The client connection is closed")))
    }

    /// Hands a response from the client to the request waiting for it. `false` when no
    /// request of ours has that id.
    pub fn deliver(&self, response: RawResponse) -> bool {
        let Some(waiter) = lock(&self.pending).remove(&response.id) else {
            return false;
        };
        let outcome = response.outcome.and_then(|raw| {
            serde_json::from_str(raw.get())
                .map_err(|e| McpError::internal(format!("Unreadable client response: {e}")))
        });
        let _ = waiter.send(outcome);
        true
    }

    /// Fails every waiting request (the connection ended).
    pub fn close(&self) {
        lock(&self.pending).clear();
        *lock(&self.outgoing) = None;
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every critical section is a single map operation or assignment; a poisoned lock is
    // still consistent.
    m.lock().unwrap_or_else(|e| e.into_inner())
}
