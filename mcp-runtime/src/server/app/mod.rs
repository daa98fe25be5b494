//! [`McpServer`]: the server `#[mcp::tool]` functions are registered on.
//!
//! It turns a list of macro-described tools into a low-level [`Server`]: the listing (schemas
//! computed once), dispatch by name, structured-output wrapping, and sealed `requestState` on by
//! default.

mod args;
mod returns;
mod schema;
mod tools;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::protocol::{CallToolResult, Implementation, McpError, Outcome};
use crate::state::{ConfigError, RequestStateSecurity};
use crate::transport::{Duplex, memory};

use super::Server;

pub use args::{InvalidArgument, take_arg, take_arg_or};
pub use returns::{IntoToolOutcome, Json};
pub use schema::{OutputSchema, input_schema, output_schema};
pub use tools::{ToolCall, ToolDef, ToolEntry, ToolInfo};

/// A server assembled from `#[mcp::tool]` functions (registered with `mcp::tools![…]`; see the
/// `mcp` facade crate for the macros).
///
/// ```
/// use mcp_runtime::server::McpServer;
///
/// let server = McpServer::new("greeter")
///     .version("1.2.0")
///     .instructions("Greets people.")
///     .build()?;
/// assert_eq!(server.info().name, "greeter");
/// # Ok::<(), mcp_runtime::server::BuildError>(())
/// ```
///
/// Sealing of `requestState` is on by default with a per-process key
/// ([`RequestStateSecurity::ephemeral`]); pass shared keys with
/// [`request_state_security`](Self::request_state_security) to run several instances.
#[derive(Debug)]
pub struct McpServer {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<ToolEntry>,
    security: RequestStateSecurity,
}

/// Why an [`McpServer`] could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Two tools share a name.
    #[error(
        "two tools are named `{name}` (registrations #{first} and #{second}); tool names must be unique"
    )]
    DuplicateTool {
        /// The name.
        name: String,
        /// Position of the first registration (from 1).
        first: usize,
        /// Position of the second.
        second: usize,
    },
    /// The request-state policy is unusable.
    #[error(transparent)]
    RequestState(#[from] ConfigError),
}

impl McpServer {
    /// A server that introduces itself as `name`, version `0.0.0` until [`version`](Self::version).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            info: Implementation::new(name, "0.0.0"),
            instructions: None,
            tools: Vec::new(),
            security: RequestStateSecurity::ephemeral(),
        }
    }

    /// The version it reports.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.info.version = version.into();
        self
    }

    /// Guidance for the model, sent by `server/discover` and `initialize`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Registers tools, usually `mcp::tools![a, b, c]`.
    pub fn tools(mut self, tools: impl IntoIterator<Item = ToolEntry>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// How `requestState` is sealed (default: a random per-process key).
    pub fn request_state_security(mut self, security: RequestStateSecurity) -> Self {
        self.security = security;
        self
    }

    /// Checks the registrations and assembles the low-level [`Server`].
    pub fn build(self) -> Result<Server, BuildError> {
        let mut by_name: HashMap<String, usize> = HashMap::with_capacity(self.tools.len());
        for (index, entry) in self.tools.iter().enumerate() {
            if let Some(first) = by_name.insert(entry.tool.name.clone(), index) {
                return Err(BuildError::DuplicateTool {
                    name: entry.tool.name.clone(),
                    first: first + 1,
                    second: index + 1,
                });
            }
        }
        let mut builder = Server::builder(self.info).request_state_security(self.security)?;
        if let Some(instructions) = self.instructions {
            builder = builder.instructions(instructions);
        }
        if !self.tools.is_empty() {
            let listing = self.tools.iter().map(|e| e.tool.clone()).collect();
            let table: Arc<HashMap<String, (ToolCall, bool)>> = Arc::new(
                self.tools
                    .into_iter()
                    .map(|e| (e.tool.name, (e.call, e.wraps_output)))
                    .collect(),
            );
            builder = builder.tools(listing).on_call_tool(move |ctx, params| {
                let found = table.get(&params.name).copied();
                async move {
                    let Some((call, wraps)) = found else {
                        return Err(McpError::invalid_params(format!(
                            "Unknown tool: {}",
                            params.name
                        )));
                    };
                    let outcome = call(ctx, params).await?;
                    Ok(if wraps { wrap_output(outcome) } else { outcome })
                }
            });
        }
        Ok(builder.build())
    }

    /// Serves MCP over this process's stdin and stdout until stdin closes.
    pub async fn serve_stdio(self) -> Result<(), BuildError> {
        self.build()?.serve_stdio().await;
        Ok(())
    }

    /// Starts the server on an in-memory connection and returns the client's end (for tests and
    /// embedding); connect a [`Client`](crate::client::Client) to it. Needs a Tokio runtime.
    pub fn serve_in_memory(self) -> Result<Duplex, BuildError> {
        let server = self.build()?;
        let (client_end, server_end) = memory::pair();
        tokio::spawn(async move { server.serve(server_end).await });
        Ok(client_end)
    }
}

fn wrap_output(outcome: Outcome<CallToolResult>) -> Outcome<CallToolResult> {
    match outcome {
        Outcome::Complete(mut result) => {
            if let Some(value) = result.structured_content.take() {
                result.structured_content = Some(Value::Object(Map::from_iter([(
                    "result".to_owned(),
                    value,
                )])));
            }
            Outcome::Complete(result)
        }
        ask => ask,
    }
}
