//! Server-provided nonces (RFC 9449 §9): the endpoint hands out a nonce in `DPoP-Nonce`, and a
//! proof must carry a recent one, so a proof cannot be made ahead of time, even by a client
//! whose clock is wrong.
//!
//! A nonce is its time slot and a MAC of it, so nothing is stored: any instance that holds the
//! key accepts the nonces of the others.

use std::fmt;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::state::{MIN_SECRET_LEN, fill_random};

/// What the nonce key is derived for, so a secret shared with another use (sealing
/// `requestState`) yields an unrelated key here.
const KEY_INFO: &[u8] = b"mcp dpop nonce key v1";

/// Bytes of MAC in a nonce: 128 bits, far beyond guessing.
const TAG_LEN: usize = 16;

/// The time slot (8 bytes, big-endian) and the MAC of it.
const NONCE_LEN: usize = 8 + TAG_LEN;

/// Server nonces for DPoP proofs (RFC 9449 §9); give them to
/// [`DpopSettings::nonces`](super::DpopSettings::nonces).
///
/// Every proof must then carry, as its `nonce` claim, one of the nonces the endpoint handed
/// out. A proof without one (or with a stale one) gets `401` with
/// `WWW-Authenticate: DPoP error="use_dpop_nonce"` and a fresh nonce in the `DPoP-Nonce`
/// header; every answer to an accepted DPoP request carries the current nonce as well, so a
/// client that keeps the last one it saw is rarely asked again.
///
/// Time is cut into slots of `lifetime`; a nonce names its slot and is accepted in that slot
/// and the next, so for at least `lifetime` after it is handed out and at most twice that.
///
/// ```
/// use std::time::Duration;
/// use mcp::auth::DpopNonces;
///
/// // One instance: a random key of its own.
/// let single = DpopNonces::new(Duration::from_secs(300));
/// // A fleet: every instance accepts every instance's nonces.
/// let fleet = DpopNonces::shared(b"the-same-secret-on-every-instance-of-the-fleet", Duration::from_secs(300))?;
/// # let _ = (single, fleet);
/// # Ok::<(), mcp::auth::NonceSecretTooShort>(())
/// ```
#[derive(Clone)]
pub struct DpopNonces {
    mac: Hmac<Sha256>,
    /// Seconds per slot, at least one.
    slot: u64,
}

/// A secret for [`DpopNonces::shared`] shorter than [`MIN_SECRET_LEN`] bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a DPoP nonce secret needs at least {MIN_SECRET_LEN} bytes, this one has {0}")]
pub struct NonceSecretTooShort(usize);

impl DpopNonces {
    /// Nonces under a random key of this process, each valid for `lifetime` to twice that. Only
    /// this instance (and clones of the resource server it is given to) accepts them: for a
    /// fleet behind a load balancer, use [`shared`](Self::shared).
    pub fn new(lifetime: Duration) -> Self {
        let mut key = [0u8; 64];
        fill_random(&mut key);
        Self::with_key(key, lifetime)
    }

    /// Nonces under a key derived from `secret` (at least [`MIN_SECRET_LEN`] bytes): every
    /// instance configured with the same secret accepts the others' nonces.
    pub fn shared(
        secret: impl AsRef<[u8]>,
        lifetime: Duration,
    ) -> Result<Self, NonceSecretTooShort> {
        let secret = secret.as_ref();
        if secret.len() < MIN_SECRET_LEN {
            return Err(NonceSecretTooShort(secret.len()));
        }
        let mut key = [0u8; 64];
        // 64 bytes is far below HKDF-SHA256's 255 × 32 output limit.
        let _ = Hkdf::<Sha256>::new(None, secret).expand(KEY_INFO, &mut key);
        Ok(Self::with_key(key, lifetime))
    }

    /// A key of HMAC-SHA256's block size, so keying cannot fail.
    fn with_key(key: [u8; 64], lifetime: Duration) -> Self {
        Self {
            mac: Hmac::new(&key.into()),
            slot: lifetime.as_secs().max(1),
        }
    }

    /// The nonce to hand out at `now` (Unix seconds).
    pub(crate) fn current(&self, now: u64) -> String {
        let slot = now / self.slot;
        let mut nonce = [0u8; NONCE_LEN];
        nonce[..8].copy_from_slice(&slot.to_be_bytes());
        nonce[8..].copy_from_slice(&self.tag(slot));
        URL_SAFE_NO_PAD.encode(nonce)
    }

    /// Whether `nonce` was handed out in the current slot or the one before.
    pub(crate) fn accepts(&self, nonce: &str, now: u64) -> bool {
        let Ok(raw) = URL_SAFE_NO_PAD.decode(nonce) else {
            return false;
        };
        let Ok(raw) = <[u8; NONCE_LEN]>::try_from(raw) else {
            return false;
        };
        let Some((slot, tag)) = raw.split_first_chunk::<8>() else {
            return false;
        };
        let slot = u64::from_be_bytes(*slot);
        let current = now / self.slot;
        (slot == current || slot.checked_add(1) == Some(current))
            && bool::from(self.tag(slot).ct_eq(tag))
    }

    fn tag(&self, slot: u64) -> [u8; TAG_LEN] {
        let digest = self
            .mac
            .clone()
            .chain_update(slot.to_be_bytes())
            .finalize()
            .into_bytes();
        let mut tag = [0u8; TAG_LEN];
        tag.copy_from_slice(&digest[..TAG_LEN]);
        tag
    }
}

impl fmt::Debug for DpopNonces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the key.
        f.debug_struct("DpopNonces")
            .field("lifetime", &Duration::from_secs(self.slot))
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIFETIME: Duration = Duration::from_secs(60);

    #[test]
    fn a_nonce_is_accepted_in_its_slot_and_the_next() {
        let nonces = DpopNonces::new(LIFETIME);
        let at = 1_000_020;
        let nonce = nonces.current(at);
        assert!(nonces.accepts(&nonce, at));
        assert!(nonces.accepts(&nonce, at + 60));
        assert!(!nonces.accepts(&nonce, at + 120));
        assert!(!nonces.accepts(&nonce, at - 60), "a nonce from the future");
    }

    #[test]
    fn only_the_keys_holders_make_nonces() {
        let at = 1_000_020;
        let a = DpopNonces::shared([7u8; 32], LIFETIME).expect("long enough");
        let b = DpopNonces::shared([7u8; 32], LIFETIME).expect("long enough");
        assert!(b.accepts(&a.current(at), at), "a fleet shares its nonces");
        let other = DpopNonces::new(LIFETIME);
        assert!(!other.accepts(&a.current(at), at));
        let mut forged = URL_SAFE_NO_PAD.decode(a.current(at)).expect("base64");
        forged[NONCE_LEN - 1] ^= 1;
        assert!(!a.accepts(&URL_SAFE_NO_PAD.encode(forged), at));
        for garbage in ["", "not base64!", "AAAA"] {
            assert!(!a.accepts(garbage, at), "{garbage:?}");
        }
        assert_eq!(
            DpopNonces::shared(b"short", LIFETIME).err(),
            Some(NonceSecretTooShort(5))
        );
    }
}
