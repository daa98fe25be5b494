//! The message loop: reads a connection's messages, runs each request concurrently, routes
//! cancellations, and drains in-flight requests when the peer hangs up.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::protocol::{
    CancelledParams, Incoming, McpError, RawNotification, RequestId, decode_params, error_line,
    notification_methods,
};
use crate::server::{Connection, Exchange, NotificationSink, Reply, Server};

use super::{Duplex, FrameError};

/// Requests being handled, by id. The sequence number tells a finished request's entry apart
/// from a newer request that reused its id after a cancellation freed it.
type InFlight = Arc<Mutex<HashMap<RequestId, (u64, CancellationToken)>>>;

impl Server {
    /// Serves one connection until the peer hangs up, then waits for its in-flight requests.
    pub async fn serve(&self, duplex: Duplex) {
        let Duplex {
            mut incoming,
            outgoing,
        } = duplex;
        let connection = Arc::new(Connection::new());
        let in_flight: InFlight = Arc::default();
        let sink = NotificationSink::new(outgoing.clone());
        let mut tasks = JoinSet::new();
        let mut sequence = 0u64;
        while let Some(frame) = incoming.recv().await {
            while tasks.try_join_next().is_some() {}
            let line = match frame {
                Ok(line) if line.len() > self.max_message_size() => Err(FrameError::TooLong {
                    limit: self.max_message_size(),
                }),
                other => other,
            };
            let line = match line {
                Ok(line) => line,
                Err(e) => {
                    let error = match e {
                        FrameError::TooLong { .. } => McpError::invalid_request(e.to_string()),
                        FrameError::InvalidUtf8 => McpError::parse_error(e.to_string()),
                    };
                    let _ = outgoing.send(error_line(None, &error)).await;
                    continue;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            match Incoming::parse(&line) {
                Err(rejected) if rejected.silent => {
                    tracing::debug!(error = %rejected.error, "dropped a malformed response");
                }
                Err(rejected) => {
                    let _ = outgoing
                        .send(error_line(rejected.id.as_ref(), &rejected.error))
                        .await;
                }
                Ok(Incoming::Request(request)) => {
                    let id = request.id.clone();
                    let token = CancellationToken::new();
                    sequence += 1;
                    let seq = sequence;
                    let duplicate = {
                        let mut map = lock(&in_flight);
                        let duplicate = map.contains_key(&id);
                        if !duplicate {
                            map.insert(id.clone(), (seq, token.clone()));
                        }
                        duplicate
                    };
                    if duplicate {
                        let error = McpError::invalid_request(format!(
                            "Request id {id} is already in flight"
                        ));
                        let _ = outgoing.send(error_line(Some(&id), &error)).await;
                        continue;
                    }
                    let exchange = Exchange::new(connection.clone(), sink.clone(), token.clone());
                    let server = self.clone();
                    let outgoing = outgoing.clone();
                    let in_flight = in_flight.clone();
                    tasks.spawn(async move {
                        let answer = server
                            .answer_holding(request, exchange, None)
                            .await
                            .map(Reply::into_line);
                        {
                            let mut map = lock(&in_flight);
                            if map.get(&id).is_some_and(|(s, _)| *s == seq) {
                                map.remove(&id);
                            }
                        }
                        match answer {
                            Some(line) => {
                                let _ = outgoing.send(line).await;
                            }
                            None => tracing::debug!(%id, "request cancelled; no response sent"),
                        }
                    });
                }
                Ok(Incoming::Notification(notification)) => {
                    self.on_notification(notification, &connection, &in_flight);
                }
                Ok(Incoming::Response(response)) => {
                    let id = response.id.clone();
                    if !connection.deliver(response) {
                        tracing::debug!(%id, "dropped a response to no request of ours");
                    }
                }
            }
        }
        // In-flight requests still finish, but none of them can wait for an answer from a
        // peer that has hung up.
        connection.abandon_answers();
        while tasks.join_next().await.is_some() {}
    }

    fn on_notification(&self, n: RawNotification, connection: &Connection, in_flight: &InFlight) {
        match n.method.as_str() {
            notification_methods::CANCELLED => {
                match decode_params::<CancelledParams>(n.params.as_deref()) {
                    Ok(p) => {
                        // The id is free as soon as the client has given up on it.
                        if let Some((_, token)) = lock(in_flight).remove(&p.request_id) {
                            token.cancel();
                        }
                    }
                    Err(e) => tracing::debug!(error = %e, "ignored a malformed cancellation"),
                }
            }
            notification_methods::INITIALIZED => connection.mark_initialized(),
            other => tracing::debug!(method = other, "ignored a notification"),
        }
    }
}

fn lock(
    in_flight: &InFlight,
) -> std::sync::MutexGuard<'_, HashMap<RequestId, (u64, CancellationToken)>> {
    in_flight.lock().unwrap_or_else(|e| e.into_inner())
}
