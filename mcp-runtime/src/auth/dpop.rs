//! DPoP-bound access tokens (RFC 9449) at the resource server: the settings an endpoint takes
//! them with, and the checks of a request that presents one as `Authorization: DPoP <token>`
//! with a proof in its `DPoP` header.
//!
//! A request is checked in the order that spends the least on a bad one: the proof alone
//! ([`proof`]: header, signature, `htm`, `htu`, `iat`, then the server nonce), then the token
//! (the verifier, which may call out), then what ties the two together (`ath`, `cnf.jkt`),
//! and last the replay cache ([`replay`]), so that it only ever holds proofs of valid requests.

mod htu;
mod key;
mod nonce;
mod proof;
mod replay;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::Algorithm;
use sha2::{Digest, Sha256};

pub use nonce::{DpopNonces, NonceSecretTooShort};

use super::metadata::{InvalidResourceUrl, ResourceUrl};
use super::resource_server::{Refusal, Scheme};
use super::{DEFAULT_LEEWAY, Identity};
use proof::{Proof, ProofRules};
use replay::{ReplayCache, ReplayError};

/// How long after its `iat` a proof is accepted, by default (plus the leeway).
pub const DEFAULT_DPOP_PROOF_AGE: Duration = Duration::from_secs(120);

/// How many proofs an endpoint remembers at once, by default, to refuse them a second time:
/// some 5 to 10 MB when full (about 50 bytes a proof, plus the hash table's slack), and room
/// for some 550 DPoP requests a second with the default window. Raise it for a busier
/// endpoint, with [`DpopSettings::replay_capacity`].
pub const DEFAULT_DPOP_REPLAY_CAPACITY: usize = 100_000;

/// The algorithms proofs may be signed with: every asymmetric one the `jsonwebtoken` backend
/// verifies. Never `none` or an HMAC: a proof must show possession of a private key.
const ALGORITHMS: &[(&str, Algorithm)] = &[
    ("ES256", Algorithm::ES256),
    ("ES384", Algorithm::ES384),
    ("EdDSA", Algorithm::EdDSA),
    ("PS256", Algorithm::PS256),
    ("PS384", Algorithm::PS384),
    ("PS512", Algorithm::PS512),
    ("RS256", Algorithm::RS256),
    ("RS384", Algorithm::RS384),
    ("RS512", Algorithm::RS512),
];

/// Which tokens an endpoint that takes DPoP-bound tokens still takes as bearer tokens.
///
/// Whatever the policy, a token bound to a key (its verifier reports an [`Identity::jkt`]) is
/// never accepted as a bearer token (RFC 9449 §7.2): without its proof it is a stolen token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DpopPolicy {
    /// Both: `Authorization: Bearer` with an unbound token, `Authorization: DPoP` with a bound
    /// token and its proof. Challenges offer both schemes.
    Allowed,
    /// DPoP only: a bearer token is treated as no token, and the metadata says
    /// `dpop_bound_access_tokens_required`, so clients ask for bound tokens.
    Required,
}

/// How an endpoint takes DPoP-bound tokens: the [`DpopPolicy`], and the limits of the proof
/// checks. Give it (or just a policy) to
/// [`ResourceServer::dpop`](super::ResourceServer::dpop).
///
/// ```
/// use std::time::Duration;
/// use mcp::auth::{DpopNonces, DpopPolicy, DpopSettings};
///
/// let settings = DpopSettings::new(DpopPolicy::Required)
///     .max_proof_age(Duration::from_secs(60))
///     .replay_capacity(1_000_000)
///     .nonces(DpopNonces::new(Duration::from_secs(300)));
/// # let _ = settings;
/// ```
#[derive(Debug, Clone)]
pub struct DpopSettings {
    policy: DpopPolicy,
    max_age: Duration,
    leeway: Duration,
    replay_capacity: usize,
    nonces: Option<DpopNonces>,
    endpoint: Option<ResourceUrl>,
}

impl DpopSettings {
    /// `policy`, with the default limits: proofs up to [`DEFAULT_DPOP_PROOF_AGE`] old,
    /// [`DEFAULT_LEEWAY`] of clock skew, [`DEFAULT_DPOP_REPLAY_CAPACITY`] proofs remembered,
    /// no server nonces.
    pub fn new(policy: DpopPolicy) -> Self {
        Self {
            policy,
            max_age: DEFAULT_DPOP_PROOF_AGE,
            leeway: DEFAULT_LEEWAY,
            replay_capacity: DEFAULT_DPOP_REPLAY_CAPACITY,
            nonces: None,
            endpoint: None,
        }
    }

    /// How long after its `iat` a proof is accepted. A longer window forgives slow clients
    /// and makes the replay cache hold more proofs.
    pub fn max_proof_age(mut self, age: Duration) -> Self {
        self.max_age = age;
        self
    }

    /// The clock skew tolerated on a proof's `iat`, both ways (default [`DEFAULT_LEEWAY`]).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How many proofs are remembered at once. A proof is held until its window is over; when
    /// that many are held, new proofs are refused with `503` (rather than old ones forgotten,
    /// which would let them be replayed) until the oldest age out.
    pub fn replay_capacity(mut self, capacity: usize) -> Self {
        self.replay_capacity = capacity;
        self
    }

    /// Requires server nonces in proofs (RFC 9449 §9).
    pub fn nonces(mut self, nonces: DpopNonces) -> Self {
        self.nonces = Some(nonces);
        self
    }

