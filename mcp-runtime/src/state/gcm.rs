//! AES-256-GCM (NIST SP 800-38D with a 96-bit nonce and a 128-bit tag) over the `aes` block
//! cipher and the `ghash` universal hash, the same two primitives the `aes-gcm` crate composes.
//!
//! Why not `aes-gcm` itself: on a CPU with AVX-512 VAES, `aes` 0.9 encrypts 64 blocks at a time
//! and any shorter run one block at a time, re-broadcasting the key schedule on every call, and
//! `aes-gcm` hands it exactly the message. A token is about 30 blocks, so every block paid the
//! full serial latency of fourteen AES rounds: the cipher was two thirds of a seal + open.
//! Here the counter blocks are laid out in a buffer sized for the backend's batch and encrypted
//! in one call. Nothing else differs, and the tests hold the output to `aes-gcm`'s byte for byte.

use aes::Aes256;
use aes::cipher::{BlockCipherEncrypt, KeyInit};
use ghash::GHash;
use ghash::universal_hash::UniversalHash;
use subtle::ConstantTimeEq;

const BLOCK: usize = 16;
/// The most counter blocks encrypted per call; `aes`'s widest batch (VAES-512).
const MAX_BATCH: usize = 64;
/// SP 800-38D's bound, 2^32 - 2 blocks: the 32-bit block counter can never wrap.
const MAX_MESSAGE: u64 = (1 << 36) - 32;

/// The message is longer than GCM allows.
#[derive(Debug)]
pub(crate) struct TooLong;

pub(crate) struct Aes256Gcm {
    cipher: Aes256,
    ghash: GHash,
    batch: usize,
}

impl Aes256Gcm {
    pub(crate) fn new(key: &[u8; 32]) -> Self {
        let cipher = Aes256::new(&(*key).into());
        let mut h = aes::Block::default();
        cipher.encrypt_block(&mut h);
        Self {
            cipher,
            ghash: GHash::new(&h),
            batch: batch_blocks(),
        }
    }

    /// Encrypts `buffer` in place and returns the tag.
    pub(crate) fn encrypt(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        buffer: &mut [u8],
    ) -> Result<[u8; BLOCK], TooLong> {
        if buffer.len() as u64 > MAX_MESSAGE {
            return Err(TooLong);
        }
        let mut mask = [0u8; BLOCK];
        self.counter_mode(nonce, buffer, |_, j0| {
            mask = *j0;
            true
        });
        Ok(self.tag(&mask, aad, buffer))
    }

    /// Checks the tag of `buffer` (the ciphertext) and only then decrypts it in place.
    /// On `false` the buffer is left as it was.
    #[must_use]
    pub(crate) fn decrypt(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &[u8; BLOCK],
    ) -> bool {
        if buffer.len() as u64 > MAX_MESSAGE {
            return false;
        }
        self.counter_mode(nonce, buffer, |ciphertext, j0| {
            bool::from(self.tag(j0, aad, ciphertext).ct_eq(tag))
        })
    }

    /// Applies the keystream (counter blocks 2, 3, … under the nonce) to `buffer`. `gate` first
    /// sees the untouched buffer and E(J0) (counter block 1, the tag mask); when it says no,
    /// the buffer is left alone.
    fn counter_mode(
        &self,
        nonce: &[u8; 12],
        buffer: &mut [u8],
        gate: impl FnOnce(&[u8], &[u8; BLOCK]) -> bool,
    ) -> bool {
        let mut blocks = [aes::Block::default(); MAX_BATCH];
        let mut counter: u32 = 1;
        let ready = self.keystream(&mut blocks, nonce, &mut counter, 1 + buffer.len().div_ceil(BLOCK));
        let j0: [u8; BLOCK] = blocks[0].into();
        if !gate(buffer, &j0) {
            return false;
        }
        let mut chunks = buffer.chunks_mut(BLOCK);
        let mut slots = 1..ready;
        loop {
            // Keystream first: `zip` pulls from its left side before its right.
            for (keystream, chunk) in blocks[slots].iter().zip(chunks.by_ref()) {
                for (byte, key) in chunk.iter_mut().zip(keystream.iter()) {
                    *byte ^= key;
                }
            }
            if chunks.len() == 0 {
                return true;
            }
            slots = 0..self.keystream(&mut blocks, nonce, &mut counter, chunks.len());
        }
    }

    /// Encrypts the next `wanted` counter blocks (at most a buffer's worth) into `blocks` and
    /// returns how many it made. The run is padded to whole backend batches: a partial batch
    /// would take the one-block-at-a-time path this module exists to avoid. Padding blocks are
    /// discarded and their counters never advance `counter`, so no keystream is used twice.
    fn keystream(
        &self,
        blocks: &mut [aes::Block; MAX_BATCH],
        nonce: &[u8; 12],
        counter: &mut u32,
        wanted: usize,
    ) -> usize {
        let most = MAX_BATCH / self.batch * self.batch;
        let take = wanted.next_multiple_of(self.batch).min(most);
        for (i, block) in blocks[..take].iter_mut().enumerate() {
            block[..12].copy_from_slice(nonce);
            // The message bound keeps every used counter below 2^32.
            block[12..].copy_from_slice(&counter.wrapping_add(i as u32).to_be_bytes());
        }
        self.cipher.encrypt_blocks(&mut blocks[..take]);
        let made = take.min(wanted);
        *counter = counter.wrapping_add(made as u32);
        made
    }

