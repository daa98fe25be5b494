//! Where sealed state meets the request path: inbound tokens are opened before a handler runs,
//! outbound plaintext is sealed after it returns.

use serde_json::Value;

use crate::identity::Identity;

use super::claims::{self, Expect, Mint, RequestBinding};
use super::error::{ConfigError, InvalidRequestState, SealError};
use super::security::RequestStateSecurity;

/// A [`RequestStateSecurity`] resolved for one server (its audience fixed): opens inbound
/// tokens and seals outbound plaintext.
///
/// [`Server`](crate::server::Server) runs one for you; use it directly only when you carry
/// `requestState` through a server of your own.
///
/// ```
/// use mcp::state::{RequestBinding, RequestStateSecurity, StateBoundary};
/// use serde_json::json;
///
/// let boundary = StateBoundary::new(RequestStateSecurity::ephemeral(), "deployer")?;
/// let call = RequestBinding::new("tools/call", "deploy", Some(&json!({"env": "prod"})));
/// let token = boundary.seal("awaiting-confirm", &call, None)?;
/// assert_eq!(boundary.open(&json!(token), &call, None)?, "awaiting-confirm");
///
/// let other = RequestBinding::new("tools/call", "deploy", Some(&json!({"env": "dev"})));
/// assert!(boundary.open(&json!(token), &other, None).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct StateBoundary {
    security: RequestStateSecurity,
    audience: Option<String>,
}

impl StateBoundary {
    /// Resolves the audience: the policy's own, else the server's name. Explicit keys on a
    /// nameless server without an audience are refused, since any other nameless server with
    /// the same keys would accept its tokens; so is a zero ttl.
    pub fn new(security: RequestStateSecurity, server_name: &str) -> Result<Self, ConfigError> {
        if security.ttl.is_zero() {
            return Err(ConfigError::ZeroTtl);
        }
        let audience = match (&security.audience, server_name.trim().is_empty()) {
            (Some(audience), _) => Some(audience.clone()),
            (None, false) => Some(server_name.to_owned()),
            (None, true) if security.explicit => return Err(ConfigError::NoAudience),
            (None, true) => None,
        };
        Ok(Self { security, audience })
    }

    /// Opens an inbound `requestState` (present and not `null`) for the request it arrived on,
    /// from the caller `identity`; returns the plaintext it was sealed from.
    pub fn open(
        &self,
        token: &Value,
        binding: &RequestBinding,
        identity: Option<&Identity>,
    ) -> Result<String, InvalidRequestState> {
        let Value::String(token) = token else {
            return Err(InvalidRequestState::new("non-string requestState"));
        };
        let bytes = self.security.codec.unseal(token)?;
        let principal = self
            .principal(identity)
            .map_err(|_| InvalidRequestState::new("principal binding error"))?;
        claims::verify(
            bytes,
            &Expect {
                now: (self.security.clock)(),
                binding,
                audience: self.audience.as_deref(),
                principal: principal.as_deref(),
            },
        )
    }

    /// Seals plaintext state for the request that produced it and the caller `identity`.
    pub fn seal(
        &self,
        plaintext: &str,
        binding: &RequestBinding,
        identity: Option<&Identity>,
    ) -> Result<String, SealError> {
        let principal = self.principal(identity).map_err(SealError)?;
        let bytes = claims::encode(
            &Mint {
                now: (self.security.clock)(),
                ttl_secs: self.security.ttl.as_secs_f64(),
                binding,
                audience: self.audience.as_deref(),
                principal: principal.as_deref(),
            },
            plaintext,
        );
        self.security.codec.seal(&bytes).map_err(SealError)
    }

    fn principal(
        &self,
        identity: Option<&Identity>,
    ) -> Result<Option<String>, crate::boxed::BoxError> {
        match &self.security.principal {
            Some(hook) => hook(identity),
            None => Ok(None),
        }
    }
}
