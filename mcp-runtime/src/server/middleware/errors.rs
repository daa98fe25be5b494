//! What a layer's own failure says on the wire.

use crate::boxed::BoxError;
use crate::protocol::{McpError, code};

/// The JSON-RPC error for an error a layer returned instead of a response: an [`McpError`]
/// as it is, tower's timeout and load shedding as their own codes, anything else as `-32603`
/// with the cause in the log only (a layer's internals are not the client's business).
pub(crate) fn into_mcp_error(error: BoxError, method: &str) -> McpError {
    let error = match error.downcast::<McpError>() {
        Ok(error) => return *error,
        Err(error) => error,
    };
    if error.is::<tower::timeout::error::Elapsed>() {
        return McpError::new(code::REQUEST_TIMEOUT, "Request timed out");
    }
    if error.is::<tower::load_shed::error::Overloaded>() {
        return McpError::new(
            code::SERVER_OVERLOADED,
            "Server overloaded; try again later",
        );
    }
    tracing::error!(method, %error, "a middleware layer failed; answering -32603");
    McpError::internal("Internal error")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_layer_error_has_its_own_answer() {
        let passed = into_mcp_error(Box::new(McpError::invalid_params("no")), "tools/call");
        assert_eq!(passed, McpError::invalid_params("no"));
        let elapsed = into_mcp_error(tower::timeout::error::Elapsed::new().into(), "tools/call");
        assert_eq!(elapsed.code, code::REQUEST_TIMEOUT);
        let shed = into_mcp_error(
            tower::load_shed::error::Overloaded::new().into(),
            "tools/call",
        );
        assert_eq!(shed.code, code::SERVER_OVERLOADED);
        let other = into_mcp_error("the audit log is full".into(), "tools/call");
        assert_eq!(other, McpError::internal("Internal error"));
    }
}
