//! The low-level [`Server`]: one handler per method, the generation gate, dispatch.
//!
//! A [`Server`] answers both wires at once: 2026-07-28 requests (version and capabilities in
//! `_meta`, multi round-trip results) and 2025-11-25 sessions (`initialize`, then requests).
//! Transports ([`crate::transport`]) feed it messages.

pub mod app;
mod app_state;
mod builder;
mod context;
mod dispatch;
mod gate;
mod handlers;
mod serve;
mod session;

use std::sync::Arc;

pub use app::{BuildError, McpServer, ServeError};
pub use app_state::{AppState, FromAppState, State, StateKey};
pub use builder::{DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_PAGE_SIZE, ServerBuilder};
pub use context::{NotificationSink, RequestContext};
pub use dispatch::Exchange;
pub(crate) use dispatch::Reply;
pub(crate) use gate::Head;
pub use handlers::BoxFuture;
pub(crate) use handlers::catch_panics;
pub use session::{Connection, LegacySession};

use crate::protocol::{Generation, Implementation, ServerCapabilities, Stamp};
use crate::state::StateBoundary;
use builder::Handlers;

/// A low-level MCP server. Cheap to clone (all clones share one set of handlers).
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    info: Arc<Implementation>,
    instructions: Option<String>,
    capabilities: ServerCapabilities,
    handlers: Handlers,
    max_message_size: usize,
    state: Option<StateBoundary>,
    app_state: Arc<AppState>,
    modern: Stamp,
    legacy: Stamp,
}

impl Server {
    /// Starts building a server that introduces itself as `info`.
    pub fn builder(info: Implementation) -> ServerBuilder {
        ServerBuilder::new(info)
    }

    fn from_builder(b: ServerBuilder, capabilities: ServerCapabilities) -> Self {
        let info = Arc::new(b.info);
        let stamp = |generation| Stamp {
            generation,
            server_info: info.clone(),
            cache: b.cache,
        };
        let modern = stamp(Generation::Modern);
        let legacy = stamp(Generation::Legacy);
        Self {
            inner: Arc::new(Inner {
                info,
                instructions: b.instructions,
                capabilities,
                handlers: b.handlers,
                max_message_size: b.max_message_size,
                state: b.state,
                app_state: Arc::new(b.app_state),
                modern,
                legacy,
            }),
        }
    }

    /// Who this server says it is.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// What it advertises.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.inner.capabilities
    }

    /// The longest message it accepts.
    pub fn max_message_size(&self) -> usize {
        self.inner.max_message_size
    }

    fn stamp(&self, generation: Generation) -> &Stamp {
        match generation {
            Generation::Modern => &self.inner.modern,
            Generation::Legacy => &self.inner.legacy,
        }
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .field("capabilities", &self.inner.capabilities)
            .finish_non_exhaustive()
    }
}
