//! What a server says while it answers one request (its log messages, and a 2025-11-25
//! server's own requests), handed to the caller of that request instead of the general
//! notifications and the client's handlers.
//!
//! Over Streamable HTTP a message on a request's response stream is about that request, and
//! the transport says so. Elsewhere (stdio, memory, a session's standing stream) a message is
//! tied to a request only when nothing else could have caused it: the wire names no request
//! in a `notifications/message` or a server's request, so the reader gives it to the hearing
//! request only while that is the one request in flight that the server may speak of. In a 2025-11-25 session that is any request (its log level is the
//! session's, and the server may ask during any); on 2026-07-28, a request that hears or
//! that asks for log messages itself (the server must send none for the others, and never
//! asks). With several, the message goes where it would without any hearing (the
//! notifications, the handlers), never to a caller it may not belong to. Progress is not
//! heard here: it names its call by its token.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;

use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot};

use crate::protocol::{McpError, RawNotification, RawRequest, RequestId};

use super::connection::lock;
use super::{Client, ClientError};

/// How many messages of one request wait for its caller before newer ones are dropped.
pub const HEARING_BUFFER: usize = 256;

/// One thing the server said while answering a request.
#[derive(Debug)]
pub enum Heard {
    /// A notification, such as `notifications/message`.
    Notification(RawNotification),
    /// A request of the server's own (2025-11-25 back-channel), waiting for its answer.
    Request(ServerRequest),
}

/// A server's request heard during one of ours: answer it with
/// [`answer`](Self::answer). Dropped unanswered, it answers with an internal error, so the
/// server never waits for nothing.
#[derive(Debug)]
pub struct ServerRequest {
    /// The method, such as `elicitation/create`.
    pub method: String,
    /// Its params, `Value::Null` when it has none.
    pub params: Value,
    reply: Option<oneshot::Sender<Result<Value, McpError>>>,
}

impl ServerRequest {
    /// Sends the server `answer`: a result, or an error.
    pub fn answer(mut self, answer: Result<Value, McpError>) {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(answer);
        }
    }
}

impl Drop for ServerRequest {
    fn drop(&mut self) {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(Err(McpError::internal(
                "The client's caller did not answer this request",
            )));
        }
    }
}

/// What the server says while one request runs, in the order it said it. It ends once the
/// request has ended and everything was read.
#[derive(Debug)]
pub struct Hearing(mpsc::Receiver<Heard>);

impl Hearing {
    /// The next message, or `None` once the request has ended.
    pub async fn next(&mut self) -> Option<Heard> {
        self.0.recv().await
    }
}

tokio::task_local! {
    /// The hearing a request sent from this task registers when it goes out.
    static HEARING: mpsc::Sender<Heard>;
}

/// The requests in flight that the server may speak of, by id, with their hearing if they
/// have one.
#[derive(Default)]
pub(super) struct Hearings {
    open: Mutex<HashMap<RequestId, Option<mpsc::Sender<Heard>>>>,
}

impl Hearings {
    /// Registers `id`, with its hearing if the task sending it asked to hear it, when it hears
    /// or `may_be_spoken_of` otherwise; until [`close`](Self::close). Whether it did: a
    /// request that neither hears nor may be spoken of costs no lock.
    pub fn open(&self, id: &RequestId, may_be_spoken_of: bool) -> bool {
        let hearing = HEARING.try_with(Clone::clone).ok();
        let registered = hearing.is_some() || may_be_spoken_of;
        if registered {
            lock(&self.open).insert(id.clone(), hearing);
        }
        registered
    }

    pub fn close(&self, id: &RequestId) {
        lock(&self.open).remove(id);
    }

    /// Gives `note` to the request it belongs to when that hears: the request the transport
    /// says it came about (`related`), or else the one request in flight that may be spoken
    /// of; gives it back otherwise.
    pub fn deliver(
        &self,
        note: RawNotification,
        related: Option<&RequestId>,
    ) -> Option<RawNotification> {
        let Some(tx) = self.hearing(related) else {
            return Some(note);
        };
        match tx.try_send(Heard::Notification(note)) {
            Ok(()) => None,
            Err(TrySendError::Full(_)) => {
                tracing::warn!(
                    "dropped a notification of a request: its caller does not read them"
                );
                None
            }
            Err(TrySendError::Closed(Heard::Notification(note))) => Some(note),
            Err(TrySendError::Closed(_)) => None,
        }
    }

