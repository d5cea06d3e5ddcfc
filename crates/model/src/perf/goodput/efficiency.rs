//! Statistical efficiency from gradient statistics (spec seed004-sia.md
//! §2.2.1, equations E1 to E3; Pollux OSDI'21 §3.1) and the epoch
//! structure of a training run (the completion criterion of §3.1).
//!
//! Training with global batch M instead of the initial batch M0 makes
//! `gain(M) = (var + sqr)/(var/s + sqr)` M0-iterations of progress per
//! step, s = M/M0, where `var` and `sqr` are the (preconditioned) gradient
//! variance and squared norm. Only their ratio matters:
//! with φ = M0·var/sqr (the gradient noise scale, in samples) and
//! r = φ/M0, `gain = (r + 1)/(r/s + 1)` and `EFF = gain/s`.
//!
//! φ grows as training proceeds, so a job's efficiency changes from
//! epoch to epoch. The Pollux simulator reads (sqr, var) per epoch from
//! `validation-<bsz>.csv` runs at several batch sizes. We keep a compact
//! fit of that data: ln φ per validated batch size as a piecewise-linear
//! function of the epoch index at a few knots (least squares in log
//! space), and evaluate it at the job's current epoch and batch size
//! (linear in ln M between the two validated sizes that bracket M).
//!
//! Epoch e (0-based) ends when progress reaches threshold(e+1); the
//! Pollux simulator uses `min over batch sizes of progress[e]` from the
//! validation files, which grows linearly to within 0.2%, so the curve
//! stores only the total progress and the epoch count: threshold(e) =
//! total·e/E. A job completes at progress = total = get_progress(E).

use schedlab_core::num;
use serde::{Deserialize, Serialize};

/// Largest gradient noise scale we represent (samples). Epochs where the
/// measured squared gradient norm is 0 (perfect scaling) are stored as this.
pub const PHI_MAX: f64 = 1e12;
/// Smallest noise scale represented (avoids ln 0).
pub const PHI_MIN: f64 = 1e-6;

/// (E2) progress per step, in M0-iterations, at `scale` = M/M0 with noise
/// ratio `r` = var/sqr = φ/M0. A non-positive denominator gives 1.
pub fn gain(r: f64, scale: f64) -> f64 {
    let denom = r / scale + 1.0;
    if denom > 0.0 && r.is_finite() {
        (r + 1.0) / denom
    } else if r.is_infinite() {
        scale
    } else {
        1.0
    }
}

/// (E2) from raw gradient statistics, exactly as the Pollux simulator.
pub fn gain_from_stats(sqr: f64, var: f64, scale: f64) -> f64 {
    let denom = var / scale + sqr;
    if denom > 0.0 {
        (var + sqr) / denom
    } else {
        1.0
    }
}

/// One row of a `validation-<bsz>.csv` file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValidationRow {
    /// Cumulative progress in M0-iterations at the end of the epoch.
    pub progress: f64,
    pub grad_sqr: f64,
    pub grad_var: f64,
}

/// The compact efficiency and epoch model of one training job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EfficiencyCurve {
    /// M0: the initial (smallest validated) global batch.
    pub init_batch: u32,
    /// Number of epochs of a complete run (the Pollux `max_epochs`).
    pub epochs: u32,
    /// Progress (M0-iterations) of a complete run.
    pub total_progress: f64,
    /// Epoch indices of the knots, ascending, first 0 and last `epochs - 1`.
    pub knots: Vec<u32>,
    /// Validated global batch sizes, ascending.
    pub batches: Vec<u32>,
    /// ln φ at each knot, one row per batch size (`batches.len()` rows of
    /// `knots.len()` values).
    pub log_phi: Vec<Vec<f64>>,
}

/// Default knot epochs: dense early (φ changes fastest after the first
/// epochs), then roughly geometric.
pub const DEFAULT_KNOTS: &[u32] = &[0, 1, 2, 3, 5, 8, 12, 18, 27, 40, 60, 90];

