//! What can go wrong with sealed state, and what the client is (not) told.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;

use crate::boxed::BoxError;
use crate::protocol::McpError;

/// A `requestState` that must not be trusted: forged, altered, expired, minted for another
/// request, server or principal, or simply not a token.
///
/// The reason is for the server's log only. On the wire every cause becomes the same
/// `-32602 "Invalid or expired requestState"`, so a client learns nothing about which check failed.
///
/// ```
/// use mcp::state::InvalidRequestState;
///
/// let rejected = InvalidRequestState::new("unknown envelope prefix");
/// assert_eq!(rejected.reason(), "unknown envelope prefix");
/// let wire = mcp::protocol::McpError::from(rejected);
/// assert_eq!(wire.message, "Invalid or expired requestState");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidRequestState {
    reason: Cow<'static, str>,
}

impl InvalidRequestState {
    /// A rejection with a reason for the log (never sent to the client).
    pub fn new(reason: impl Into<Cow<'static, str>>) -> Self {
        Self {
            reason: reason.into(),
        }
    }

    /// Why it was rejected.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for InvalidRequestState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid requestState: {}", self.reason)
    }
}

impl StdError for InvalidRequestState {}

impl From<InvalidRequestState> for McpError {
    fn from(_: InvalidRequestState) -> Self {
        McpError::invalid_request_state()
    }
}

/// Sealing outbound state failed (a custom codec or principal hook returned an error).
/// The client sees a bare `-32603 "Internal error"`; the cause is logged.
#[derive(Debug, thiserror::Error)]
#[error("sealing requestState failed: {0}")]
pub struct SealError(#[source] pub BoxError);

impl From<SealError> for McpError {
    fn from(_: SealError) -> Self {
        McpError::internal("Internal error")
    }
}

/// A key ring that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// No key at all.
    #[error(
        "the request-state key ring is empty; give at least one secret of 32 bytes or more \
         (generate one with `openssl rand -hex 32`)"
    )]
    Empty,
    /// A key under 32 bytes.
    #[error(
        "request-state key {index} is {len} bytes; each key needs at least 32 bytes of secret \
         (generate one with `openssl rand -hex 32`)"
    )]
    TooShort {
        /// Its position in the ring.
        index: usize,
        /// Its length in bytes.
        len: usize,
    },
    /// The same secret twice, or two secrets whose key ids collide.
    #[error("request-state key {index} duplicates an earlier key in the ring")]
    Duplicate {
        /// Its position in the ring.
        index: usize,
    },
}

/// A request-state policy that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The key ring is unusable.
    #[error(transparent)]
    Keys(#[from] KeyError),
    /// The environment variable that should hold the keys is missing or not UTF-8.
    #[error(
        "environment variable {0} is not set; set it to one or more comma-separated secrets of \
         32 bytes or more (generate one with `openssl rand -hex 32`)"
    )]
    MissingEnv(String),
    /// A ttl of zero.
    #[error("the requestState ttl must be greater than zero")]
    ZeroTtl,
    /// Shared keys on a server without a real name and without an explicit audience: two such
    /// servers would accept each other's state.
    #[error(
        "this server seals requestState with explicit keys but has no name to bind tokens to; \
         give the server a name or set RequestStateSecurity::audience(..)"
    )]
    NoAudience,
}
