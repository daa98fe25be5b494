//! The application's handle on a running server, for what happens outside any request:
//! telling listening clients what changed.

use std::fmt;
use std::sync::Arc;

use crate::push::{Change, NotificationBus};

/// A handle on a server, cheap to clone: from [`Server::handle`](super::Server::handle), or
/// from a handler's [`Context::server`](super::Context::server).
///
/// ```
/// use mcp::protocol::Implementation;
/// use mcp::server::Server;
///
/// let server = Server::builder(Implementation::new("board", "1.0.0")).build()?;
/// let handle = server.handle();
/// // A post arrived: clients subscribed to the board hear of it.
/// handle.resource_updated("board://messages");
/// # Ok::<(), mcp::server::BuildError>(())
/// ```
#[derive(Clone)]
pub struct ServerHandle {
    bus: Arc<dyn NotificationBus>,
}

impl ServerHandle {
    pub(super) fn new(bus: Arc<dyn NotificationBus>) -> Self {
        Self { bus }
    }

    /// Tells every listening client of every instance on the server's bus about `change`.
    pub fn notify(&self, change: Change) {
        self.bus.publish(change);
    }

    /// The resource at `uri` changed: `notifications/resources/updated` to the clients
    /// subscribed to it.
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.notify(Change::ResourceUpdated { uri: uri.into() });
    }
}

impl fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerHandle").finish_non_exhaustive()
    }
}
