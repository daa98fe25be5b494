//! How long to wait before the next attempt to reach what went away (Redis, for the
//! notification bus and the task store; a proxied server): doubling from [`FIRST`] up to
//! [`CAP`], each wait drawn at random from its upper half so that a fleet that lost it
//! together does not come back in lock step.

use std::time::Duration;

/// The ceiling of the first wait.
pub(crate) const FIRST: Duration = Duration::from_millis(100);
/// The ceiling no wait exceeds, however long it stays away.
pub(crate) const CAP: Duration = Duration::from_secs(5);

#[derive(Debug, Default)]
pub(crate) struct Backoff {
    failures: u32,
}

impl Backoff {
    /// The wait after one more failed attempt.
    pub fn next(&mut self) -> Duration {
        let ceiling = ceiling(self.failures);
        self.failures = self.failures.saturating_add(1);
        // Without randomness every wait is the ceiling: slower to spread, still correct.
        jittered(ceiling, getrandom::u64().unwrap_or(u64::MAX))
    }

    /// It answered: the next outage starts from the shortest wait.
    pub fn reset(&mut self) {
        self.failures = 0;
    }
}

fn ceiling(failures: u32) -> Duration {
    // 2^6 × 100 ms is past the cap already; a bound on the shift keeps it from overflowing.
    FIRST.saturating_mul(1 << failures.min(6)).min(CAP)
}

/// A wait in `[ceiling / 2, ceiling]`, placed by `random`.
fn jittered(ceiling: Duration, random: u64) -> Duration {
    let half = ceiling / 2;
    let spread = (ceiling - half).as_micros() as u64;
    half + Duration::from_micros(random % (spread + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceilings_double_up_to_the_cap() {
        let ceilings: Vec<_> = (0..10).map(ceiling).collect();
        assert_eq!(ceilings[0], FIRST);
        assert_eq!(ceilings[1], FIRST * 2);
        assert_eq!(ceilings[3], FIRST * 8);
        assert!(ceilings.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(ceilings[9], CAP);
        assert_eq!(ceiling(u32::MAX), CAP);
    }

    #[test]
    fn waits_stay_in_the_upper_half_of_their_ceiling() {
        let ceiling = Duration::from_millis(800);
        for random in [0, 1, 399_999, 400_000, 400_001, u64::MAX] {
            let wait = jittered(ceiling, random);
            assert!(wait >= ceiling / 2 && wait <= ceiling, "{wait:?}");
        }
        assert_eq!(jittered(ceiling, 0), ceiling / 2);
        assert_eq!(jittered(ceiling, 400_000), ceiling);
    }

    #[test]
    fn a_reset_starts_over() {
        let mut backoff = Backoff::default();
        for _ in 0..20 {
            assert!(backoff.next() <= CAP);
        }
        assert!(backoff.next() >= CAP / 2);
        backoff.reset();
        assert!(backoff.next() <= FIRST);
    }
}
