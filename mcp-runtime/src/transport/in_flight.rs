//! The requests of one connection (a stdio pipe pair, a 2025-11-25 HTTP session) in flight, by
//! id: a second request under an id still in flight is refused, `notifications/cancelled`
//! finds the request to cancel, and an entry is given up however its request ends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use crate::protocol::{CancelledParams, McpError, RequestId, decode_params};

/// Requests in flight. The sequence number tells a finished request's entry apart from a newer
/// request that reused its id after a cancellation freed it.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    requests: Mutex<HashMap<RequestId, (u64, CancellationToken)>>,
    sequence: AtomicU64,
}

impl InFlight {
    /// Reserves `id` for a request that `token` cancels; -32600 while another request with
    /// that id is in flight.
    pub fn admit(
        self: &Arc<Self>,
        id: &RequestId,
        token: CancellationToken,
    ) -> Result<InFlightEntry, McpError> {
        let sequence = self.sequence.fetch_add(1, Ordering::Relaxed);
        let mut requests = self.lock();
        if requests.contains_key(id) {
            return Err(McpError::invalid_request(format!(
                "Request id {id} is already in flight"
            )));
        }
        requests.insert(id.clone(), (sequence, token));
        Ok(InFlightEntry {
            table: self.clone(),
            id: id.clone(),
            sequence,
        })
    }

    /// `notifications/cancelled`: the request it names is cancelled, and its id is free at
    /// once (the client has given up on it). A malformed one is ignored.
    pub fn cancel(&self, params: Option<&RawValue>) {
        match decode_params::<CancelledParams>(params) {
            Ok(p) => {
                if let Some((_, token)) = self.lock().remove(&p.request_id) {
                    token.cancel();
                }
            }
            Err(e) => tracing::debug!(error = %e, "ignored a malformed cancellation"),
        }
    }

    /// Whether no request is in flight (a session that has one is in use).
    #[cfg(any(feature = "http", test))]
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<RequestId, (u64, CancellationToken)>> {
        // Every critical section is one lookup, insert or removal.
        self.requests.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A request's place in [`InFlight`], given up when the request ends in any way.
#[derive(Debug)]
pub(crate) struct InFlightEntry {
    table: Arc<InFlight>,
    id: RequestId,
    sequence: u64,
}

impl InFlightEntry {
    pub fn id(&self) -> &RequestId {
        &self.id
    }
}

impl Drop for InFlightEntry {
    fn drop(&mut self) {
        let mut requests = self.table.lock();
        // A cancellation may have freed the id and a newer request taken it.
        if requests
            .get(&self.id)
            .is_some_and(|(s, _)| *s == self.sequence)
        {
            requests.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_in_flight_is_refused_until_its_request_ends() {
        let in_flight = Arc::new(InFlight::default());
        let id = RequestId::Number(7);
        let entry = in_flight
            .admit(&id, CancellationToken::new())
            .expect("free");
        let refused = in_flight.admit(&id, CancellationToken::new());
        assert_eq!(refused.map(|_| ()).map_err(|e| e.code), Err(-32600));
        drop(entry);
        assert!(in_flight.is_empty());
        assert!(in_flight.admit(&id, CancellationToken::new()).is_ok());
    }

    #[test]
    fn a_newer_request_with_a_freed_id_keeps_its_place() {
        let in_flight = Arc::new(InFlight::default());
        let id = RequestId::Number(7);
        let first_token = CancellationToken::new();
        let first = in_flight.admit(&id, first_token.clone()).expect("free");
        // The client cancelled the first request, and a second took the id.
        let params = RawValue::from_string(r#"{"requestId":7}"#.to_owned()).expect("raw");
        in_flight.cancel(Some(&params));
        assert!(first_token.is_cancelled());
        let _second = in_flight
            .admit(&id, CancellationToken::new())
            .expect("freed");
        drop(first);
        assert!(!in_flight.is_empty());
    }
}
