//! The message loop: reads a connection's messages in order, runs requests concurrently up to
//! a bound, routes cancellations, and on hang-up answers every request it read before
//! returning.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::panics::catch_panics;
use crate::protocol::{
    Incoming, McpError, RawNotification, RawRequest, RequestId, error_line, methods,
    notification_methods,
};
use crate::server::{
    Connection, Exchange, Interest, NotificationSink, Reply, Server, change_line,
    changes_connection, may_have_changed, refusal,
};

use super::in_flight::{InFlight, InFlightEntry};
use super::{Duplex, Frame, FrameError};

impl Server {
    /// Serves one connection until the peer hangs up, then answers the requests still in
    /// flight and returns once their replies are written out.
    ///
    /// Messages are taken in the order they arrive: one that changes the connection
    /// (`initialize`, `logging/setLevel`, `resources/subscribe`) is answered before the next
    /// is read. Other requests run concurrently, up to
    /// [`max_requests_in_flight`](crate::server::ServerBuilder::max_requests_in_flight); at
    /// that bound the loop stops reading until one finishes, so a peer that writes faster than
    /// it reads is slowed down rather than buffered.
    pub async fn serve(&self, duplex: Duplex) {
        let writer = duplex.writer;
        let mut incoming = duplex.incoming;
        let mut serving = Serving::new(self.clone(), duplex.outgoing);
        let limit = self.max_requests_in_flight();
        loop {
            while serving.tasks.try_join_next().is_some() {}
            let full = serving.tasks.len() >= limit;
            let frame = if full {
                match serving.when_full(&mut incoming).await {
                    Some(Next::Frame(frame)) => frame,
                    Some(Next::Look) => continue,
                    None => break,
                }
            } else {
                match incoming.recv().await {
                    Some(frame) => frame,
                    None => break,
                }
            };
            serving.on_frame(frame, full).await;
        }
        // Requests still in flight finish, but none of them can wait for an answer from a
        // peer that has hung up; listens have nobody left to tell anything.
        serving.connection.abandon_answers();
        serving.hung_up.cancel();
        if let Some(pushing) = serving.pushing.take() {
            pushing.abort();
        }
        while serving.tasks.join_next().await.is_some() {}
        while serving.listens.join_next().await.is_some() {}
        if let Some(writer) = writer {
            writer.flush().await;
        }
    }
}

/// What the loop does next when no more requests may start.
enum Next {
    /// Look again: a request finished, or one started waiting on the client.
    Look,
    /// A message arrived while every slot is taken.
    Frame(Frame),
}

/// One connection being served.
struct Serving {
    server: Server,
    connection: Arc<Connection>,
    in_flight: Arc<InFlight>,
    sink: NotificationSink,
    outgoing: mpsc::Sender<String>,
    tasks: JoinSet<()>,
    /// `subscriptions/listen` requests: they stay open, so they hold no place among the
    /// requests in flight (bounded by [`MAX_LISTENS`](crate::server::MAX_LISTENS) instead).
    listens: JoinSet<()>,
    /// Cancels every listen once the peer hangs up.
    hung_up: CancellationToken,
    /// What the server pushes to the connection's 2025-11-25 session.
    pushing: Option<tokio::task::JoinHandle<()>>,
}

impl Serving {
    fn new(server: Server, outgoing: mpsc::Sender<String>) -> Self {
        let connection = Connection::new();
        #[cfg(feature = "otel")]
        let _ = connection.peer.set(crate::telemetry::Peer::pipe());
        Self {
            server,
            connection: Arc::new(connection),
            in_flight: Arc::default(),
            sink: NotificationSink::new(outgoing.clone()),
            outgoing,
            tasks: JoinSet::new(),
            listens: JoinSet::new(),
            hung_up: CancellationToken::new(),
            pushing: None,
        }
    }

