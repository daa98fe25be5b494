//! [`TokenCache`]: tokens already verified, remembered for a while, so that a client sending
//! the same access token on every request pays for its verification once.
//!
//! An entry is found by the SHA-256 digest of the token, never by the token itself: the
//! cache's memory holds no credential that could be replayed. It holds the [`Identity`] the
//! verifier reported, until the token expires or the cache's max age is over, whichever comes
//! first. Only acceptances are kept: a rejected token is asked about again (it may be one that
//! is not valid *yet*), and so is one the verifier could not decide on (`Unavailable`), which
//! is the verifier's outage, not the token's answer.
//!
//! The cache is bounded: past its capacity the oldest entry goes. A flood of distinct tokens
//! (each of which had to pass the verifier to get in) turns over the cache, so the tokens in
//! it are verified again, as without a cache; it never grows past its bound.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use super::{AuthError, Identity, TokenVerifier};

/// How long a verified token is taken on the verifier's word, by default.
pub const DEFAULT_TOKEN_CACHE_MAX_AGE: Duration = Duration::from_secs(60);

/// How many verified tokens an endpoint remembers at once, by default: some 5 MB when full
/// (about half a kilobyte a token, with the identity's strings and the table's slack).
pub const DEFAULT_TOKEN_CACHE_CAPACITY: usize = 10_000;

/// How an endpoint remembers the tokens it verified: for how long, and how many at once. Give
/// it to [`ResourceServer::token_cache`](super::ResourceServer::token_cache).
///
/// A remembered token is let through without asking the verifier again until the token
/// expires (its [`Identity::expires_at`], to the second, without the verifier's leeway) or
/// `max_age` has passed since it was verified, whichever is first. What the cache skips is
/// the token's verification only: required scopes are checked on every request, and a
/// DPoP-bound token still needs a fresh proof with every request.
///
/// **Revocation**: a verifier that asks the authorization server (token introspection)
/// learns that a token was revoked; behind a cache it learns it up to `max_age` late. That
/// window is the price of the cache, and `max_age` is how it is set. A JWT verifier cannot
/// learn of revocation at all, so for it the cache changes nothing but the cost, which is why
/// [`ResourceServer`](super::ResourceServer) caches for `JwtVerifier` (feature `jwt`) by
/// default (see [`TokenVerifier::cache_by_default`]).
///
/// ```
/// use std::time::Duration;
/// use mcp::auth::{AuthError, Identity, ResourceServer, TokenCache, verify_fn};
///
/// let introspect = verify_fn(|token: String| async move {
///     // Ask the authorization server (RFC 7662)…
///     Err::<Identity, _>(AuthError::invalid(format!("unknown token of {} bytes", token.len())))
/// });
/// // Revoked tokens are refused at most 30 s after the authorization server says so.
/// let auth = ResourceServer::new("https://mcp.example.com/mcp", "https://auth.example.com", introspect)?
///     .token_cache(TokenCache::new().max_age(Duration::from_secs(30)).capacity(50_000));
/// # let _ = auth;
/// # Ok::<(), mcp::auth::InvalidResourceUrl>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenCache {
    max_age: Duration,
    capacity: usize,
}

impl TokenCache {
    /// Tokens kept up to [`DEFAULT_TOKEN_CACHE_MAX_AGE`], at most
    /// [`DEFAULT_TOKEN_CACHE_CAPACITY`] of them.
    pub fn new() -> Self {
        Self {
            max_age: DEFAULT_TOKEN_CACHE_MAX_AGE,
            capacity: DEFAULT_TOKEN_CACHE_CAPACITY,
        }
    }

    /// How long after its verification a token is let through without asking again (it
    /// never outlives the token's own expiry): the revocation window.
    pub fn max_age(mut self, max_age: Duration) -> Self {
        self.max_age = max_age;
        self
    }

    /// How many tokens are remembered at once; past it the oldest is forgotten (and verified
    /// again when it comes back). Zero remembers none.
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity;
        self
    }
}

impl Default for TokenCache {
    fn default() -> Self {
        Self::new()
    }
}

/// The SHA-256 of a token: what an entry is found by.
type TokenDigest = [u8; 32];

/// The tokens one endpoint verified. Clones of a `ResourceServer` share it.
pub(crate) struct VerifiedTokens {
    settings: TokenCache,
    entries: Mutex<Entries>,
}

/// When a lookup or an insertion happens: the monotonic clock for the max age, the wall
/// clock for the token's expiry (which is a wall-clock time).
#[derive(Clone, Copy)]
struct Now {
    at: Instant,
    unix: u64,
}

impl Now {
    fn current() -> Self {
        let unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        Self {
            at: Instant::now(),
            unix,
        }
    }
}

