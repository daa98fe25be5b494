//! The runtime of the `mcp` framework. Users reach it through the `mcp` facade crate.
//!
//! # Layers
//!
//! The modules form a stack: each imports only from the layers below it, never from one
//! beside or above it (the test in `layers.rs` checks every `crate::` and `super::` path).
//! A piece two layers need lives in the lowest layer that needs it. Bottom first:
//!
//! 1. [`protocol`]: JSON-RPC 2.0, the MCP types of 2026-07-28 and 2025-11-25, and the
//!    canonical JSON that digests and claims are computed over. Beside it, pieces with no
//!    dependencies: [`BoxFuture`] and [`BoxError`], the verified caller
//!    ([`auth::Identity`]), catching a handler's panic, the tables of the server's names,
//!    and (feature `redis`) the back-off between attempts to reach Redis.
//! 2. [`state`]: sealing of `requestState` (AES-256-GCM, claims, key rotation), bound to the
//!    caller's identity. Beside it (feature `otel`), `telemetry`: the spans and metrics of an
//!    MCP operation, which the server and the client below and above call into.
//! 3. [`auth`]: the HTTP endpoint as an OAuth 2.1 resource server (token verifiers, metadata).
//! 4. [`push`]: what changed on a server, and the bus that carries each change to every
//!    instance of an application ([`LocalBus`](push::LocalBus), a Redis one with `redis`).
//! 5. [`tasks`]: where the tasks of the tasks extension live
//!    ([`MemoryTaskStore`](tasks::MemoryTaskStore), a Redis one with `redis`), so that any
//!    instance of a fleet answers for a task running on another, and the settings a server
//!    runs them with ([`Tasks`](tasks::Tasks)). Stores know nothing of servers.
//! 6. [`server`]: the low-level [`Server`](server::Server) (the generation gate, routing, the
//!    state boundary, the request [`Context`](server::Context)) and the
//!    [`McpServer`](server::McpServer) registry the macros feed, with the tasks runtime
//!    (built on the extension point) that runs its tools as tasks. It knows no transport.
//! 7. [`resolve`]: Resolve parameters, the questions a function asks through its context.
//! 8. [`transport`]: stdio, in-memory and (feature `http`) Streamable HTTP, each turning bytes
//!    into requests for a server, or (client side) into a [`Duplex`](transport::Duplex).
//! 9. [`client`]: a client of both generations over any transport.
//! 10. [`proxy`]: a remote server served through a [`Client`](client::Client) as an
//!     [`McpServer`](server::McpServer) of this process.
//! 11. [`Error`]: the one error a `main` returns, whatever failed.
//! 12. Serving: `serve_stdio`, `serve_http` and `serve_in_memory` on both server types, the
//!     only place that joins a server to a transport.
//!
//! Above them all, `__private` names what macro-generated code uses.
#![forbid(unsafe_code)]

pub mod auth;
mod backoff;
mod boxed;
pub mod client;
mod error;
mod identity;
mod name_map;
#[cfg(feature = "http")]
mod outlined;
mod panics;
pub mod protocol;
pub mod proxy;
pub mod push;
pub mod resolve;
mod serve;
pub mod server;
pub mod state;
pub mod tasks;
#[cfg(feature = "otel")]
pub mod telemetry;
pub mod transport;

pub use boxed::{BoxError, BoxFuture};
pub use error::Error;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

#[cfg(test)]
mod layers;
#[cfg(test)]
mod test_rng;
