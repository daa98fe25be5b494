//! [`Error`]: the one error type a `main` returns, whatever part of the framework failed; `?`
//! converts every error the framework's fallible calls return into it.

use std::error::Error as _;

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
#[derive(thiserror::Error)]
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
    /// The server could not listen on its address (in use, not this machine's, no permission).
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
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

/// What `main` prints when it returns the error: the message and its causes, not the enum's
/// structure (`cannot listen on 127.0.0.1:8000: Address already in use (os error 98)` rather
/// than `Io(Os { code: 98, … })`).
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")?;
        // The message already says the first cause of the variants that wrap an i/o error; a
        // transparent variant's own source is the next cause.
        let mut source = match self {
            Error::Io(e) | Error::Listen { source: e, .. } => e.source(),
            other => std::error::Error::source(other),
        };
        while let Some(cause) = source {
            write!(f, "\n  caused by: {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

impl From<crate::state::KeyError> for Error {
    fn from(error: crate::state::KeyError) -> Self {
        Self::RequestState(error.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_main_prints_is_the_message_and_its_causes() {
        let in_use = std::io::Error::from(std::io::ErrorKind::AddrInUse);
        let error = Error::Listen {
            addr: "127.0.0.1:8000".into(),
            source: in_use,
        };
        assert_eq!(
            format!("{error:?}"),
            "cannot listen on 127.0.0.1:8000: address in use"
        );
    }
}