    /// Every slot is taken. Reading stops until one frees, unless a request in flight waits
    /// for the peer's answer to a question of ours (2025-11-25): that answer may be queued
    /// behind the peer's next request, so then the loop reads on, and a request it reads is
    /// refused rather than left to wait on a slot that may never free.
    async fn when_full(&mut self, incoming: &mut mpsc::Receiver<Frame>) -> Option<Next> {
        if !self.connection.awaits_answers() {
            tokio::select! {
                _ = self.tasks.join_next() => {}
                () = self.connection.question_asked() => {}
            }
            return Some(Next::Look);
        }
        tokio::select! {
            biased;
            Some(_) = self.tasks.join_next() => Some(Next::Look),
            frame = incoming.recv() => frame.map(Next::Frame),
        }
    }

    async fn on_frame(&mut self, frame: Frame, full: bool) {
        let limit = self.server.max_message_size();
        let line = match frame {
            Ok(line) if line.len() > limit => Err(FrameError::TooLong { limit }),
            other => other,
        };
        let line = match line {
            Ok(line) => line,
            Err(e) => {
                let error = match e {
                    FrameError::TooLong { .. } => McpError::invalid_request(e.to_string()),
                    FrameError::InvalidUtf8 => McpError::parse_error(e.to_string()),
                };
                refusal::rpc(None, &error);
                self.send(error_line(None, &error)).await;
                return;
            }
        };
        if line.trim().is_empty() {
            return;
        }
        match Incoming::parse(&line) {
            Err(rejected) if rejected.silent => {
                tracing::debug!(error = %rejected.error, "dropped a malformed response");
            }
            Err(rejected) => {
                refusal::rpc(None, &rejected.error);
                self.send(error_line(rejected.id.as_ref(), &rejected.error))
                    .await;
            }
            Ok(Incoming::Request(request)) if full => {
                let error = McpError::internal(format!(
                    "Too many requests in flight on this connection (the limit is {}); \
                     send this one again when one of them is answered",
                    self.server.max_requests_in_flight()
                ));
                refusal::rpc(Some(&request.method), &error);
                self.send(error_line(Some(&request.id), &error)).await;
            }
            Ok(Incoming::Request(request)) => self.on_request(request).await,
            Ok(Incoming::Notification(notification)) => self.on_notification(notification),
            Ok(Incoming::Response(response)) => {
                let id = response.id.clone();
                if !self.connection.deliver(response) {
                    tracing::debug!(%id, "dropped a response to no request of ours");
                }
            }
        }
    }

    async fn on_request(&mut self, request: RawRequest) {
        let listen = request.method == methods::SUBSCRIPTIONS_LISTEN;
        let token = if listen {
            self.hung_up.child_token()
        } else {
            CancellationToken::new()
        };
        let entry = match self.in_flight.admit(&request.id, token.clone()) {
            Ok(entry) => entry,
            Err(error) => {
                refusal::rpc(Some(&request.method), &error);
                self.send(error_line(Some(&request.id), &error)).await;
                return;
            }
        };
        let ordered = changes_connection(&request.method);
        let exchange = Exchange::new(self.connection.clone(), self.sink.clone(), token);
        // Boxed before it is spawned: a task keeps its future inline, and tokio moves that
        // whole slot (a few KiB) when it spawns the task, stores its output and hands it
        // over; a box is moved once, into place.
        let answering = Box::pin(answer(
            self.server.clone().answer_holding(request, exchange, None),
            entry,
            self.outgoing.clone(),
            listen,
        ));
        if listen {
            self.listens.spawn(answering);
        } else if ordered {
            // What it changes must be in place before the next message is admitted.
            answering.await;
            self.start_pushing();
        } else {
            self.tasks.spawn(answering);
        }
    }

    /// Once the connection has a 2025-11-25 session, what the server pushes goes out on it.
    fn start_pushing(&mut self) {
        if self.pushing.is_some() || self.connection.legacy_session().is_none() {
            return;
        }
        let task = push_to_session(
            self.server.clone(),
            self.connection.clone(),
            self.outgoing.clone(),
        );
        self.pushing = Some(tokio::spawn(task));
    }

