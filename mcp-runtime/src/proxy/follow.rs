//! The remote's listing kept current: a listen on the remote (`subscriptions/listen` on
//! 2026-07-28, the session's `…/list_changed` on 2025-11-25) and, for each change heard,
//! the listing read again and swapped into the proxy's tables, which tells the proxy's own
//! listeners.
//!
//! The re-read runs in a task of its own, beside the calls, which keep using the tables
//! they found. Changes heard close together are read once: after the first, the follower
//! waits [`QUIET`] and reads for all of them, so a remote that announces in a flood costs one
//! listing per [`QUIET`] at most. A listen that breaks (the remote went away) is opened again
//! with growing waits, and the listing read again once it is, since changes made meanwhile
//! went unheard.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::backoff::Backoff;
use crate::client::{Client, ClientError, Listen};
use crate::protocol::{SubscriptionFilter, code};
use crate::push::Change;
use crate::server::{Server, WeakHandle};

use super::listing;

/// How long the follower gathers changes after the first before it reads the listing.
pub(super) const QUIET: Duration = Duration::from_millis(200);

/// The listen a proxy opens before it reads the listing, so no change after that reading
/// goes unheard: `None` when the remote takes no listen (its listing is not followed).
pub(super) async fn first_listen(client: &Client) -> Option<Result<Listen, ClientError>> {
    match client.listen(filter()).await {
        Err(ClientError::Rpc(error)) if error.code == code::METHOD_NOT_FOUND => {
            tracing::info!(
                "the proxied server does not take subscriptions/listen; its listing is not followed"
            );
            None
        }
        opened => Some(opened),
    }
}

/// What the follower reads each time, and when it stops.
pub(super) struct Following {
    pub client: Client,
    /// Whether the listing's tools pass tasks through (see `listing::fetch`).
    pub tasks: bool,
    /// Cancelled when the proxy's server is dropped (its state holds the guard), so the
    /// follower, and the connection it holds, go with it rather than at the next change.
    pub stop: CancellationToken,
}

/// Follows the remote for `server`, from `first` (the listen opened before the listing was
/// read), until `server` is dropped or `client`'s connection ends.
pub(super) fn start(
    runtime: &tokio::runtime::Handle,
    following: Following,
    first: Result<Listen, ClientError>,
    server: &Server,
) {
    let server = server.handle().downgrade();
    runtime.spawn(async move {
        let stop = following.stop.clone();
        tokio::select! {
            () = stop.cancelled() => {}
            () = follow(following, first, server) => {}
        }
    });
}

fn filter() -> SubscriptionFilter {
    SubscriptionFilter::new()
        .tools_changed()
        .prompts_changed()
        .resources_changed()
}

async fn follow(following: Following, first: Result<Listen, ClientError>, server: WeakHandle) {
    let Following { client, tasks, .. } = following;
    let mut backoff = Backoff::default();
    let mut opened = Some(first);
    loop {
        let (listened, heard_all) = match opened.take() {
            Some(first) => (first, true),
            None => (client.listen(filter()).await, false),
        };
        let mut changes = match listened {
            Ok(changes) => changes,
            Err(ClientError::Closed) => return,
            Err(error) => {
                tracing::debug!(%error, "could not listen to the proxied server; trying again");
                tokio::time::sleep(backoff.next()).await;
                continue;
            }
        };
        // Whatever changed before a listen opened again went unheard.
        if !heard_all && !refresh(&client, tasks, &server).await {
            return;
        }
        loop {
            match changes.next().await {
                Some(Ok(
                    Change::ToolsListChanged
                    | Change::PromptsListChanged
                    | Change::ResourcesListChanged,
                )) => {}
                Some(Ok(_)) => continue,
                Some(Err(lost)) => {
                    tracing::debug!(%lost, "lost the listen on the proxied server");
                    break;
                }
                None => break,
            }
            backoff.reset();
            let open = gather(&mut changes).await;
            if !refresh(&client, tasks, &server).await {
                return;
            }
            if !open {
                break;
            }
        }
        // A listen that ends at once (a remote shutting down) must not be reopened in a spin.
        tokio::time::sleep(backoff.next()).await;
    }
}

/// Waits [`QUIET`], taking every change that comes meanwhile; whether the listen is still
/// open.
async fn gather(changes: &mut Listen) -> bool {
    let quiet = tokio::time::sleep(QUIET);
    let mut quiet = std::pin::pin!(quiet);
    loop {
        tokio::select! {
            () = &mut quiet => return true,
            change = changes.next() => if !matches!(change, Some(Ok(_))) {
                return false;
            },
        }
    }
}

/// Reads the remote's listing and swaps it in; whether the proxy's server is still there.
async fn refresh(client: &Client, tasks: bool, server: &WeakHandle) -> bool {
    let listed = listing::fetch(client, tasks).await;
    let Some(handle) = server.upgrade() else {
        return false;
    };
    let listed = match listed {
        Ok(listed) => listed,
        Err(error) => {
            // The listen breaks too when the remote is gone; reopening it reads again.
            tracing::warn!(%error, "could not read the proxied server's listing again");
            return true;
        }
    };
    if let Err(error) = handle.replace_all(listed.tools, listed.prompts, listed.resources) {
        tracing::warn!(%error, "the proxied server's new listing cannot be served");
    }
    true
}
