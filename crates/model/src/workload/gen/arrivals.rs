//! Arrival processes shared by the generators. All draw from a seeded
//! `Sampler` and return times in seconds, not necessarily sorted.

use schedlab_core::num;
use schedlab_core::rng::Sampler;

/// `n` arrivals of a Poisson process conditioned on `n` events in
/// [0, span): independent uniform times (what sampling a trace window at a
/// fixed job count gives).
pub fn window(n: usize, span: f64, rng: &mut Sampler) -> Vec<f64> {
    (0..n).map(|_| rng.range(0.0, span)).collect()
}

/// One arrival from a diurnal intensity 1 + a sin(2 pi (t / day) + phase)
/// on [0, span), by rejection sampling.
pub fn diurnal_one(span: f64, amplitude: f64, phase: f64, rng: &mut Sampler) -> f64 {
    let day = 86_400.0;
    loop {
        let t = rng.range(0.0, span);
        let f = 1.0 + amplitude * num::sin(2.0 * std::f64::consts::PI * t / day + phase);
        if rng.uniform() * (1.0 + amplitude) <= f {
            return t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diurnal_peaks_and_troughs() {
        let mut rng = Sampler::new(5);
        let span = 2.0 * 86_400.0;
        let mut hours = [0usize; 48];
        for _ in 0..48_000 {
            let t = diurnal_one(span, 0.9, 0.0, &mut rng);
            hours[(t / 3600.0) as usize] += 1;
        }
        // Peak at 6 h (sin = 1), trough at 18 h (sin = -1): ratio (1.9/0.1) = 19 in expectation.
        assert!(hours[6] > 10 * hours[18], "{} vs {}", hours[6], hours[18]);
        let w = window(1000, 10.0, &mut rng);
        assert!(w.iter().all(|t| (0.0..10.0).contains(t)));
    }
}
