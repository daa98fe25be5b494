//! [`Error`]: the one error type a `main` returns, whatever part of the framework failed; `?`
//! converts every error the framework's fallible calls return into it.

use crate::client::ClientError;
use crate::server::BuildError;
use crate::state::ConfigError;

/// Anything that stopped a server or a client: the error to return from `main`.
///
/// ```no_run
/// #[tokio::main]
/// async fn main() -> Result<(), mcp::Error> {
///     let keys = mcp::state::RequestStateSecurity::from_env("MCP_STATE_KEYS")?;
///     mcp::server::McpServer::new("billing")
///         .request_state_security(keys)
///         .serve_stdio()
///         .await
/// }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server could not be built.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// A request-state policy could not be made (keys, environment, ttl).
    #[error(transparent)]
    RequestState(#[from] ConfigError),
    /// Listening, accepting or a process's standard streams failed.
    #[error("i/o failed: {0}")]
    Io(#[from] std::io::Error),
    /// A client call failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// An HTTP client could not be set up for a URL.
    #[cfg(feature = "http")]
    #[error(transparent)]
    HttpClient(#[from] crate::transport::http_client::HttpClientError),
    /// A protected-resource URL is unusable.
    #[cfg(feature = "http")]
    #[error(transparent)]
    ResourceUrl(#[from] crate::auth::InvalidResourceUrl),
    /// A key for verifying JWT access tokens is unusable.
    #[cfg(feature = "jwt")]
    #[error(transparent)]
    JwtKey(#[from] crate::auth::JwtKeyError),
}

impl From<crate::state::KeyError> for Error {
    fn from(error: crate::state::KeyError) -> Self {
        Self::RequestState(error.into())
    }
}
