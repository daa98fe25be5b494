//! [`McpResponse`]: the answer to one request as a middleware layer sees it.

use crate::protocol::McpError;

/// The answer to an [`McpRequest`](super::McpRequest): its JSON-RPC result line, or the
/// JSON-RPC error it fails with.
///
/// A tool that fails answers with a *result* whose `isError` is true, not with an error:
/// [`is_tool_error`](Self::is_tool_error) tells the two apart, so an audit or a metric counts
/// it as the failure it is.
#[derive(Debug, Clone)]
pub struct McpResponse {
    outcome: Result<String, McpError>,
}

impl McpResponse {
    pub(crate) fn new(outcome: Result<String, McpError>) -> Self {
        Self { outcome }
    }

    /// An answer with `error`, for a layer that refuses a request without calling on (a
    /// layer may also fail with the [`McpError`] itself: it reaches the client unchanged).
    ///
    /// ```
    /// use mcp::protocol::McpError;
    /// use mcp::server::McpResponse;
    ///
    /// let refused = McpResponse::from_error(McpError::invalid_params("Not on weekends"));
    /// assert_eq!(refused.error().map(|e| e.code), Some(-32602));
    /// ```
    pub fn from_error(error: McpError) -> Self {
        Self {
            outcome: Err(error),
        }
    }

    /// The JSON-RPC error it answers with, if it does.
    pub fn error(&self) -> Option<&McpError> {
        self.outcome.as_ref().err()
    }

    /// The response line of a successful answer (`{"jsonrpc":"2.0","id":…,"result":…}`).
    pub fn result_line(&self) -> Option<&str> {
        self.outcome.as_deref().ok()
    }

    /// Whether it is a tool's failure: a result with `"isError": true`. Read from the line
    /// when asked, so a server whose layers never ask pays nothing for it.
    pub fn is_tool_error(&self) -> bool {
        #[derive(serde::Deserialize)]
        struct Line {
            result: Flag,
        }
        #[derive(serde::Deserialize)]
        struct Flag {
            #[serde(rename = "isError", default)]
            is_error: bool,
        }
        self.result_line()
            .and_then(|line| serde_json::from_str::<Line>(line).ok())
            .is_some_and(|line| line.result.is_error)
    }

    pub(crate) fn into_outcome(self) -> Result<String, McpError> {
        self.outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_error_is_a_result_with_is_error() {
        let failed = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"isError"}],"isError":true}}"#;
        assert!(McpResponse::new(Ok(failed.to_owned())).is_tool_error());
        let fine = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}"#;
        assert!(!McpResponse::new(Ok(fine.to_owned())).is_tool_error());
        let listed = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#;
        assert!(!McpResponse::new(Ok(listed.to_owned())).is_tool_error());
        assert!(!McpResponse::from_error(McpError::internal("x")).is_tool_error());
    }
}