    fn on_notification(&self, n: RawNotification) {
        match n.method.as_str() {
            notification_methods::CANCELLED => self.in_flight.cancel(n.params.as_deref()),
            notification_methods::INITIALIZED => self.connection.mark_initialized(),
            _ => {
                let exchange = Exchange::new(
                    self.connection.clone(),
                    self.sink.clone(),
                    CancellationToken::new(),
                );
                self.server.notified(&n, exchange);
            }
        }
    }

    async fn send(&self, line: String) {
        // The peer hung up: what it would have read is moot.
        let _ = self.outgoing.send(line).await;
    }
}

/// The list changes and resource updates of a 2025-11-25 session, on its connection, for as
/// long as the connection is served.
///
/// A session that falls behind (its client does not read what it is sent) is not cut off,
/// since stdio has no stream to close and the client no way to re-listen: it hears that every
/// list and every resource it subscribes to may have changed, and re-reads what it cares about.
async fn push_to_session(
    server: Server,
    connection: Arc<Connection>,
    outgoing: mpsc::Sender<String>,
) {
    let lists = server.announced_lists();
    let interest = || Interest::Session {
        lists,
        connection: Arc::downgrade(&connection),
    };
    let mut listener = server.listen_to_changes(interest());
    loop {
        while let Some(change) = listener.next().await {
            let Some(line) = change_line(&change, None) else {
                continue;
            };
            if outgoing.send(line).await.is_err() {
                return;
            }
        }
        listener = server.listen_to_changes(interest());
        for change in may_have_changed(lists, &connection) {
            let Some(line) = change_line(&change, None) else {
                continue;
            };
            if outgoing.send(line).await.is_err() {
                return;
            }
        }
    }
}

/// Runs `answering` and queues its reply. A panic outside the handler (which catches its
/// own) still gets an answer, and the id is freed however the request ends. A listen the
/// server ended (answered without error) is then cancelled, as stdio requires.
async fn answer(
    answering: impl Future<Output = Option<Reply>>,
    entry: InFlightEntry,
    outgoing: mpsc::Sender<String>,
    listen: bool,
) {
    let answered = catch_panics(answering).await;
    let ended_listen =
        listen && matches!(&answered, Ok(Some(reply)) if reply.error_code().is_none());
    let id = entry.id().clone();
    // Freed before the reply goes out: a peer that reuses the id once it has the reply
    // must not be told that it is still in flight.
    drop(entry);
    let line = match answered {
        Ok(Some(reply)) => reply.into_line(),
        Ok(None) => {
            tracing::debug!(%id, "request cancelled; no response sent");
            return;
        }
        Err(_) => {
            tracing::error!(%id, "a request panicked outside its handler");
            let error = McpError::internal("The server failed while answering this request");
            error_line(Some(&id), &error)
        }
    };
    let _ = outgoing.send(line).await;
    if ended_listen {
        let _ = outgoing.send(listen_cancelled(&id)).await;
    }
}

/// The `notifications/cancelled` that follows the final result of a listen on stdio.
fn listen_cancelled(id: &RequestId) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "method": notification_methods::CANCELLED,
        "params": {"requestId": id, "reason": "The server ended the subscription"},
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_that_panics_outside_its_handler_is_answered_and_its_id_freed() {
        let in_flight = Arc::new(InFlight::default());
        let id = crate::protocol::RequestId::Number(7);
        let entry = in_flight
            .admit(&id, CancellationToken::new())
            .expect("free");
        let (outgoing, mut written) = mpsc::channel(1);
        let panicking = async { panic!("sealing failed") };
        answer(panicking, entry, outgoing, false).await;
        let line = written.recv().await.expect("an answer");
        let reply: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(reply["id"], 7, "{line}");
        assert_eq!(reply["error"]["code"], -32603, "{line}");
        assert!(in_flight.is_empty(), "the id is still in flight");
    }
}
