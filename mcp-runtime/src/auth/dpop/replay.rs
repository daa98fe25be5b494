//! The proofs already used (RFC 9449 §11.1): each proof's `jti`, under the key that signed it,
//! held for as long as the proof could still be accepted, so a captured request cannot be sent
//! again.
//!
//! The cache is bounded. When it is full of proofs still in their window, a new proof is
//! refused rather than an old one forgotten: forgetting would let that old proof be replayed,
//! while refusing costs honest clients a retry (`503`) until proofs age out. Only proofs that
//! passed every other check (signature, `htu`, token binding) are remembered, so only holders
//! of valid bound tokens can fill it.
//!
//! One cache serves one process. Instances of a fleet each keep their own, so a proof replayed
//! to another instance within its window is not detected there: a short proof age, or a client
//! kept on one instance, narrows that.

use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// A proof's identity: the first 128 bits of SHA-256 over its key's thumbprint and its `jti`.
/// Fixed-size whatever a client puts in `jti`, and one client cannot use up another's `jti`s.
type ProofId = [u8; 16];

/// Why a proof cannot be taken as fresh.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ReplayError {
    #[error("the proof was used before")]
    Replayed,
    #[error("the replay cache is full ({0} proofs in their window)")]
    Full(usize),
}

pub(crate) struct ReplayCache {
    seen: Mutex<Seen>,
    capacity: usize,
    /// How long a proof stays acceptable after it was first seen.
    hold: Duration,
}

#[derive(Default)]
struct Seen {
    ids: HashSet<ProofId>,
    /// Oldest first: every entry is held for the same time, so they also expire in this order.
    by_age: VecDeque<(Instant, ProofId)>,
}

impl ReplayCache {
    /// Holds up to `capacity` proofs, each for `hold`.
    pub fn new(capacity: usize, hold: Duration) -> Self {
        Self {
            seen: Mutex::default(),
            capacity,
            hold,
        }
    }

    /// Remembers the proof `jti` of the key with `thumbprint`, unless it was seen before or
    /// there is no room.
    pub fn remember(&self, thumbprint: &str, jti: &str) -> Result<(), ReplayError> {
        self.remember_at(thumbprint, jti, Instant::now())
    }

    fn remember_at(&self, thumbprint: &str, jti: &str, now: Instant) -> Result<(), ReplayError> {
        let id = proof_id(thumbprint, jti);
        // Every step below leaves the cache consistent, so a panic elsewhere cannot poison it.
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        while let Some(&(at, old)) = seen.by_age.front() {
            if now.saturating_duration_since(at) < self.hold {
                break;
            }
            seen.by_age.pop_front();
            seen.ids.remove(&old);
        }
        if seen.ids.contains(&id) {
            return Err(ReplayError::Replayed);
        }
        if seen.ids.len() >= self.capacity {
            return Err(ReplayError::Full(self.capacity));
        }
        seen.ids.insert(id);
        seen.by_age.push_back((now, id));
        Ok(())
    }
}

impl fmt::Debug for ReplayCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the proofs: there may be a hundred thousand of them.
        f.debug_struct("ReplayCache")
            .field("capacity", &self.capacity)
            .field("hold", &self.hold)
            .finish_non_exhaustive()
    }
}

fn proof_id(thumbprint: &str, jti: &str) -> ProofId {
    let digest = Sha256::new()
        .chain_update(thumbprint)
        // A thumbprint is base64url, so no NUL: the separator keeps the two parts apart.
        .chain_update([0])
        .chain_update(jti)
        .finalize();
    let mut id = ProofId::default();
    id.copy_from_slice(&digest[..16]);
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOLD: Duration = Duration::from_secs(60);

    #[test]
    fn a_proof_is_refused_the_second_time_until_its_window_is_over() {
        let cache = ReplayCache::new(10, HOLD);
        let start = Instant::now();
        assert_eq!(cache.remember_at("key", "1", start), Ok(()));
        assert_eq!(
            cache.remember_at("key", "1", start + HOLD / 2),
            Err(ReplayError::Replayed)
        );
        // Another key's proof with the same jti is another proof.
        assert_eq!(cache.remember_at("other", "1", start), Ok(()));
        assert_eq!(cache.remember_at("key", "1", start + HOLD), Ok(()));
    }

    #[test]
    fn a_full_cache_refuses_new_proofs_rather_than_forget_live_ones() {
        let cache = ReplayCache::new(2, HOLD);
        let start = Instant::now();
        assert_eq!(cache.remember_at("key", "1", start), Ok(()));
        assert_eq!(cache.remember_at("key", "2", start), Ok(()));
        assert_eq!(
            cache.remember_at("key", "3", start),
            Err(ReplayError::Full(2))
        );
        // The first two are still remembered.
        assert_eq!(
            cache.remember_at("key", "1", start),
            Err(ReplayError::Replayed)
        );
        // Once they age out there is room again.
        assert_eq!(cache.remember_at("key", "3", start + HOLD), Ok(()));
    }
}
