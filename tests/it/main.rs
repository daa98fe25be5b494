//! The facade's integration tests, in one binary: every module was a test binary of its own,
//! and each of those linked axum, hyper and jsonwebtoken again. `cargo test --test it --
//! http_modern::` runs one module's tests.
//!
//! The modules share one process and run concurrently, so none of them may change what the
//! process shares: no environment variables or current directory (what a child needs goes on
//! its `Command`), no panic hook, no global `tracing` subscriber, only ephemeral ports. The
//! fleet tests load both cores, so they take turns (`fleet::FLEET`); the other tests' time
//! limits leave room for running beside them.

mod support;

mod board;
mod client_cancel;
mod client_capabilities;
mod client_listen;
mod client_oauth;
mod client_oauth_dpop;
mod client_oauth_loopback;
mod client_progress;
mod client_rounds;
mod client_server;
mod client_tasks;
mod client_tls;
mod elicit_url;
mod elicitation_schemas;
mod extensions;
mod fleet;
mod handler_panics;
mod hostile_http;
mod hostile_inputs;
mod hostile_server;
mod hostile_stdio;
mod hostile_wire;
mod http_auth;
mod http_auth_dpop;
mod http_client;
mod http_legacy;
mod http_modern;
mod http_security;
mod legacy_session_hooks;
mod macro_prompts_resources;
mod macro_tools;
mod mounting;
mod plain_schemas;
mod policies;
mod protected_e2e;
mod provisioner_stdio;
mod proxy_relay;
mod proxy_tasks;
mod push_http;
mod push_memory;
mod push_resume;
mod python_client_interop;
mod python_server_interop;
mod redis_bus;
mod refusals_logged;
mod resolve;
mod resume_elsewhere;
mod runtime_changes;
mod server_knobs;
mod shutdown;
mod task_notify;
mod task_store;
mod tasks;