impl EfficiencyCurve {
    /// Threshold of progress at which epoch `e` (0-based) starts.
    pub fn threshold(&self, e: u32) -> f64 {
        if e >= self.epochs {
            return self.total_progress;
        }
        self.total_progress * e as f64 / self.epochs as f64
    }

    /// The epoch a job with this much progress is in (0-based, at most E-1).
    pub fn epoch_at(&self, progress: f64) -> u32 {
        if self.epochs <= 1 || progress.is_nan() || progress <= 0.0 {
            return 0;
        }
        let guess = (progress / self.total_progress * self.epochs as f64).floor();
        let mut e = (guess.max(0.0) as u64).min(self.epochs as u64 - 1) as u32;
        while e + 1 < self.epochs && self.threshold(e + 1) <= progress {
            e += 1;
        }
        while e > 0 && self.threshold(e) > progress {
            e -= 1;
        }
        e
    }

    /// Progress at which the rate of a job at `progress` next changes
    /// (its next epoch boundary), or infinity in the last epoch.
    pub fn next_boundary(&self, progress: f64) -> f64 {
        let e = self.epoch_at(progress);
        if e + 1 >= self.epochs {
            f64::INFINITY
        } else {
            self.threshold(e + 1)
        }
    }

    /// ln φ of validated batch row `b` at epoch `e` (knot interpolation,
    /// flat beyond the last knot).
    fn log_phi_row(&self, b: usize, e: u32) -> f64 {
        let row = &self.log_phi[b];
        let k = &self.knots;
        if k.len() == 1 || e <= k[0] {
            return row[0];
        }
        for i in 1..k.len() {
            if e <= k[i] {
                let t = (e - k[i - 1]) as f64 / (k[i] - k[i - 1]) as f64;
                return row[i - 1] + (row[i] - row[i - 1]) * t;
            }
        }
        row[row.len() - 1]
    }

    /// Gradient noise scale φ (samples) at global batch `m` in epoch `e`.
    pub fn phi(&self, m: f64, e: u32) -> f64 {
        let bs = &self.batches;
        let at = |i: usize| self.log_phi_row(i, e);
        let lp = if bs.len() == 1 || m <= bs[0] as f64 {
            at(0)
        } else if m >= bs[bs.len() - 1] as f64 {
            at(bs.len() - 1)
        } else {
            let i = bs
                .iter()
                .position(|b| *b as f64 >= m)
                .unwrap_or(bs.len() - 1);
            let (lo, hi) = (bs[i - 1] as f64, bs[i] as f64);
            let t = (num::ln(m) - num::ln(lo)) / (num::ln(hi) - num::ln(lo));
            at(i - 1) + (at(i) - at(i - 1)) * t
        };
        num::exp(lp)
    }

    /// (E2) progress per step at global batch `m` in epoch `e`.
    pub fn gain(&self, m: f64, e: u32) -> f64 {
        let r = self.phi(m, e) / self.init_batch as f64;
        gain(r, m / self.init_batch as f64)
    }

    /// (E3) statistical efficiency at global batch `m` in epoch `e`.
    pub fn efficiency(&self, m: f64, e: u32) -> f64 {
        self.gain(m, e) * self.init_batch as f64 / m
    }

