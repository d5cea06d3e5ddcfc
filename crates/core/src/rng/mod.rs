//! Seeded random sampling for generators and policies.
//!
//! One generator (ChaCha8, seeded) and a few distributions written on top of
//! `next_u64` with the `libm` math of [`crate::num`]: `rand_distr` calls the
//! platform's `ln`/`exp`, whose last bits differ between native and wasm,
//! and generated traces must be identical on both.

#[cfg(target_arch = "x86_64")]
mod chacha_avx512;
#[cfg(any(
    test,
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
mod chacha_rounds;
#[cfg(any(test, all(target_arch = "wasm32", target_feature = "simd128")))]
mod chacha_wide;

use crate::num;
#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The generator behind [`Sampler`]: `rand_chacha`'s ChaCha8 stream. Native
/// x86-64 builds compute it sixteen blocks at a time with AVX-512 where the
/// CPU has it (`chacha_avx512`), and wasm builds with SIMD128 four blocks at
/// a time (`chacha_wide`): `rand_chacha` is slower there. Elsewhere
/// `rand_chacha` runs.
#[cfg(target_arch = "x86_64")]
type Generator = self::chacha_avx512::ChaCha8;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Generator = self::chacha_wide::ChaCha8;
#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
type Generator = ChaCha8Rng;

/// The project's one random-number generator.
#[derive(Debug, Clone)]
pub struct Sampler {
    rng: Generator,
}

/// A uniform draw in [0, 1) addressed by a key rather than by call order
/// (a counter-based generator: splitmix64 finalisers over the seed and the
/// key), so a policy's draw for (pool, window, slot) is the same however
/// often, and in whatever order, it is asked.
pub fn keyed_uniform(seed: u64, key: &[u64]) -> f64 {
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    let mut h = mix(seed.wrapping_add(0x9e37_79b9_7f4a_7c15));
    for &k in key {
        h = mix(h ^ k.wrapping_add(0x9e37_79b9_7f4a_7c15));
    }
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

impl Sampler {
    pub fn new(seed: u64) -> Sampler {
        let seed = ChaCha8Rng::seed_from_u64(seed).get_seed();
        Sampler {
            rng: Generator::from_seed(seed),
        }
    }

    /// A sub-stream derived from this seed and a label, so that adding draws
    /// in one place does not shift the draws of another.
    pub fn derive(seed: u64, label: &str) -> Sampler {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in label.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        Sampler::new(seed ^ h.rotate_left(17))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Uniform integer in [0, n) (n > 0), without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        loop {
            let x = self.rng.next_u64();
            // Unbiased draws are those below MAX - (MAX % n), which is
            // above MAX - n: most draws pass without that division.
            if x <= u64::MAX - n || x < u64::MAX - (u64::MAX % n) {
                return x % n;
            }
        }
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * num::ln(1.0 - self.uniform())
    }

    /// Standard normal (Box-Muller, one value per call).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        libm::sqrt(-2.0 * num::ln(u1)) * num::cos(2.0 * std::f64::consts::PI * u2)
    }

    /// Log-normal with the given median and sigma of the underlying normal.
    pub fn lognormal(&mut self, median: f64, sigma: f64) -> f64 {
        median * num::exp(sigma * self.normal())
    }

    /// Index drawn with probability proportional to `weights`.
    pub fn weighted(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        let mut x = self.uniform() * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len().saturating_sub(1)
    }

    /// Bernoulli trial: `uniform() < p`, compared in integers. The uniform
    /// is m / 2^53 for the draw's top 53 bits m, and m < p * 2^53 (exact: a
    /// power-of-two scaling) holds iff m < ceil(p * 2^53); the saturating
    /// cast keeps NaN, p <= 0 and p >= 1 right.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        (self.rng.next_u64() >> 11) < (p * (1u64 << 53) as f64).ceil() as u64
    }

    /// Fisher-Yates shuffle drawn with [`Sampler::below`], so that the order
    /// is the same on every platform (`usize` differs between wasm and native).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_and_reproducible() {
        let a: Vec<u64> = (0..5)
            .map({
                let mut s = Sampler::new(7);
                move |_| s.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..5)
            .map({
                let mut s = Sampler::new(7);
                move |_| s.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(
            Sampler::derive(7, "x").next_u64(),
            Sampler::derive(7, "y").next_u64()
        );
    }

    /// `chance` is `uniform() < p` draw for draw, at the edges too.
    #[test]
    fn chance_is_the_uniform_below_p() {
        let tiny = f64::from_bits(1);
        let below_one = 1.0 - f64::EPSILON / 2.0;
        let ps = [
            0.1,
            0.5,
            0.0,
            -0.3,
            1.0,
            2.0,
            f64::NAN,
            f64::INFINITY,
            tiny,
            below_one,
        ];
        for p in ps {
            let (mut a, mut b) = (Sampler::new(9), Sampler::new(9));
            for _ in 0..20_000 {
                assert_eq!(a.chance(p), b.uniform() < p, "p = {p}");
            }
        }
        // Thresholds on the very draw compared and one float either side.
        let mut near = Sampler::new(3);
        for _ in 0..20_000 {
            let before = near.clone();
            let u = near.uniform();
            for p in [
                u,
                f64::from_bits(u.to_bits() + 1),
                f64::from_bits(u.to_bits().max(1) - 1),
            ] {
                let (mut a, mut b) = (before.clone(), before.clone());
                assert_eq!(a.chance(p), b.uniform() < p, "p = {p}");
            }
        }
    }

    #[test]
    fn distributions_have_the_right_moments() {
        let mut s = Sampler::new(1);
        let n = 200_000;
        let exp_mean = (0..n).map(|_| s.exponential(3.0)).sum::<f64>() / n as f64;
        assert!((exp_mean - 3.0).abs() < 0.05, "{exp_mean}");
        let xs: Vec<f64> = (0..n).map(|_| s.normal()).collect();
        let m = xs.iter().sum::<f64>() / n as f64;
        let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64;
        assert!(m.abs() < 0.01 && (v - 1.0).abs() < 0.02, "{m} {v}");
        let mut counts = [0usize; 3];
        for _ in 0..n {
            counts[s.weighted(&[1.0, 2.0, 1.0])] += 1;
        }
        assert!((counts[1] as f64 / n as f64 - 0.5).abs() < 0.01);
        assert!((0..1000).all(|_| s.below(7) < 7));
    }
}