    /// Hands `request` to the request it belongs to (as [`deliver`](Self::deliver) decides),
    /// with the way its answer comes back; gives it back when no request hears it.
    pub fn ask(
        &self,
        request: RawRequest,
        related: Option<&RequestId>,
    ) -> Result<oneshot::Receiver<Result<Value, McpError>>, RawRequest> {
        let Some(tx) = self.hearing(related) else {
            return Err(request);
        };
        let params = request
            .params
            .as_deref()
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or(Value::Null);
        let (reply, answer) = oneshot::channel();
        let heard = ServerRequest {
            method: request.method.clone(),
            params,
            reply: Some(reply),
        };
        match tx.try_send(Heard::Request(heard)) {
            Ok(()) => Ok(answer),
            // Its answer (an error) is on the way: the request was dropped unanswered.
            Err(TrySendError::Full(_)) => Ok(answer),
            Err(TrySendError::Closed(Heard::Request(mut heard))) => {
                heard.reply = None;
                Err(request)
            }
            Err(TrySendError::Closed(_)) => Err(request),
        }
    }

    fn hearing(&self, related: Option<&RequestId>) -> Option<mpsc::Sender<Heard>> {
        let open = lock(&self.open);
        if let Some(id) = related {
            return open.get(id).cloned().flatten();
        }
        let mut open = open.values();
        match (open.next(), open.next()) {
            (Some(hearing), None) => hearing.clone(),
            _ => None,
        }
    }
}

impl Client {
    /// [`request`](Self::request), hearing what the server says while it answers: its log
    /// messages and, from a 2025-11-25 server, its own requests (`elicitation/create`,
    /// `sampling/createMessage`, `roots/list`) arrive on the returned [`Hearing`] instead of
    /// [`notifications`](Self::notifications) and the client's handlers. Ask for log messages
    /// as the revision wants (on 2026-07-28, `_meta["io.modelcontextprotocol/logLevel"]` in
    /// `params`).
    ///
    /// Over Streamable HTTP, what comes on this request's response stream is this request's.
    /// Elsewhere the wire does not say which request a log message or a server's request
    /// belongs to, so the client ties one to this request only while no other request the
    /// server may speak of is in flight (in a 2025-11-25 session, any other; on 2026-07-28, another that
    /// hears or asks for log messages); otherwise it goes where it would have gone without a
    /// hearing. Progress reports name
    /// their call by token, and are not heard here.
    ///
    /// ```
    /// use mcp::client::{Client, Heard};
    /// use mcp::protocol::{Implementation, LoggingLevel};
    /// use mcp::{Context, McpServer};
    /// use serde_json::json;
    ///
    /// /// Says what it does.
    /// #[mcp::tool]
    /// async fn chatty(ctx: Context) -> &'static str {
    ///     ctx.log(LoggingLevel::Info, None, json!("working")).await;
    ///     "done"
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = McpServer::new("s").tools(mcp::tools![chatty]).build()?;
    /// let client = Client::builder(Implementation::new("c", "1")).connect(server.serve_in_memory());
    /// let params = json!({"name": "chatty", "_meta": {"io.modelcontextprotocol/logLevel": "info"}});
    /// let (mut hearing, call) = client.request_hearing::<serde_json::Value>("tools/call", params);
    /// let (result, heard) = tokio::join!(call, async {
    ///     let mut methods = Vec::new();
    ///     while let Some(Heard::Notification(note)) = hearing.next().await {
    ///         methods.push(note.method);
    ///     }
    ///     methods
    /// });
    /// assert_eq!(result?["content"][0]["text"], "done");
    /// assert_eq!(heard, ["notifications/message"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn request_hearing<'a, R: DeserializeOwned + Send + 'a>(
        &'a self,
        method: &'a str,
        params: Value,
    ) -> (
        Hearing,
        impl Future<Output = Result<R, ClientError>> + Send + 'a,
    ) {
        let (tx, rx) = mpsc::channel(HEARING_BUFFER);
        let call = HEARING.scope(tx, self.request(method, params));
        (Hearing(rx), call)
    }
}