    /// Fits the compact curve to validation runs: `runs` holds, per
    /// validated batch size, its rows (one per epoch). `max_epochs`
    /// defaults to the shortest run; `knots` to [`DEFAULT_KNOTS`] cut at
    /// E-1 (plus E-1 itself).
    pub fn fit(
        runs: &[(u32, Vec<ValidationRow>)],
        max_epochs: Option<u32>,
        knots: Option<&[u32]>,
    ) -> Result<EfficiencyCurve, String> {
        let mut runs: Vec<&(u32, Vec<ValidationRow>)> = runs.iter().collect();
        schedlab_core::sorting::sort_by_key(&mut runs, |r| r.0);
        let shortest = runs.iter().map(|r| r.1.len()).min().unwrap_or(0) as u32;
        if runs.is_empty() || shortest == 0 {
            return Err("no validation rows".into());
        }
        if runs.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err("two validation files for the same batch size".into());
        }
        let epochs = max_epochs.unwrap_or(shortest);
        if epochs == 0 || epochs > shortest {
            return Err(format!(
                "max_epochs {epochs} exceeds the shortest validation run ({shortest} epochs)"
            ));
        }
        let init_batch = runs[0].0;
        if init_batch == 0 {
            return Err("validated batch size 0".into());
        }
        let total_progress = runs
            .iter()
            .map(|r| r.1[epochs as usize - 1].progress)
            .fold(f64::INFINITY, f64::min);
        if !(total_progress > 0.0 && total_progress.is_finite()) {
            return Err("total progress is not positive".into());
        }
        let mut ks: Vec<u32> = knots
            .unwrap_or(DEFAULT_KNOTS)
            .iter()
            .copied()
            .filter(|k| *k < epochs - 1)
            .collect();
        ks.push(epochs - 1);
        ks.sort_unstable();
        ks.dedup();
        let mut log_phi = Vec::new();
        for (b, rows) in &runs {
            let ys: Vec<f64> = rows[..epochs as usize]
                .iter()
                .map(|r| {
                    let phi = if r.grad_sqr > 0.0 {
                        init_batch as f64 * r.grad_var / r.grad_sqr
                    } else if r.grad_var > 0.0 {
                        PHI_MAX
                    } else {
                        PHI_MIN
                    };
                    num::ln(phi.clamp(PHI_MIN, PHI_MAX))
                })
                .collect();
            if ys.iter().any(|y| !y.is_finite()) {
                return Err(format!("batch {b}: non-finite gradient statistics"));
            }
            log_phi.push(piecewise_linear_lsq(&ys, &ks));
        }
        Ok(EfficiencyCurve {
            init_batch,
            epochs,
            total_progress,
            knots: ks,
            batches: runs.iter().map(|r| r.0).collect(),
            log_phi,
        })
    }
}

