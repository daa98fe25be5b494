//! Where sealed state meets the request path: inbound tokens are opened before a handler runs,
//! outbound plaintext is sealed after it returns.

use serde_json::Value;

use crate::auth::Identity;

use super::claims::{self, Expect, Mint, RequestBinding};
use super::error::{ConfigError, InvalidRequestState, SealError};
use super::security::RequestStateSecurity;

/// A [`RequestStateSecurity`] resolved for one server (its audience fixed).
#[derive(Debug, Clone)]
pub(crate) struct StateBoundary {
    security: RequestStateSecurity,
    audience: Option<String>,
}

impl StateBoundary {
    /// Resolves the audience: the policy's own, else the server's name. Explicit keys on a
    /// nameless server without an audience are refused, since any other nameless server with
    /// the same keys would accept its tokens.
    pub(crate) fn new(
        security: RequestStateSecurity,
        server_name: &str,
    ) -> Result<Self, ConfigError> {
        let audience = match (&security.audience, server_name.trim().is_empty()) {
            (Some(audience), _) => Some(audience.clone()),
            (None, false) => Some(server_name.to_owned()),
            (None, true) if security.explicit => return Err(ConfigError::NoAudience),
            (None, true) => None,
        };
        Ok(Self { security, audience })
    }

    /// Opens an inbound `requestState` (already known to be present and not `null`) for the
    /// request it arrived on; returns the handler's plaintext.
    pub(crate) fn open(
        &self,
        token: &Value,
        binding: Option<&RequestBinding>,
        identity: Option<&Identity>,
    ) -> Result<String, InvalidRequestState> {
        let Value::String(token) = token else {
            return Err(InvalidRequestState::new("non-string requestState"));
        };
        let bytes = self.security.codec.unseal(token)?;
        let binding = binding.ok_or_else(|| InvalidRequestState::new("request binding"))?;
        let principal = self
            .principal(identity)
            .map_err(|_| InvalidRequestState::new("principal binding error"))?;
        claims::verify(
            &bytes,
            &Expect {
                now: (self.security.clock)(),
                binding,
                audience: self.audience.as_deref(),
                principal: principal.as_deref(),
            },
        )
    }

    /// Seals a handler's plaintext state for the request that produced it.
    pub(crate) fn seal(
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

    fn principal(&self, identity: Option<&Identity>) -> Result<Option<String>, super::BoxError> {
        match &self.security.principal {
            Some(hook) => hook(identity),
            None => Ok(None),
        }
    }
}