    /// The URL clients send their requests to, which proofs name in `htu`, when it is not the
    /// resource URL: a resource identified by its origin alone (`https://mcp.example.com`)
    /// whose endpoint is at `/mcp`. The URL the request reached the server with is never used:
    /// behind a proxy it is not the one the client signed.
    pub fn endpoint_url(mut self, url: &str) -> Result<Self, InvalidResourceUrl> {
        self.endpoint = Some(ResourceUrl::parse(url)?);
        Ok(self)
    }
}

impl From<DpopPolicy> for DpopSettings {
    fn from(policy: DpopPolicy) -> Self {
        Self::new(policy)
    }
}

/// DPoP as one endpoint enforces it. Clones share the replay cache.
#[derive(Debug, Clone)]
pub(crate) struct Dpop {
    policy: DpopPolicy,
    rules: ProofRules,
    replay: Arc<ReplayCache>,
    nonces: Option<DpopNonces>,
}

impl Dpop {
    pub fn new(settings: DpopSettings, resource: &ResourceUrl) -> Self {
        // Thumbprints are computed by the backend's digest.
        super::jwt::install_crypto_provider();
        let endpoint = settings.endpoint.as_ref().unwrap_or(resource);
        // A proof is acceptable from up to `leeway` before it claims to be issued to
        // `max_age + leeway` after: that long after first being seen, it cannot come back.
        let hold = settings
            .max_age
            .saturating_add(settings.leeway.saturating_mul(2));
        Self {
            policy: settings.policy,
            rules: ProofRules {
                algorithms: ALGORITHMS,
                htu: htu::of_url(endpoint),
                max_age: settings.max_age,
                leeway: settings.leeway,
            },
            replay: Arc::new(ReplayCache::new(settings.replay_capacity, hold)),
            nonces: settings.nonces,
        }
    }

    pub fn takes_bearer(&self) -> bool {
        self.policy == DpopPolicy::Allowed
    }

    pub fn requires_bound_tokens(&self) -> bool {
        self.policy == DpopPolicy::Required
    }

    /// The names of the accepted proof algorithms, for the metadata and the challenges.
    pub fn algorithm_names(&self) -> impl Iterator<Item = &'static str> {
        self.rules.algorithms.iter().map(|(name, _)| *name)
    }

    /// Checks the proof of a request with `method`: `proof` is its `DPoP` header, `Ok(None)`
    /// when it has none, `Err` when it is unusable (sent twice, not text).
    pub fn check_proof(
        &self,
        proof: Result<Option<&str>, &'static str>,
        method: &str,
    ) -> Result<Proof, Refusal> {
        let proof = match proof {
            Ok(Some(proof)) => proof,
            Ok(None) => {
                tracing::info!("refused a DPoP token without a proof");
                return Err(Refusal::InvalidProof);
            }
            Err(reason) => {
                tracing::info!(reason, "refused an unusable DPoP header");
                return Err(Refusal::InvalidProof);
            }
        };
        let now = unix_now();
        let proof = self.rules.check(proof, method, now).map_err(|reason| {
            tracing::info!(%reason, "refused a DPoP proof");
            Refusal::InvalidProof
        })?;
        if let Some(nonces) = &self.nonces {
            let whole_seconds = now as u64;
            if !proof
                .nonce
                .as_deref()
                .is_some_and(|nonce| nonces.accepts(nonce, whole_seconds))
            {
                tracing::debug!("asked for a DPoP proof with a fresh server nonce");
                return Err(Refusal::NonceNeeded(nonces.current(whole_seconds)));
            }
        }
        Ok(proof)
    }

    /// Checks that `proof` was made for `token`, whose verifier reported `identity`, by the key
    /// the token is bound to; then that it was not used before.
    pub fn check_binding(
        &self,
        proof: &Proof,
        token: &str,
        identity: &Identity,
    ) -> Result<(), Refusal> {
        let Some(jkt) = &identity.jkt else {
            tracing::info!("refused an unbound token presented with the DPoP scheme");
            return Err(Refusal::Invalid(Scheme::Dpop));
        };
        if proof.ath.as_deref() != Some(token_hash(token).as_str()) {
            tracing::info!("refused a DPoP proof made for another access token (ath)");
            return Err(Refusal::InvalidProof);
        }
        // A key mismatch is the token's fault as much as the proof's: RFC 9449 §7.1 answers it
        // with `invalid_token`, so the client fetches a token bound to its key.
        if *jkt != proof.thumbprint {
            tracing::info!("refused a DPoP proof by another key than the token is bound to");
            return Err(Refusal::Invalid(Scheme::Dpop));
        }
        match self.replay.remember(&proof.thumbprint, &proof.jti) {
            Ok(()) => Ok(()),
            Err(ReplayError::Replayed) => {
                tracing::info!("refused a replayed DPoP proof");
                Err(Refusal::InvalidProof)
            }
            Err(full @ ReplayError::Full(_)) => {
                tracing::warn!(%full, "refused a DPoP proof it could not remember");
                Err(Refusal::Unavailable)
            }
        }
    }

    /// The nonce for the answer to an accepted request, when nonces are required.
    pub fn fresh_nonce(&self) -> Option<String> {
        let nonces = self.nonces.as_ref()?;
        Some(nonces.current(unix_now() as u64))
    }
}

/// The `ath` of a proof made for `token`: base64url(SHA-256(token)) (RFC 9449 §4.2).
pub(crate) fn token_hash(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

fn unix_now() -> f64 {
    // A clock before 1970 is a broken host; every proof is then from the future, and refused.
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |since| since.as_secs_f64())
}
