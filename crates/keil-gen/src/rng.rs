//! The seeded random source.
//!
//! Output must be the same bytes on every machine and every version, so the
//! generator draws only raw 32-bit words from ChaCha8 (a fixed, documented
//! stream cipher) and does its own range reduction: no sampling algorithm of
//! a library that may change between releases is involved.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// Expands a 64-bit seed into a ChaCha key with SplitMix64.
fn key_of(seed: u64) -> [u8; 32] {
    let mut key = [0u8; 32];
    let mut x = seed;
    for chunk in key.chunks_exact_mut(8) {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    key
}

/// A deterministic random source: one ChaCha8 stream of one seed.
#[derive(Clone, Debug)]
pub(crate) struct Rng(ChaCha8Rng);

impl Rng {
    /// Stream `stream` of `seed`: different streams are independent, so game
    /// `i` can be played from stream `i` whatever else was drawn.
    pub(crate) fn new(seed: u64, stream: u64) -> Rng {
        let mut r = ChaCha8Rng::from_seed(key_of(seed));
        r.set_stream(stream);
        Rng(r)
    }

    /// A uniform 32-bit word.
    #[inline]
    pub(crate) fn word(&mut self) -> u32 {
        self.0.next_u32()
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift (bias below 2^-24
    /// for the small `n` used here).
    #[inline]
    pub(crate) fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        ((u64::from(self.word()) * n as u64) >> 32) as usize
    }

    /// A number in `lo..=hi`.
    #[inline]
    pub(crate) fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below((hi - lo + 1) as usize) as u32
    }

    /// True with probability `per_million / 1_000_000`.
    #[inline]
    pub(crate) fn chance(&mut self, per_million: u32) -> bool {
        self.below(1_000_000) < per_million as usize
    }

    /// One element of a non-empty slice.
    pub(crate) fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    /// Shuffles a slice (Fisher–Yates).
    pub(crate) fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_fixed_functions_of_seed_and_stream() {
        // Pinned: a change here changes every generated corpus.
        let mut a = Rng::new(42, 0);
        let first: Vec<u32> = (0..4).map(|_| a.word()).collect();
        let mut b = Rng::new(42, 0);
        assert_eq!(first, (0..4).map(|_| b.word()).collect::<Vec<_>>());
        let mut c = Rng::new(42, 1);
        assert_ne!(first, (0..4).map(|_| c.word()).collect::<Vec<_>>());
        let mut d = Rng::new(43, 0);
        assert_ne!(first, (0..4).map(|_| d.word()).collect::<Vec<_>>());
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Rng::new(1, 2);
        for n in 1..50 {
            for _ in 0..100 {
                assert!(r.below(n) < n);
            }
        }
        assert_eq!(r.range(5, 5), 5);
    }
}
