//! One log line for every request the server refuses, so an operator who installs a `tracing`
//! subscriber at `info` sees why a client was turned away without turning on debug logging.
//!
//! Client mistakes log at INFO: they are the client's to fix, but the person running the
//! server is usually the one asking why nothing works. A refusal that protects the server or
//! its users (a forged `requestState`, a rebinding `Host`) logs at WARN where it is decided,
//! with the cause the client is never told, so it is not logged here a second time.

use crate::protocol::{McpError, code};

/// Logs a JSON-RPC error the server answers with. `method` is `None` when the request was
/// refused before its method was known (unparsable, too large, the wrong headers).
pub(crate) fn rpc(method: Option<&str>, error: &McpError) {
    if error.is_invalid_request_state() {
        return;
    }
    let method = method.unwrap_or("-");
    let code = error.code;
    let message = &*error.message;
    if code == code::INTERNAL_ERROR {
        tracing::warn!(method, code, "answered {method} with an error: {message}");
    } else {
        tracing::info!(method, code, "refused {method}: {message}");
    }
}

/// Logs an HTTP request refused with `status` and no JSON-RPC error of its own.
#[cfg(feature = "http")]
pub(crate) fn http(status: axum::http::StatusCode, reason: &str) {
    let status = status.as_u16();
    tracing::info!(status, "refused an HTTP request ({status}): {reason}");
}
