//! The `learned` WillJobsArrive predictor (spec seed000 §2.10 mode 3): a
//! logistic regression per window, shared by all pools (as the paper's
//! XGBoost model is), trained on the first `train_frac` of the trace's
//! span and used everywhere after.
//!
//! Features (the arrival-based rows of the paper's Table 9, as log(1 + n)
//! counts of jobs arriving in the pool): periodic, in (-x p, -x p + k] for
//! x in 1..3 and p in {1 hour, 1 day}; recent, in (-x k, 0] for x in {1,
//! 10, 100}. The completion features need the run's own history and are
//! left out (Table 20: they add nothing on Helios). Training is full-batch
//! gradient descent from zero weights (deterministic); the decision
//! threshold is the one that maximises F1 on the training set (the data
//! are skewed: most 5-minute windows see no arrival).

use super::predict::ArrivalIndex;

const HOUR_S: f64 = 3_600.0;
const DAY_S: f64 = 86_400.0;
/// Features plus the bias.
const N: usize = 10;
/// Training samples kept (evenly strided) per window.
const MAX_SAMPLES: usize = 60_000;
const EPOCHS: usize = 300;
const STEP: f64 = 0.5;

/// One window's model.
#[derive(Debug, Clone)]
pub struct Logistic {
    w: [f64; N],
    threshold: f64,
}

fn count(ix: &ArrivalIndex, q: usize, from: f64, to: f64) -> f64 {
    schedlab_core::num::ln(1.0 + ix.jobs(q, from, to) as f64)
}

/// The feature vector of pool q at time t for window k (bias last).
pub fn features(ix: &ArrivalIndex, q: usize, t: f64, k: f64) -> [f64; N] {
    let mut f = [0.0; N];
    let mut i = 0;
    for p in [HOUR_S, DAY_S] {
        for x in 1..=3 {
            let start = t - x as f64 * p;
            f[i] = count(ix, q, start, start + k);
            i += 1;
        }
    }
    for x in [1.0, 10.0, 100.0] {
        f[i] = count(ix, q, t - x * k, t);
        i += 1;
    }
    f[N - 1] = 1.0;
    f
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + schedlab_core::num::exp(-z))
}

impl Logistic {
    /// Trains on slots of every pool in [from, to).
    pub fn train(ix: &ArrivalIndex, k: f64, from: f64, to: f64, slot: f64) -> Logistic {
        let slots = ((to - from) / slot).floor().max(0.0) as usize;
        let total = slots * ix.pools();
        let stride = total.div_ceil(MAX_SAMPLES).max(1);
        let mut data: Vec<([f64; N], f64)> = Vec::new();
        for n in (0..total).step_by(stride) {
            let (q, s) = (n % ix.pools(), n / ix.pools());
            let t = from + s as f64 * slot;
            let y = (ix.jobs(q, t, t + k) > 0) as u8 as f64;
            data.push((features(ix, q, t, k), y));
        }
        let mut w = [0.0; N];
        if data.is_empty() {
            return Logistic { w, threshold: 0.5 };
        }
        let m = data.len() as f64;
        for _ in 0..EPOCHS {
            let mut grad = [0.0; N];
            for (x, y) in &data {
                let e = sigmoid(dot(&w, x)) - y;
                for (g, xi) in grad.iter_mut().zip(x) {
                    *g += e * xi;
                }
            }
            for (wi, g) in w.iter_mut().zip(grad) {
                *wi -= STEP * g / m;
            }
        }
        let model = Logistic { w, threshold: 0.5 };
        let probs: Vec<(f64, bool)> = data
            .iter()
            .map(|(x, y)| (model.prob(x), *y > 0.5))
            .collect();
        Logistic {
            w,
            threshold: best_threshold(&probs),
        }
    }

    pub fn prob(&self, x: &[f64; N]) -> f64 {
        sigmoid(dot(&self.w, x))
    }

    pub fn predict(&self, x: &[f64; N]) -> bool {
        self.prob(x) >= self.threshold
    }
}

fn dot(a: &[f64; N], b: &[f64; N]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The probability cut that maximises F1 over a grid of 50 cuts.
fn best_threshold(probs: &[(f64, bool)]) -> f64 {
    let mut best = (f64::NEG_INFINITY, 0.5);
    for i in 1..50 {
        let cut = i as f64 / 50.0;
        let (mut tp, mut fp, mut fneg) = (0.0, 0.0, 0.0);
        for &(p, y) in probs {
            match (p >= cut, y) {
                (true, true) => tp += 1.0,
                (true, false) => fp += 1.0,
                (false, true) => fneg += 1.0,
                _ => {}
            }
        }
        let f1 = if tp > 0.0 {
            2.0 * tp / (2.0 * tp + fp + fneg)
        } else {
            0.0
        };
        if f1 > best.0 {
            best = (f1, cut);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_daily_pattern_is_learned() {
        // One pool whose jobs arrive every day between 9:00 and 10:00 only.
        let mut v = Vec::new();
        for d in 0..60 {
            for m in 0..6 {
                v.push((d as f64 * DAY_S + 9.0 * HOUR_S + m as f64 * 600.0, 0, 1));
            }
        }
        let ix = ArrivalIndex::build(v.into_iter(), 1);
        let model = Logistic::train(&ix, HOUR_S, 0.0, 30.0 * DAY_S, 300.0);
        let at = |h: f64| model.predict(&features(&ix, 0, 45.0 * DAY_S + h * HOUR_S, HOUR_S));
        assert!(at(8.5), "arrivals come within the next hour at 8:30");
        assert!(!at(14.0), "none in the afternoon");
    }
}
