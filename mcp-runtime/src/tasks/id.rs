//! Task ids: 192 random bits from the operating system, as 32 base64url characters. A task id
//! is the only thing a client needs to read a task (its owner must match too), so it must be
//! beyond guessing or enumeration.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::state::fill_random;

/// Random bytes in an id: 192 bits, well past the 128 that make guessing hopeless.
const RANDOM_BYTES: usize = 24;

/// The length of every task id: 24 bytes in base64url, no padding.
pub const TASK_ID_LEN: usize = 32;

/// A new, unguessable task id.
pub(crate) fn new_task_id() -> String {
    let mut bytes = [0u8; RANDOM_BYTES];
    fill_random(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Whether `id` could have come from [`new_task_id`]. Stores answer "not found" for anything
/// else without looking, so a client's oversized or odd id never reaches a lookup or a key
/// name.
pub(crate) fn is_task_id(id: &str) -> bool {
    id.len() == TASK_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_well_formed_and_distinct() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| new_task_id()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids.iter().all(|id| is_task_id(id)), "{ids:?}");
    }

    #[test]
    fn what_no_store_made_is_not_an_id() {
        let good = new_task_id();
        for bad in [
            "",
            &good[1..],
            &format!("{good}A"),
            "abcdefghijklmnopqrstuvwxyz01234=",
            "abcdefghijklmnopqrstuvwxyz0123/4",
            "abcdefghijklmnopqrstuvwxyz01234 ",
            "abcdefghijklmnopqrstuvwxyz0123é",
        ] {
            assert!(!is_task_id(bad), "{bad:?}");
        }
        assert!(is_task_id("abcdefghijklmnopqrstuvwxyz012-_Z"));
    }
}
