//! Random bytes for nonces and salts, drawn from the operating system's CSPRNG in blocks.
//!
//! Sealing needs 20 random bytes per token (a 12-byte nonce, an 8-byte principal salt). One
//! `getrandom` call per token is a large part of the cost of a seal, so each thread draws a
//! block and hands it out in order; no byte is ever handed out twice.
//!
//! A process that forks must not seal in the child from a block its parent also uses (two
//! equal GCM nonces under one key would be a disaster). Tokio servers do not fork; a program
//! that does calls [`discard_after_fork`] in the child first.

use std::cell::RefCell;

const BLOCK: usize = 1024;

struct Pool {
    bytes: [u8; BLOCK],
    next: usize,
}

thread_local! {
    static POOL: RefCell<Pool> = const {
        RefCell::new(Pool { bytes: [0; BLOCK], next: BLOCK })
    };
}

/// Drops this thread's unused random bytes, so the next seal draws fresh ones from the OS.
/// Call it in a forked child before it seals anything.
pub fn discard_after_fork() {
    POOL.with_borrow_mut(|pool| {
        pool.bytes.fill(0);
        pool.next = BLOCK;
    });
}

/// Fills `out` with fresh random bytes. A machine that cannot produce randomness cannot seal
/// safely, so this is one of the few places that panics rather than degrade.
pub(crate) fn fill_random(out: &mut [u8]) {
    if out.len() > BLOCK / 4 {
        return os_random(out);
    }
    POOL.with_borrow_mut(|pool| {
        if pool.next + out.len() > BLOCK {
            os_random(&mut pool.bytes);
            pool.next = 0;
        }
        out.copy_from_slice(&pool.bytes[pool.next..pool.next + out.len()]);
        // Hand-out bytes are not kept around longer than needed.
        pool.bytes[pool.next..pool.next + out.len()].fill(0);
        pool.next += out.len();
    });
}

fn os_random(out: &mut [u8]) {
    if let Err(e) = getrandom::fill(out) {
        panic!("the operating system's random number generator failed: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_hands_out_the_same_bytes_twice() {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..10_000 {
            let mut nonce = [0u8; 12];
            fill_random(&mut nonce);
            assert!(seen.insert(nonce), "a repeated nonce");
        }
        let mut big = [0u8; 600];
        fill_random(&mut big);
        assert!(big.iter().any(|b| *b != 0));
    }
}
