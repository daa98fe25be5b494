//! The JWTs the client signs (DPoP proofs, client assertions): `jsonwebtoken` assembles and
//! signs them; this module adds the unique `jti` and the clock they carry.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{EncodingKey, Header};
use serde::Serialize;

use super::AuthError;

/// `claims` signed with `key` under `header`.
pub(crate) fn sign(
    header: &Header,
    claims: &impl Serialize,
    key: &EncodingKey,
) -> Result<String, AuthError> {
    crate::auth::install_crypto_provider();
    jsonwebtoken::encode(header, claims, key).map_err(|e| AuthError::Signing {
        reason: e.to_string(),
    })
}

/// A `jti`: 128 random bits, so a server that remembers the ones it saw never sees one twice.
pub(crate) fn unique_id() -> String {
    let mut bytes = [0u8; 16];
    crate::state::fill_random(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Seconds since the Unix epoch, for `iat` and `exp`.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
