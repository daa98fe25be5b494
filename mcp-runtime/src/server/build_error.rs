//! Why [`ServerBuilder::build`](super::ServerBuilder::build) or
//! [`McpServer::build`](super::McpServer::build) refused: every setting is checked there, once.

use crate::state::ConfigError;

/// Why a server could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Two tools, prompts or resources share a name (or URI).
    #[error(
        "two {kind}s are named `{name}` (registrations #{first} and #{second}); {kind} names must be unique"
    )]
    Duplicate {
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
        /// The name or URI.
        name: String,
        /// Position of the first registration (from 1).
        first: usize,
        /// Position of the second.
        second: usize,
    },
    /// A handler takes shared state that was never registered.
    #[error(
        "{kind} `{name}` takes `State<{state}>`, but no `{state}` was registered: add \
         `.state(value)` to the server"
    )]
    MissingState {
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
        /// Its name (or URI).
        name: String,
        /// The missing type.
        state: &'static str,
    },
    /// An icon or website URL that clients cannot use.
    #[error("the {what} `{url}` is not {expected}")]
    InvalidUrl {
        /// What it is for (`server icon`, `website URL`, …).
        what: String,
        /// The URL as given.
        url: String,
        /// What it must be.
        expected: &'static str,
    },
    /// A registration the macros could not check at compile time is unusable (say, a `meta`
    /// expression that is not a JSON object).
    #[error("{kind} `{name}` cannot be registered: {reason}")]
    InvalidRegistration {
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
        /// Its name (or URI).
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The request-state policy is unusable.
    #[error(transparent)]
    RequestState(#[from] ConfigError),
}
