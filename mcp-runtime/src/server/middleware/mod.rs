//! Middleware: ordinary `tower` layers around every MCP request (but the open-ended
//! `subscriptions/listen`), after it is decoded and
//! admitted (its wire and protocol revision known, its caller verified), so a timeout, a
//! concurrency limit or an audit log is written the way any Rust service writes one.
//!
//! A layer sees an [`McpRequest`] (the method, the tool or prompt name or resource URI, the
//! JSON-RPC id, the caller's [`Identity`](crate::auth::Identity), the protocol revision, the
//! params) and an [`McpResponse`] (the answer line, or the JSON-RPC error, and whether a tool
//! answered with `isError`). Errors the layers themselves produce (tower's `Elapsed`,
//! `Overloaded`, any `BoxError`) become JSON-RPC errors: see [`McpService`].
//!
//! A server without layers calls its dispatch directly: nothing is boxed or cloned for them.

mod errors;
mod request;
mod response;
mod stack;

pub use request::McpRequest;
pub(super) use request::Pending;
pub use response::McpResponse;
pub use stack::McpService;
pub(super) use stack::Stack;
