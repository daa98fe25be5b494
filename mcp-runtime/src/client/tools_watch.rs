//! Keeping an application's tools current: with
//! [`ClientBuilder::on_tools_changed`](super::ClientBuilder::on_tools_changed) set, the first
//! listing of tools starts a listen for their changes (the client's own, one per client), and
//! each change makes the client list every page again and hand the new list to the hook.

use std::sync::{Arc, Mutex, Weak};

use crate::boxed::BoxFuture;
use crate::protocol::{SubscriptionFilter, Tool};

use super::connection::lock;
use super::listen::Listen;
use super::{Client, ClientError, Inner};

/// What [`on_tools_changed`](super::ClientBuilder::on_tools_changed) registered.
pub(super) type ToolsHook = Arc<dyn Fn(Vec<Tool>) -> BoxFuture<()> + Send + Sync>;

/// The hook and whether the client watches for it.
pub(super) struct ToolsWatch {
    hook: Option<ToolsHook>,
    state: Mutex<State>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The next listing starts watching.
    Idle,
    /// A listen for the tools is open, or opening.
    Watching,
    /// The server will never say its tools changed, or cannot be listened to.
    Pointless,
}

impl ToolsWatch {
    pub fn new(hook: Option<ToolsHook>) -> Self {
        Self {
            hook,
            state: Mutex::new(State::Idle),
        }
    }

    /// The hook, if there is one and nobody watches for it yet (the caller now does).
    fn claim(&self) -> Option<ToolsHook> {
        let hook = self.hook.clone()?;
        let mut state = lock(&self.state);
        (*state == State::Idle).then(|| {
            *state = State::Watching;
            hook
        })
    }

    fn settle(&self, state: State) {
        *lock(&self.state) = state;
    }
}

impl Client {
    /// Starts watching the tools for the hook, unless there is none or it is watched already.
    /// Opened before the listing it comes with, so no change after that listing goes unheard.
    pub(super) async fn watch_tools(&self) {
        let Some(hook) = self.inner.tools_watch.claim() else {
            return;
        };
        let watch = &self.inner.tools_watch;
        match self.listen(SubscriptionFilter::new().tools_changed()).await {
            Ok(listen) if listen.honoured().tools_list_changed == Some(true) => {
                tokio::spawn(relist(Arc::downgrade(&self.inner), listen, hook));
            }
            Ok(_) => watch.settle(State::Pointless),
            // The listing that comes next fails the same way.
            Err(ClientError::Closed) => watch.settle(State::Idle),
            Err(error) => {
                tracing::warn!(%error, "cannot listen for changes of the tools");
                watch.settle(State::Pointless);
            }
        }
    }
}

/// Lists the tools again and calls the hook after each change, until the listen or the
/// client ends. Holds the client weakly: a watch alone keeps nothing alive.
async fn relist(client: Weak<Inner>, mut listen: Listen, hook: ToolsHook) {
    while let Some(Ok(_)) = listen.next().await {
        let Some(inner) = client.upgrade() else {
            return;
        };
        let client = Client { inner };
        match client.every_tools_page().await {
            Ok(tools) => hook(tools).await,
            Err(error) => tracing::warn!(%error, "cannot list the tools again after a change"),
        }
    }
    // Ended: the next listing watches again.
    drop(listen);
    if let Some(inner) = client.upgrade() {
        inner.tools_watch.settle(State::Idle);
    }
}
