//! Why [`ServerBuilder::build`](super::ServerBuilder::build) or
//! [`McpServer::build`](super::McpServer::build) refused: every setting is checked there, once.

use crate::state::ConfigError;

/// Why a server could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Two tools, prompts or resources share a name (or URI), or two extensions an id.
    #[error(
        "two {kind}s are named `{name}` (registrations #{first} and #{second}); {kind} names must be unique"
    )]
    Duplicate {
        /// `tool`, `prompt`, `resource` or `extension`.
        kind: &'static str,
        /// The name, URI or id.
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
    /// An extension is unusable as registered: an id outside the grammar, settings that are
    /// not an object, a method name no request can carry.
    #[error("extension `{id}` cannot be registered: {reason}")]
    InvalidExtension {
        /// The extension's id, as given.
        id: String,
        /// What is wrong.
        reason: String,
    },
    /// An extension claims a method or `resultType` value the core protocol or another
    /// extension already has.
    #[error("extension `{extension}` cannot take the {what} `{name}`: {holder} has it")]
    ExtensionConflict {
        /// The extension registered second.
        extension: String,
        /// `method` or `resultType`.
        what: &'static str,
        /// The method name or `resultType` value.
        name: String,
        /// Who has it: "the core protocol", or "extension `com.example/other`".
        holder: String,
    },
    /// A server cannot be mounted as asked (see `McpServer::mount`).
    #[error("cannot mount a server under `{prefix}`: {reason}")]
    InvalidMount {
        /// The prefix, as given.
        prefix: String,
        /// What is wrong.
        reason: String,
    },
    /// Two tools, prompts, resources, templates or extension methods would read alike in a
    /// server with mounted servers (each child's names under its prefix).
    #[error("two {kind}s read `{name}` in the mounting server; give one of them another prefix")]
    MountClash {
        /// `tool`, `prompt`, `resource`, `resource template` or `extension method`.
        kind: &'static str,
        /// The name, URI, template or method as the mounting server would list it.
        name: String,
    },
    /// The request-state policy is unusable.
    #[error(transparent)]
    RequestState(#[from] ConfigError),
}
