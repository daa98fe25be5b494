//! `mcp`: build Model Context Protocol servers and clients in Rust.
//!
//! This facade re-exports the runtime ([`mcp_runtime`]) and the macros.
pub use mcp_runtime::*;
