//! The policy an operator configures: keys or codec, ttl, audience, principal binding.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::identity::Identity;

use super::codec::{AesGcmCodec, Codec};
use super::error::{ConfigError, KeyError};
use crate::boxed::BoxError;
use crate::protocol::canonical::write_str;

/// How long a sealed `requestState` stays valid by default: ten minutes per round.
pub const DEFAULT_TTL: Duration = Duration::from_secs(600);

/// Derives the principal a token is bound to from the caller's verified identity.
pub(crate) type PrincipalHook =
    Arc<dyn Fn(Option<&Identity>) -> Result<Option<String>, BoxError> + Send + Sync>;

/// The clock tokens are stamped and checked with, in Unix seconds.
pub(crate) type Clock = Arc<dyn Fn() -> f64 + Send + Sync>;

/// How a server protects the `requestState` it hands to clients.
///
/// Every token the server mints is sealed (encrypted and authenticated) and carries claims: when
/// it expires, the request it belongs to (method, tool/prompt name or resource URI, a digest of
/// the arguments), the server (audience) and the caller (principal). Any token that fails a check
/// is answered with one fixed error, whatever the cause.
///
/// - [`RequestStateSecurity::ephemeral`] (the default): a random key per process. Right for one
///   process; a round that reaches another instance, or the same one after a restart, fails.
/// - [`RequestStateSecurity::keys`]: shared secrets, so any instance can finish a round another
///   started. The first key seals, all keys verify; rotate with `[old, new]` → `[new, old]` →
///   `[new]`.
/// - [`RequestStateSecurity::codec`]: your own envelope (a KMS, an HSM); the claims stay.
///
/// ```
/// use std::time::Duration;
/// use mcp::state::RequestStateSecurity;
///
/// let security = RequestStateSecurity::keys([
///     "a-secret-of-at-least-thirty-two-bytes-0001",
///     "the-previous-secret-still-verifying-0000",
/// ])?
/// .ttl(Duration::from_secs(300))
/// .audience("billing");
/// # let _ = security;
/// # Ok::<(), mcp::state::KeyError>(())
/// ```
#[derive(Clone)]
pub struct RequestStateSecurity {
    pub(crate) codec: Arc<dyn Codec>,
    pub(crate) ttl: Duration,
    pub(crate) audience: Option<String>,
    pub(crate) principal: Option<PrincipalHook>,
    pub(crate) explicit: bool,
    pub(crate) clock: Clock,
}

impl RequestStateSecurity {
    /// A random key generated for this process only. Servers never accept each other's tokens,
    /// nor their own after a restart.
    pub fn ephemeral() -> Self {
        let mut security = Self::codec(AesGcmCodec::ephemeral());
        security.explicit = false;
        security
    }

    /// The built-in AES-256-GCM codec over shared secrets (each ≥ 32 bytes); the first seals.
    pub fn keys<I, K>(secrets: I) -> Result<Self, KeyError>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        Ok(Self::codec(AesGcmCodec::new(secrets)?))
    }

    /// Keys from an environment variable holding comma-separated secrets (surrounding
    /// whitespace ignored), for deployments: `MCP_REQUEST_STATE_KEYS="$NEW,$OLD"`.
    pub fn from_env(var: &str) -> Result<Self, ConfigError> {
        let value = std::env::var(var).map_err(|_| ConfigError::MissingEnv(var.to_owned()))?;
        Ok(Self::keys(value.split(',').map(str::trim))?)
    }

    /// A custom codec; the runtime still adds and checks every claim.
    pub fn codec(codec: impl Codec) -> Self {
        Self {
            codec: Arc::new(codec),
            ttl: DEFAULT_TTL,
            audience: None,
            principal: Some(Arc::new(|identity| Ok(default_principal(identity)))),
            explicit: true,
            clock: Arc::new(unix_now),
        }
    }

    /// How long a token is valid after it is minted (default 600 s). Every round mints a fresh
    /// token, so this bounds one round, not the whole exchange. Zero is refused when the server
    /// is built.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The audience claim (default: the server's name). Servers that share keys but must not
    /// accept each other's tokens need different audiences.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Binds tokens to a principal of your choosing instead of the default (the verified
    /// caller's client id, issuer and subject). Returning `Ok(None)` binds to nobody; an error
    /// fails sealing with a bare `-32603` and opening with the fixed rejection.
    ///
    /// ```
    /// use mcp::state::RequestStateSecurity;
    ///
    /// let security = RequestStateSecurity::ephemeral()
    ///     .bind_principal(|identity| Ok(identity.and_then(|i| i.subject.clone())));
    /// # let _ = security;
    /// ```
    pub fn bind_principal<F>(mut self, hook: F) -> Self
    where
        F: Fn(Option<&Identity>) -> Result<Option<String>, BoxError> + Send + Sync + 'static,
    {
        self.principal = Some(Arc::new(hook));
        self
    }

    /// Tokens are not bound to any principal.
    pub fn without_principal(mut self) -> Self {
        self.principal = None;
        self
    }

    /// Whether this is the per-process default.
    pub fn is_ephemeral(&self) -> bool {
        !self.explicit
    }

    /// Replaces the wall clock (Unix seconds); for tests of expiry and clock skew.
    #[doc(hidden)]
    pub fn with_clock(mut self, clock: impl Fn() -> f64 + Send + Sync + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }
}

impl Default for RequestStateSecurity {
    fn default() -> Self {
        Self::ephemeral()
    }
}

impl fmt::Debug for RequestStateSecurity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestStateSecurity")
            .field("ttl", &self.ttl)
            .field("audience", &self.audience)
            .field("binds_principal", &self.principal.is_some())
            .field("ephemeral", &!self.explicit)
            .finish_non_exhaustive()
    }
}

/// The principal bound by default: the compact JSON `[client_id, issuer, subject]` of a verified
/// caller (absent parts are `null`), or none for an unauthenticated one. Two users of one OAuth
/// client differ by subject.
///
/// ```
/// use mcp::auth::Identity;
/// use mcp::state::default_principal;
///
/// let alice = Identity { client_id: Some("app".into()), subject: Some("alice".into()), ..Default::default() };
/// assert_eq!(default_principal(Some(&alice)).as_deref(), Some(r#"["app",null,"alice"]"#));
/// assert_eq!(default_principal(None), None);
/// ```
pub fn default_principal(identity: Option<&Identity>) -> Option<String> {
    let identity = identity?;
    let parts = [&identity.client_id, &identity.issuer, &identity.subject];
    let mut out = String::with_capacity(
        8 + parts
            .iter()
            .map(|p| p.as_ref().map_or(4, String::len))
            .sum::<usize>(),
    );
    out.push('[');
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match part {
            Some(text) => write_str(&mut out, text),
            None => out.push_str("null"),
        }
    }
    out.push(']');
    Some(out)
}

fn unix_now() -> f64 {
    // A clock before 1970 is a broken host; treating it as the epoch makes every token expired.
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    since.as_millis() as f64 / 1000.0
}