    fn tag(&self, mask: &[u8; BLOCK], aad: &[u8], ciphertext: &[u8]) -> [u8; BLOCK] {
        let mut ghash = self.ghash.clone();
        ghash.update_padded(aad);
        ghash.update_padded(ciphertext);
        let mut lengths = ghash::Block::default();
        lengths[..8].copy_from_slice(&(aad.len() as u64 * 8).to_be_bytes());
        lengths[8..].copy_from_slice(&(ciphertext.len() as u64 * 8).to_be_bytes());
        ghash.update(&[lengths]);
        let mut tag = [0u8; BLOCK];
        for ((out, hash), mask) in tag.iter_mut().zip(ghash.finalize().iter()).zip(mask) {
            *out = hash ^ mask;
        }
        tag
    }
}

/// How many blocks `aes` encrypts per call on this CPU (its backends' `ParBlocksSize`). Only
/// speed depends on it: a wrong guess costs some wasted or serial blocks, never other bytes.
fn batch_blocks() -> usize {
    #[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
    {
        cpufeatures::new!(vaes512, "avx512f", "vaes");
        cpufeatures::new!(vaes256, "vaes");
        if vaes512::get() {
            return 64;
        }
        if vaes256::get() {
            return 30;
        }
    }
    8
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes_gcm::aead::AeadInOut;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// A deterministic byte stream, so a failure reproduces.
    fn bytes(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn the_gcm_spec_vectors_for_aes_256() {
        // McGrew and Viega, "The Galois/Counter Mode of Operation", test cases 13 and 14.
        let gcm = Aes256Gcm::new(&[0; 32]);
        let mut empty = [];
        let tag = gcm.encrypt(&[0; 12], &[], &mut empty).expect("short");
        assert_eq!(hex(&tag), "530f8afbc74536b9a963b4f1c4cb738b");
        let mut block = [0u8; 16];
        let tag = gcm.encrypt(&[0; 12], &[], &mut block).expect("short");
        assert_eq!(hex(&block), "cea7403d4d606b6e074ec5d3baf39d18");
        assert_eq!(hex(&tag), "d0d1c8a799996bf0265b98b5d48ab919");
    }

    #[test]
    fn same_bytes_as_aes_gcm_across_batch_boundaries() {
        // Every length up to five 64-block batches plus a few, so each batch size's edges
        // (8, 30, 60, 64 blocks, with J0 taking one slot of the first batch) are crossed.
        for len in 0..=(5 * 64 * BLOCK + 40) {
            let seed = len as u64;
            let key: [u8; 32] = bytes(seed, 32).try_into().expect("32");
            let nonce: [u8; 12] = bytes(seed + 1, 12).try_into().expect("12");
            let aad = bytes(seed + 2, len % 37);
            let plaintext = bytes(seed + 3, len);

            let ours = Aes256Gcm::new(&key);
            let mut sealed = plaintext.clone();
            let tag = ours.encrypt(&nonce, &aad, &mut sealed).expect("short");

            let reference = aes_gcm::Aes256Gcm::new_from_slice(&key).expect("key");
            let mut expected = plaintext.clone();
            let expected_tag = reference
                .encrypt_inout_detached(&nonce.into(), &aad, expected.as_mut_slice().into())
                .expect("short");
            assert_eq!(sealed, expected, "ciphertext at {len} bytes");
            assert_eq!(tag[..], expected_tag[..], "tag at {len} bytes");

            let mut opened = sealed.clone();
            assert!(ours.decrypt(&nonce, &aad, &mut opened, &tag), "{len}");
            assert_eq!(opened, plaintext);
        }
    }

    #[test]
    fn any_change_is_refused_and_leaves_the_buffer_alone() {
        let gcm = Aes256Gcm::new(&[7; 32]);
        let nonce = [9; 12];
        let mut sealed = bytes(1, 100);
        let tag = gcm.encrypt(&nonce, b"aad", &mut sealed).expect("short");
        let mut flipped = sealed.clone();
        flipped[99] ^= 1;
        let before = flipped.clone();
        assert!(!gcm.decrypt(&nonce, b"aad", &mut flipped, &tag));
        assert_eq!(flipped, before);
        let mut copy = sealed.clone();
        assert!(!gcm.decrypt(&nonce, b"aaD", &mut copy, &tag));
        assert!(!gcm.decrypt(&[8; 12], b"aad", &mut copy, &tag));
        let mut bad_tag = tag;
        bad_tag[0] ^= 0x80;
        assert!(!gcm.decrypt(&nonce, b"aad", &mut copy, &bad_tag));
        assert!(!gcm.decrypt(&nonce, b"aad", &mut copy[..99], &tag));
        assert!(gcm.decrypt(&nonce, b"aad", &mut copy, &tag));
    }
}
