//! Sealed `requestState`.
//!
//! A server that asks the client for input hands it a `requestState` to echo on the retry. The
//! client must not be able to read it, alter it, replay it on another request, or carry it to
//! another server or user. This module seals every outbound token and opens every inbound one:
//!
//! - [`RequestStateSecurity`]: the policy (keys or a custom [`Codec`], ttl, audience, principal);
//! - [`AesGcmCodec`]: the built-in AES-256-GCM envelope, byte-compatible with the Python SDK;
//! - claims added to every token whatever the codec: issue and expiry time, method, tool/prompt
//!   name or resource URI, a digest of the arguments, audience, a salted principal digest.
//!
//! Every rejection is the same wire error ([`InvalidRequestState`] → `-32602 "Invalid or
//! expired requestState"`); the cause goes to the log at WARN.
//!
//! On a low-level server it is one line:
//!
//! ```
//! use mcp::protocol::Implementation;
//! use mcp::server::Server;
//! use mcp::state::RequestStateSecurity;
//!
//! let server = Server::builder(Implementation::new("billing", "1.0.0"))
//!     .request_state_security(RequestStateSecurity::keys([
//!         "a-secret-of-at-least-thirty-two-bytes-0001",
//!     ])?)
//!     .build()?;
//! # let _ = server;
//! # Ok::<(), mcp::Error>(())
//! ```

mod base64url;
mod boundary;
mod claims;
mod claims_reader;
mod codec;
mod error;
mod random;
mod security;
mod short_digest;

pub use boundary::StateBoundary;
pub use claims::RequestBinding;
pub use codec::{AesGcmCodec, Codec, MIN_SECRET_LEN};
pub use error::{ConfigError, InvalidRequestState, KeyError, SealError};
pub use random::discard_after_fork;
pub(crate) use random::fill_random;
pub use security::{DEFAULT_TTL, RequestStateSecurity, default_principal};
pub(crate) use short_digest::{SHORT_DIGEST_LEN, ShortDigest};
