//! The runtime of the `mcp` framework.
//!
//! Modules, one concern each:
//! - [`protocol`]: JSON-RPC 2.0 and the MCP types of 2026-07-28 and 2025-11-25.
//! - [`server`]: the low-level [`Server`](server::Server), dispatch, the generation gate.
//! - [`resolve`]: what functions ask the client for (form questions from Rust types).
//! - [`state`]: sealing of `requestState` (AES-256-GCM, claims, key rotation).
//! - [`transport`]: stdio, in-memory and (feature `http`) Streamable HTTP transports.
//! - [`client`]: a client that speaks both generations.
//! - [`auth`]: OAuth 2.1 resource-server authorization and the verified identity of a caller.
#![forbid(unsafe_code)]

pub mod auth;
pub mod client;
pub mod protocol;
pub mod resolve;
pub mod server;
pub mod state;
pub mod transport;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;