/// Least-squares fit of a continuous piecewise-linear function with the
/// given knots (x = index) to `ys`; returns the values at the knots.
fn piecewise_linear_lsq(ys: &[f64], knots: &[u32]) -> Vec<f64> {
    let n = knots.len();
    if n == 1 {
        return vec![ys.iter().sum::<f64>() / ys.len() as f64];
    }
    // Hat-function basis: normal equations are tridiagonal.
    let mut diag = vec![0.0; n];
    let mut off = vec![0.0; n - 1];
    let mut rhs = vec![0.0; n];
    for (x, y) in ys.iter().enumerate() {
        let x = x as u32;
        let i = match knots.windows(2).position(|w| x >= w[0] && x <= w[1]) {
            Some(i) => i,
            None => continue,
        };
        let (a, b) = (knots[i], knots[i + 1]);
        let t = (x - a) as f64 / (b - a) as f64;
        let (wa, wb) = (1.0 - t, t);
        diag[i] += wa * wa;
        diag[i + 1] += wb * wb;
        off[i] += wa * wb;
        rhs[i] += wa * y;
        rhs[i + 1] += wb * y;
    }
    // Knots are data points, so every diagonal entry is positive; a tiny
    // ridge keeps the solve safe anyway.
    for d in diag.iter_mut() {
        *d += 1e-12;
    }
    // Thomas algorithm.
    let mut c = vec![0.0; n];
    let mut d = vec![0.0; n];
    c[0] = if n > 1 { off[0] / diag[0] } else { 0.0 };
    d[0] = rhs[0] / diag[0];
    for i in 1..n {
        let m = diag[i] - off[i - 1] * c[i - 1];
        c[i] = if i < n - 1 { off[i] / m } else { 0.0 };
        d[i] = (rhs[i] - off[i - 1] * d[i - 1]) / m;
    }
    let mut x = vec![0.0; n];
    x[n - 1] = d[n - 1];
    for i in (0..n - 1).rev() {
        x[i] = d[i] - c[i] * x[i + 1];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gain_matches_raw_statistics() {
        // var/sqr = 3, M0 = 10, M = 40: gain = (3+1)/(3/4+1) = 16/7.
        assert!((gain(3.0, 4.0) - 16.0 / 7.0).abs() < 1e-12);
        assert!((gain_from_stats(2.0, 6.0, 4.0) - 16.0 / 7.0).abs() < 1e-12);
        // Zero squared norm: perfect scaling.
        assert!((gain_from_stats(0.0, 5.0, 8.0) - 8.0).abs() < 1e-12);
        assert_eq!(gain(f64::INFINITY, 8.0), 8.0);
        // At scale 1 the gain is 1 whatever the noise.
        assert!((gain(123.0, 1.0) - 1.0).abs() < 1e-12);
    }

    fn rows(phis: &[f64], per_epoch: f64) -> Vec<ValidationRow> {
        phis.iter()
            .enumerate()
            .map(|(i, p)| ValidationRow {
                progress: per_epoch * (i + 1) as f64,
                grad_sqr: 1.0,
                grad_var: *p / 10.0,
            })
            .collect()
    }

    #[test]
    fn fit_reproduces_piecewise_linear_log_phi_exactly() {
        // ln φ linear in the epoch: any knot set reproduces it.
        let phis: Vec<f64> = (0..20).map(|e| num::exp(2.0 + 0.3 * e as f64)).collect();
        let runs = vec![(10, rows(&phis, 100.0)), (40, rows(&phis, 99.0))];
        let c = EfficiencyCurve::fit(&runs, None, None).unwrap();
        assert_eq!(c.epochs, 20);
        assert_eq!(c.init_batch, 10);
        assert!((c.total_progress - 1980.0).abs() < 1e-9);
        assert_eq!(*c.knots.last().unwrap(), 19);
        for e in 0..20 {
            let want = phis[e as usize];
            assert!((c.phi(10.0, e) / want - 1.0).abs() < 1e-9, "e={e}");
            assert!((c.phi(20.0, e) / want - 1.0).abs() < 1e-9, "e={e}");
        }
    }

    #[test]
    fn epochs_and_boundaries() {
        let phis = vec![100.0; 4];
        let c = EfficiencyCurve::fit(&[(8, rows(&phis, 50.0))], None, None).unwrap();
        assert_eq!(c.total_progress, 200.0);
        assert_eq!(c.epoch_at(0.0), 0);
        assert_eq!(c.epoch_at(49.999), 0);
        assert_eq!(c.epoch_at(50.0), 1);
        assert_eq!(c.epoch_at(199.0), 3);
        assert_eq!(c.epoch_at(1e9), 3);
        assert_eq!(c.next_boundary(10.0), 50.0);
        assert_eq!(c.next_boundary(50.0), 100.0);
        assert_eq!(c.next_boundary(160.0), f64::INFINITY);
    }

    #[test]
    fn efficiency_falls_with_batch_and_rises_with_noise() {
        let early = vec![20.0; 3];
        let c = EfficiencyCurve::fit(&[(10, rows(&early, 1.0))], None, None).unwrap();
        // φ = 20 samples, M0 = 10: r = 2; at M = 40, gain = 3/(0.5+1) = 2.
        assert!((c.gain(40.0, 0) - 2.0).abs() < 1e-9);
        assert!((c.efficiency(40.0, 0) - 0.5).abs() < 1e-9);
        assert!(c.efficiency(80.0, 0) < c.efficiency(40.0, 0));
        assert!((c.efficiency(10.0, 0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn fit_rejects_bad_input() {
        assert!(EfficiencyCurve::fit(&[], None, None).is_err());
        let r = rows(&[1.0, 2.0], 1.0);
        assert!(EfficiencyCurve::fit(&[(8, r.clone())], Some(3), None).is_err());
        assert!(EfficiencyCurve::fit(&[(8, r.clone()), (8, r)], None, None).is_err());
    }
}
