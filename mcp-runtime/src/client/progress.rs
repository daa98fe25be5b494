//! Progress of one call: the `progressToken` every round of the call carries, and the reports
//! the server sends for it, routed to that call's receiver instead of the general
//! notifications.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;

use crate::protocol::{CallToolResult, ProgressParams, ProgressToken, RawNotification};

use super::connection::lock;
use super::rounds::Resume;
use super::{Client, ClientError};

/// How many reports of one call wait for the caller before newer ones are dropped.
pub const PROGRESS_BUFFER: usize = 256;

/// One progress report of a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far the work is; increases with every report.
    pub progress: f64,
    /// The total, when the server knows it.
    pub total: Option<f64>,
    /// A human-readable status.
    pub message: Option<String>,
}

/// The progress reports of one call, in the order the server sent them. It ends (`next`
/// returns `None`) once the call has ended and every report was read.
#[derive(Debug)]
pub struct ProgressReceiver(mpsc::Receiver<Progress>);

impl ProgressReceiver {
    /// The next report, or `None` once the call has ended.
    pub async fn next(&mut self) -> Option<Progress> {
        self.0.recv().await
    }
}

/// The calls that asked for progress, by token.
#[derive(Default)]
pub(super) struct ProgressRoutes {
    calls: Mutex<HashMap<ProgressToken, mpsc::Sender<Progress>>>,
    next: AtomicI64,
}

impl ProgressRoutes {
    /// A fresh token routed to a new receiver, until the returned guard drops.
    fn open(self: &Arc<Self>) -> (ProgressRoute, ProgressReceiver) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        // A string unlike the numeric request ids, so logs never confuse the two.
        let token = ProgressToken::String(format!("progress-{n}"));
        let (tx, rx) = mpsc::channel(PROGRESS_BUFFER);
        lock(&self.calls).insert(token.clone(), tx);
        let route = ProgressRoute {
            token,
            routes: self.clone(),
        };
        (route, ProgressReceiver(rx))
    }

    /// Hands a `notifications/progress` to the call it belongs to; gives the notification back
    /// when no call waits for it (a token the application chose itself).
    pub fn deliver(&self, note: RawNotification) -> Option<RawNotification> {
        let Some(params) = note
            .params
            .as_deref()
            .and_then(|p| serde_json::from_str::<ProgressParams>(p.get()).ok())
        else {
            return Some(note);
        };
        let calls = lock(&self.calls);
        let Some(call) = calls.get(&params.progress_token) else {
            drop(calls);
            return Some(note);
        };
        let progress = Progress {
            progress: params.progress,
            total: params.total,
            message: params.message,
        };
        if let Err(TrySendError::Full(_)) = call.try_send(progress) {
            tracing::warn!(token = %params.progress_token, "dropped a progress report: nobody reads them");
        }
        None
    }
}

/// A call's hold on its token: dropping it (the call ended or was dropped) ends the receiver.
pub(super) struct ProgressRoute {
    token: ProgressToken,
    routes: Arc<ProgressRoutes>,
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        lock(&self.routes.calls).remove(&self.token);
    }
}

impl Client {
    /// [`call_tool`](Self::call_tool) with progress: every round of the call carries a fresh
    /// `_meta.progressToken`, and the server's reports for it arrive on the returned receiver
    /// (not among [`notifications`](Self::notifications)). The receiver ends when the call ends,
    /// so it can be read alongside the call:
    ///
    /// ```
    /// use mcp::client::Client;
    /// use mcp::protocol::Implementation;
    /// use mcp::{Context, McpServer};
    ///
    /// /// Counts to three.
    /// #[mcp::tool]
    /// async fn count(ctx: Context) -> &'static str {
    ///     for step in 1..=3 {
    ///         ctx.progress(f64::from(step), Some(3.0), None).await;
    ///     }
    ///     "done"
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), mcp::Error> {
    /// let server = McpServer::new("counter").tools(mcp::tools![count]).build()?;
    /// let client = Client::builder(Implementation::new("c", "1")).connect(server.serve_in_memory());
    /// let (mut progress, call) = client.call_tool_with_progress("count", None);
    /// let (result, steps) = tokio::join!(call, async {
    ///     let mut steps = Vec::new();
    ///     while let Some(report) = progress.next().await {
    ///         steps.push(report.progress);
    ///     }
    ///     steps
    /// });
    /// assert_eq!(result?.content[0].as_text(), Some("done"));
    /// assert_eq!(steps, [1.0, 2.0, 3.0]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn call_tool_with_progress<'a>(
        &'a self,
        name: &'a str,
        arguments: Option<Value>,
    ) -> (
        ProgressReceiver,
        impl Future<Output = Result<CallToolResult, ClientError>> + Send + 'a,
    ) {
        let (route, receiver) = self.inner.connection.progress.open();
        let call = async move {
            self.call_tool_to_end(name, arguments, Resume::default(), Some(&route.token))
                .await
        };
        (receiver, call)
    }
}
