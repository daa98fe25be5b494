//! Names and numbers from the OpenTelemetry semantic conventions for MCP
//! (`docs/gen-ai/mcp.md` of `semantic-conventions-genai`), in one place so that a rename
//! there is a change here. Span fields repeat these names literally, as `tracing` macros need.

pub(crate) const METHOD_NAME: &str = "mcp.method.name";
pub(crate) const PROTOCOL_VERSION: &str = "mcp.protocol.version";
pub(crate) const TOOL_NAME: &str = "gen_ai.tool.name";
pub(crate) const PROMPT_NAME: &str = "gen_ai.prompt.name";
pub(crate) const OPERATION_NAME: &str = "gen_ai.operation.name";
pub(crate) const ERROR_TYPE: &str = "error.type";
pub(crate) const RESPONSE_STATUS_CODE: &str = "rpc.response.status_code";
pub(crate) const NETWORK_TRANSPORT: &str = "network.transport";
pub(crate) const NETWORK_PROTOCOL_NAME: &str = "network.protocol.name";
pub(crate) const SERVER_ADDRESS: &str = "server.address";
pub(crate) const SERVER_PORT: &str = "server.port";

/// `gen_ai.operation.name` of a tool call, and of nothing else.
pub(crate) const EXECUTE_TOOL: &str = "execute_tool";
/// `error.type` of a `CallToolResult` with `isError: true`.
pub(crate) const TOOL_ERROR: &str = "tool_error";
/// `error.type` when a call ends without a JSON-RPC error code to name it.
pub(crate) const OTHER_ERROR: &str = "_OTHER";

pub(crate) const SERVER_OPERATION_DURATION: &str = "mcp.server.operation.duration";
pub(crate) const CLIENT_OPERATION_DURATION: &str = "mcp.client.operation.duration";
pub(crate) const SERVER_SESSION_DURATION: &str = "mcp.server.session.duration";
pub(crate) const CLIENT_SESSION_DURATION: &str = "mcp.client.session.duration";

/// The explicit bucket boundaries, in seconds, the conventions ask of the operation- and
/// session-duration histograms alike.
pub(crate) const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

// Not in the conventions: refusals an operator of this runtime wants to count on their own.
pub(crate) const REQUEST_STATE_REJECTED: &str = "mcp.server.request_state.rejected";
pub(crate) const CAPABILITY_REFUSED: &str = "mcp.server.capability.refused";