#[derive(Default)]
struct Entries {
    by_digest: HashMap<TokenDigest, Entry>,
    /// Insertion order, oldest first, for eviction. An item whose number is no longer its
    /// digest's entry's (the entry expired, or was replaced) is stale and skipped.
    order: VecDeque<(TokenDigest, u64)>,
    inserted: u64,
}

struct Entry {
    identity: Identity,
    /// The end of the max age.
    until: Instant,
    /// Which insertion made it, to tell its item in `order` from stale ones.
    number: u64,
}

impl Entry {
    /// Still usable at `now`: within the max age, and the token not expired. A token is
    /// expired from the second its `exp` names (RFC 7519 §4.1.4).
    fn usable(&self, now: Now) -> bool {
        now.at < self.until && self.identity.expires_at.is_none_or(|exp| now.unix < exp)
    }
}

impl VerifiedTokens {
    pub fn new(settings: TokenCache) -> Self {
        Self {
            settings,
            entries: Mutex::default(),
        }
    }

    pub fn settings(&self) -> TokenCache {
        self.settings
    }

    /// The identity `verifier` reports for `token`, from the cache while it is usable.
    pub async fn verify(
        &self,
        verifier: &dyn TokenVerifier,
        token: &str,
    ) -> Result<Identity, AuthError> {
        let digest = digest(token);
        if let Some(identity) = self.lookup(&digest, Now::current()) {
            return Ok(identity);
        }
        // Two requests with the same new token may both get here and both verify it; the
        // second insertion replaces the first. Cheaper than making one wait for the other.
        let identity = verifier.verify(token).await?;
        self.remember(digest, &identity, Now::current());
        Ok(identity)
    }

    fn lookup(&self, digest: &TokenDigest, now: Now) -> Option<Identity> {
        let mut entries = self.lock();
        let entry = entries.by_digest.get(digest)?;
        if entry.usable(now) {
            return Some(entry.identity.clone());
        }
        entries.by_digest.remove(digest);
        None
    }

