//! ChaCha8 sixteen blocks at a time with AVX-512, for native x86-64 builds.
//!
//! Pollux's genetic search draws about 800 million words a run, and
//! `rand_chacha`'s refills (AVX2, four blocks at a time) took a sixth of it.
//! With AVX-512 a state word of sixteen consecutive blocks fits one register
//! and a rotation is one instruction (`vprold`), so this generator computes
//! the same stream (`rand_chacha::ChaCha8Rng`'s: 64-bit block counter, stream
//! 0, its key) several times faster. On CPUs without AVX-512 it refills with
//! `rand_chacha`'s own core, four calls per refill, so the words are the
//! same on every machine (`the_stream_is_rand_chachas_word_for_word` checks
//! both paths).

use super::chacha_rounds::{eight_rounds, key_words, SIGMA};
use rand::rand_core::block::Generator as _;
use rand::SeedableRng;
use rand_chacha::ChaCha8Core;

/// Blocks per refill.
const BLOCKS: usize = 16;
/// 64-bit words per refill (eight per 64-byte block).
const WORDS: usize = 8 * BLOCKS;

/// The ChaCha8 generator of `rand_chacha::ChaCha8Rng`, sixteen blocks a
/// refill.
#[derive(Debug, Clone)]
pub struct ChaCha8 {
    key: [u32; 8],
    /// The next block's number (the AVX-512 path).
    block: u64,
    /// `rand_chacha`'s core at the same position (the path without it).
    core: ChaCha8Core,
    /// The refill's words in stream order.
    words: [u64; WORDS],
    next: usize,
}

impl ChaCha8 {
    /// The generator `ChaCha8Rng::from_seed(seed)` would be.
    pub fn from_seed(seed: [u8; 32]) -> ChaCha8 {
        let key = key_words(&seed);
        ChaCha8 {
            key,
            block: 0,
            core: ChaCha8Core::from_seed(seed),
            words: [0; WORDS],
            next: WORDS,
        }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        if self.next == WORDS {
            self.refill(true);
        }
        let x = self.words[self.next];
        self.next += 1;
        x
    }

    /// The next sixteen blocks: with AVX-512 if `wide` and the CPU has it,
    /// else with `rand_chacha`'s core (tests ask for it). A generator keeps
    /// to one path: each keeps its own position.
    #[inline(never)]
    fn refill(&mut self, wide: bool) {
        if wide && std::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F, checked just above.
            unsafe { sixteen_blocks(&self.key, self.block, &mut self.words) };
            self.block = self.block.wrapping_add(BLOCKS as u64);
        } else {
            let mut out = [0u32; 64];
            for four_blocks in self.words.chunks_exact_mut(WORDS / 4) {
                self.core.generate(&mut out);
                for (w, pair) in four_blocks.iter_mut().zip(out.chunks_exact(2)) {
                    *w = pair[0] as u64 | (pair[1] as u64) << 32;
                }
            }
        }
        self.next = 0;
    }
}

