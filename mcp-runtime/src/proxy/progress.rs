//! Progress the remote reports on a call, relayed to the caller whose call it is: the remote
//! is sent a token of the proxy's own for each call whose caller asked for progress (callers'
//! tokens are unique only per caller), and each report under it goes to that caller.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::client::Client;
use crate::protocol::{ProgressParams, ProgressToken, notification_methods};
use crate::server::Context;

#[derive(Default)]
pub(super) struct ProgressRelay {
    calls: Mutex<HashMap<ProgressToken, Context>>,
    next: AtomicI64,
}

/// A call's place in the relay; dropped when the call ends.
pub(super) struct Relayed {
    pub token: ProgressToken,
    relay: Arc<ProgressRelay>,
}

impl Drop for Relayed {
    fn drop(&mut self) {
        self.relay.calls().remove(&self.token);
    }
}

impl ProgressRelay {
    /// Starts relaying what `client` hears. Takes the client's notifications: nothing else
    /// reads them (a proxy owns its client).
    pub fn start(self: &Arc<Self>, client: &Client) {
        let Some(mut notifications) = client.notifications() else {
            tracing::warn!(
                "the proxy's client hands its notifications to someone else already; progress is not relayed"
            );
            return;
        };
        let relay = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(note) = notifications.recv().await {
                let Some(relay) = relay.upgrade() else {
                    return;
                };
                if note.method != notification_methods::PROGRESS {
                    continue;
                }
                let Some(params) = note
                    .params
                    .as_deref()
                    .and_then(|p| serde_json::from_str::<ProgressParams>(p.get()).ok())
                else {
                    continue;
                };
                let caller = relay.calls().get(&params.progress_token).cloned();
                if let Some(caller) = caller {
                    caller
                        .progress(params.progress, params.total, params.message)
                        .await;
                }
            }
        });
    }

    /// The token to send the remote for `ctx`'s call, if its caller asked for progress.
    pub fn relay(self: &Arc<Self>, ctx: &Context) -> Option<Relayed> {
        if !ctx.wants_progress() {
            return None;
        }
        let token = ProgressToken::Number(self.next.fetch_add(1, Ordering::Relaxed));
        self.calls().insert(token.clone(), ctx.clone());
        Some(Relayed {
            token,
            relay: self.clone(),
        })
    }

    fn calls(&self) -> MutexGuard<'_, HashMap<ProgressToken, Context>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