    fn remember(&self, digest: TokenDigest, identity: &Identity, now: Now) {
        let capacity = self.settings.capacity;
        let entry = Entry {
            identity: identity.clone(),
            until: now.at + self.settings.max_age,
            number: 0,
        };
        // A token the verifier accepted past its expiry (within its leeway) is not kept: the
        // verifier decides about it each time.
        if capacity == 0 || !entry.usable(now) {
            return;
        }
        let mut entries = self.lock();
        entries.inserted += 1;
        let number = entries.inserted;
        entries.by_digest.insert(digest, Entry { number, ..entry });
        entries.order.push_back((digest, number));
        entries.evict_beyond(capacity);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // Every step leaves the maps consistent, so a panic elsewhere cannot poison them.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Entries {
    /// Forgets the oldest entries until at most `capacity` are left, and drops stale order
    /// items before they outnumber the entries twice over.
    fn evict_beyond(&mut self, capacity: usize) {
        while self.by_digest.len() > capacity {
            let Some((digest, number)) = self.order.pop_front() else {
                break;
            };
            if self
                .by_digest
                .get(&digest)
                .is_some_and(|e| e.number == number)
            {
                self.by_digest.remove(&digest);
            }
        }
        if self.order.len() > capacity.saturating_mul(2) {
            let by_digest = &self.by_digest;
            self.order.retain(|(digest, number)| {
                by_digest.get(digest).is_some_and(|e| e.number == *number)
            });
        }
    }
}

impl fmt::Debug for VerifiedTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the entries: identities of up to thousands of callers.
        f.debug_struct("VerifiedTokens")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

fn digest(token: &str) -> TokenDigest {
    let mut digest = TokenDigest::default();
    digest.copy_from_slice(&Sha256::digest(token.as_bytes()));
    digest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::verify_fn;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const MAX_AGE: Duration = Duration::from_secs(60);

    fn cache(capacity: usize) -> VerifiedTokens {
        VerifiedTokens::new(TokenCache::new().max_age(MAX_AGE).capacity(capacity))
    }

    fn of(subject: &str, expires_at: Option<u64>) -> Identity {
        Identity {
            subject: Some(subject.into()),
            expires_at,
            ..Identity::default()
        }
    }

    fn at(start: Instant, unix: u64, later: Duration) -> Now {
        Now {
            at: start + later,
            unix: unix + later.as_secs(),
        }
    }

    #[test]
    fn an_entry_ends_with_the_token_or_the_max_age_whichever_is_first() {
        let cache = cache(10);
        let (start, unix) = (Instant::now(), 1_000_000);
        let now = at(start, unix, Duration::ZERO);
        // Expires 10 s from now: gone at the 10th second, not a second later.
        cache.remember(digest("short"), &of("a", Some(unix + 10)), now);
        let short = digest("short");
        assert!(
            cache
                .lookup(&short, at(start, unix, Duration::from_secs(9)))
                .is_some()
        );
        assert!(
            cache
                .lookup(&short, at(start, unix, Duration::from_secs(10)))
                .is_none()
        );
        // Expires in an hour: gone when the max age is over.
        cache.remember(digest("long"), &of("b", Some(unix + 3_600)), now);
        let long = digest("long");
        assert!(
            cache
                .lookup(&long, at(start, unix, MAX_AGE - Duration::from_secs(1)))
                .is_some()
        );
        assert!(cache.lookup(&long, at(start, unix, MAX_AGE)).is_none());
        // No expiry reported: the max age alone.
        cache.remember(digest("open"), &of("c", None), now);
        assert!(
            cache
                .lookup(&digest("open"), at(start, unix, MAX_AGE))
                .is_none()
        );
    }

    #[test]
    fn a_token_accepted_past_its_expiry_is_not_kept() {
        let cache = cache(10);
        let now = Now::current();
        // A verifier's leeway may accept a token a few seconds expired; the cache does not.
        cache.remember(digest("stale"), &of("a", Some(now.unix - 5)), now);
        cache.remember(digest("ends-now"), &of("a", Some(now.unix)), now);
        assert!(cache.lookup(&digest("stale"), now).is_none());
        assert!(cache.lookup(&digest("ends-now"), now).is_none());
        assert!(cache.lock().by_digest.is_empty());
    }

    #[test]
    fn the_bound_holds_and_the_oldest_go_first() {
        let cache = cache(100);
        let now = Now::current();
        for i in 0..1_000 {
            cache.remember(digest(&format!("token-{i}")), &of("a", None), now);
            let entries = cache.lock();
            assert!(entries.by_digest.len() <= 100);
            assert!(entries.order.len() <= 200);
        }
        assert!(cache.lookup(&digest("token-899"), now).is_none());
        assert!(cache.lookup(&digest("token-900"), now).is_some());
        assert!(cache.lookup(&digest("token-999"), now).is_some());
        // One token verified again and again (say, after each max age) does not grow the order.
        for _ in 0..1_000 {
            cache.remember(digest("again"), &of("a", None), now);
        }
        assert!(cache.lock().order.len() <= 200);
        assert!(cache.lookup(&digest("again"), now).is_some());
    }

    #[test]
    fn capacity_zero_remembers_nothing() {
        let cache = cache(0);
        let now = Now::current();
        cache.remember(digest("t"), &of("a", None), now);
        assert!(cache.lookup(&digest("t"), now).is_none());
    }

    /// A verifier that counts its calls and answers by the token.
    fn counting() -> (Arc<AtomicUsize>, impl TokenVerifier) {
        let calls = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&calls);
        let verifier = verify_fn(move |token: String| {
            counter.fetch_add(1, Ordering::SeqCst);
            async move {
                match token.as_str() {
                    "outage" => Err(AuthError::unavailable("the key server is down")),
                    "forged" => Err(AuthError::invalid("bad signature")),
                    subject => Ok(of(subject, None)),
                }
            }
        });
        (calls, verifier)
    }

    #[tokio::test]
    async fn a_verified_token_is_not_verified_again() {
        let (calls, verifier) = counting();
        let cache = cache(10);
        for _ in 0..3 {
            let identity = cache.verify(&verifier, "alice").await.expect("valid");
            assert_eq!(identity.subject.as_deref(), Some("alice"));
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn distinct_tokens_have_their_own_entries() {
        let (calls, verifier) = counting();
        let cache = cache(10);
        for _ in 0..2 {
            for token in ["alice", "bob"] {
                let identity = cache.verify(&verifier, token).await.expect("valid");
                assert_eq!(identity.subject.as_deref(), Some(token));
            }
        }
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        // A token that differs in one byte is another token.
        let identity = cache.verify(&verifier, "alicf").await.expect("valid");
        assert_eq!(identity.subject.as_deref(), Some("alicf"));
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn refusals_and_outages_are_not_kept() {
        let (calls, verifier) = counting();
        let cache = cache(10);
        for _ in 0..2 {
            assert!(matches!(
                cache.verify(&verifier, "outage").await,
                Err(AuthError::Unavailable(_))
            ));
            assert!(matches!(
                cache.verify(&verifier, "forged").await,
                Err(AuthError::Invalid(_))
            ));
        }
        assert_eq!(calls.load(Ordering::SeqCst), 4);
        assert!(cache.lock().by_digest.is_empty());
    }
}
