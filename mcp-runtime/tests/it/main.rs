//! The runtime's integration tests, in one binary (every module was a test binary of its own,
//! linking axum and hyper again). `cargo test -p mcp-runtime --test it -- wire_errors::` runs
//! one module's tests.
//!
//! The modules share one process and run concurrently, so none of them may change what the
//! process shares: no environment variables, no global `tracing` subscriber (a test that reads
//! the log installs its own for one thread, `tracing::subscriber::with_default`).

mod support;

mod back_channel;
mod schema_conformance;
mod server_generations;
mod state_boundary;
mod wire_errors;