/// ChaCha8 blocks `block .. block + 16` into `out` in stream order: one
/// register per state word holding the sixteen blocks, then a 16 x 16
/// transpose so that each block's words are stored together.
#[target_feature(enable = "avx512f")]
fn sixteen_blocks(key: &[u32; 8], block: u64, out: &mut [u64; WORDS]) {
    use std::arch::x86_64::*;
    let splat = |x: u32| _mm512_set1_epi32(x as i32);
    let counter = |b: usize, shift: u32| (block.wrapping_add(b as u64) >> shift) as u32 as i32;
    let counters = |s: u32| {
        let c = |b| counter(b, s);
        _mm512_set_epi32(
            c(15),
            c(14),
            c(13),
            c(12),
            c(11),
            c(10),
            c(9),
            c(8),
            c(7),
            c(6),
            c(5),
            c(4),
            c(3),
            c(2),
            c(1),
            c(0),
        )
    };
    let mut start = [_mm512_setzero_si512(); 16];
    for i in 0..4 {
        start[i] = splat(SIGMA[i]);
    }
    for i in 0..8 {
        start[4 + i] = splat(key[i]);
    }
    start[12] = counters(0);
    start[13] = counters(32);
    // Words 14 and 15 (the stream) stay 0.
    let mut x = start;
    let quarter = |x: &mut [__m512i; 16], a: usize, b: usize, c: usize, d: usize| {
        x[a] = _mm512_add_epi32(x[a], x[b]);
        x[d] = _mm512_rol_epi32::<16>(_mm512_xor_si512(x[d], x[a]));
        x[c] = _mm512_add_epi32(x[c], x[d]);
        x[b] = _mm512_rol_epi32::<12>(_mm512_xor_si512(x[b], x[c]));
        x[a] = _mm512_add_epi32(x[a], x[b]);
        x[d] = _mm512_rol_epi32::<8>(_mm512_xor_si512(x[d], x[a]));
        x[c] = _mm512_add_epi32(x[c], x[d]);
        x[b] = _mm512_rol_epi32::<7>(_mm512_xor_si512(x[b], x[c]));
    };
    eight_rounds(&mut x, quarter);
    for (w, s) in x.iter_mut().zip(start) {
        *w = _mm512_add_epi32(*w, s);
    }
    // Transpose: within each 128-bit lane k, gather element m of four
    // consecutive words (u[4g + m] holds words 4g..4g+3 of block 4k + m) ...
    let mut u = [_mm512_setzero_si512(); 16];
    for g in 0..4 {
        let r = &x[4 * g..4 * g + 4];
        let lo01 = _mm512_unpacklo_epi32(r[0], r[1]);
        let hi01 = _mm512_unpackhi_epi32(r[0], r[1]);
        let lo23 = _mm512_unpacklo_epi32(r[2], r[3]);
        let hi23 = _mm512_unpackhi_epi32(r[2], r[3]);
        u[4 * g] = _mm512_unpacklo_epi64(lo01, lo23);
        u[4 * g + 1] = _mm512_unpackhi_epi64(lo01, lo23);
        u[4 * g + 2] = _mm512_unpacklo_epi64(hi01, hi23);
        u[4 * g + 3] = _mm512_unpackhi_epi64(hi01, hi23);
    }
    // ... then block 4k + m is lane k of u[m], u[4 + m], u[8 + m], u[12 + m].
    for m in 0..4 {
        let (a, b, c, d) = (u[m], u[4 + m], u[8 + m], u[12 + m]);
        let ab_low = _mm512_shuffle_i32x4::<0x44>(a, b);
        let ab_high = _mm512_shuffle_i32x4::<0xee>(a, b);
        let cd_low = _mm512_shuffle_i32x4::<0x44>(c, d);
        let cd_high = _mm512_shuffle_i32x4::<0xee>(c, d);
        let blocks = [
            _mm512_shuffle_i32x4::<0x88>(ab_low, cd_low),
            _mm512_shuffle_i32x4::<0xdd>(ab_low, cd_low),
            _mm512_shuffle_i32x4::<0x88>(ab_high, cd_high),
            _mm512_shuffle_i32x4::<0xdd>(ab_high, cd_high),
        ];
        for (k, words) in blocks.into_iter().enumerate() {
            let at = (4 * k + m) * 8;
            // SAFETY: `at + 8 <= WORDS`, and the store is unaligned.
            unsafe { _mm512_storeu_si512(out[at..at + 8].as_mut_ptr().cast(), words) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Both paths (AVX-512 where the CPU has it) against `rand_chacha`,
    /// across several refills.
    #[test]
    fn the_stream_is_rand_chachas_word_for_word() {
        let mut paths = vec![false];
        if std::is_x86_feature_detected!("avx512f") {
            paths.push(true);
        } else {
            eprintln!("no AVX-512 on this CPU: only the rand_chacha path is checked");
        }
        for wide in paths {
            for seed in [0, 1, 42, u64::MAX] {
                let mut theirs = ChaCha8Rng::seed_from_u64(seed);
                let mut ours = ChaCha8::from_seed(theirs.get_seed());
                for i in 0..2_000 {
                    if ours.next == WORDS {
                        ours.refill(wide);
                    }
                    let word = ours.next_u64();
                    assert_eq!(
                        word,
                        theirs.next_u64(),
                        "seed {seed}, word {i}, AVX-512 {wide}"
                    );
                }
            }
        }
    }
}
