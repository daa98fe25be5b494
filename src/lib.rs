#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub use mcp_runtime::*;

/// Serves a [`server::Server`] over Streamable HTTP at `http://addr/mcp` until Ctrl-C.
/// See [`transport::http`] for mounting it into an axum app and for the options.
#[cfg(feature = "http")]
pub use mcp_runtime::transport::http::serve_http;
