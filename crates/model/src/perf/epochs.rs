//! How many epochs a job actually runs when early stopping may end it
//! before its maximum (STS, spec seed002 §2.4, §4.1).
//!
//! A model may carry an [`EpochDistribution`]: the probability that a job
//! stops after exactly e of its `max_epochs` epochs. A job's declared work
//! is its maximum; the engine draws the true count from the distribution
//! (`engine.early_stop`) and hides it, so policies plan on the distribution.
//! [`Survival`] is the continuous complementary CDF a planner integrates.

use schedlab_core::error::{Error, Result};
use serde::Serialize;

/// P(W = e) for e = 0..=max_epochs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EpochDistribution {
    pub max_epochs: u32,
    pmf: Vec<f64>,
}

impl EpochDistribution {
    /// Checks and builds a distribution; `pmf[e]` is P(W = e). The
    /// probabilities must be non-negative and sum to 1 (within 1e-6).
    pub fn new(pmf: Vec<f64>) -> Result<EpochDistribution> {
        if pmf.len() < 2 {
            return Err(Error::config(
                "an epoch distribution needs at least one epoch",
            ));
        }
        if let Some(e) = pmf.iter().position(|p| !(p.is_finite() && *p >= 0.0)) {
            return Err(Error::config(format!(
                "epoch distribution: P(W = {e}) = {} is not a probability",
                pmf[e]
            )));
        }
        let total: f64 = pmf.iter().sum();
        if (total - 1.0).abs() > 1e-6 {
            return Err(Error::config(format!(
                "epoch distribution: the probabilities sum to {total}, not 1 (not normalised)"
            )));
        }
        Ok(EpochDistribution {
            max_epochs: pmf.len() as u32 - 1,
            pmf,
        })
    }

    /// Normalises non-negative weights per epoch (`weights[e]` for W = e).
    pub fn from_weights(weights: &[f64]) -> Result<EpochDistribution> {
        let total: f64 = weights.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            return Err(Error::config("epoch distribution: the weights sum to zero"));
        }
        EpochDistribution::new(weights.iter().map(|w| w / total).collect())
    }

    pub fn pmf(&self) -> &[f64] {
        &self.pmf
    }

    /// E[W].
    pub fn mean(&self) -> f64 {
        self.pmf.iter().enumerate().map(|(e, p)| e as f64 * p).sum()
    }

    /// The epoch count whose CDF first reaches `u` in [0, 1): inverse
    /// transform sampling.
    pub fn quantile(&self, u: f64) -> u32 {
        let mut acc = 0.0;
        for (e, p) in self.pmf.iter().enumerate() {
            acc += p;
            if u < acc {
                return e as u32;
            }
        }
        self.max_epochs
    }

    /// The continuous survival function a planner uses.
    pub fn survival(&self) -> Survival {
        Survival::new(self)
    }
}

/// Mass spread uniformly over the epochs so that the survival function is
/// strictly decreasing (spec §2.4.1, "Numerics"), which makes its inverse
/// and the single-job optimum unique.
const SMOOTHING: f64 = 1e-6;

/// F^c(w) = P(W > w), linear between integer epochs, strictly decreasing
/// from 1 at 0 to 0 at `max_epochs`.
#[derive(Debug, Clone, PartialEq)]
pub struct Survival {
    /// F^c at the integer epochs 0..=max.
    at_epoch: Vec<f64>,
    /// Integral of F^c from 0 to each integer epoch.
    integral: Vec<f64>,
}

impl Survival {
    fn new(d: &EpochDistribution) -> Survival {
        let n = d.max_epochs as usize;
        let uniform = 1.0 / n as f64;
        // P(W = e) for e = 1..=n after mixing; W = 0 folds into W = 1 (a
        // job runs at least part of an epoch).
        let mut at_epoch = vec![1.0; n + 1];
        let mut left = 1.0;
        for (e, slot) in at_epoch.iter_mut().enumerate().skip(1) {
            let p = if e == 1 {
                d.pmf[0] + d.pmf[1]
            } else {
                d.pmf[e]
            };
            left -= (1.0 - SMOOTHING) * p + SMOOTHING * uniform;
            *slot = if e == n { 0.0 } else { left.max(0.0) };
        }
        let mut integral = vec![0.0; n + 1];
        for e in 1..=n {
            integral[e] = integral[e - 1] + 0.5 * (at_epoch[e - 1] + at_epoch[e]);
        }
        Survival { at_epoch, integral }
    }

    pub fn max_epochs(&self) -> f64 {
        (self.at_epoch.len() - 1) as f64
    }

    /// F^c(w), clamped to [0, max].
    pub fn at(&self, w: f64) -> f64 {
        let max = self.max_epochs();
        if w <= 0.0 {
            return 1.0;
        }
        if w >= max {
            return 0.0;
        }
        let e = w.floor() as usize;
        let u = w - e as f64;
        self.at_epoch[e] + (self.at_epoch[e + 1] - self.at_epoch[e]) * u
    }

    /// The integral of F^c from 0 to w (G in the spec).
    pub fn integral(&self, w: f64) -> f64 {
        let max = self.max_epochs();
        let w = w.clamp(0.0, max);
        let e = (w.floor() as usize).min(self.at_epoch.len() - 2);
        let u = w - e as f64;
        let (a, b) = (self.at_epoch[e], self.at_epoch[e + 1]);
        self.integral[e] + a * u + (b - a) * u * u / 2.0
    }

    /// The w with F^c(w) = p (p in (0, 1)); 0 for p >= 1, max for p <= 0.
    pub fn inverse(&self, p: f64) -> f64 {
        if p >= 1.0 {
            return 0.0;
        }
        if p <= 0.0 {
            return self.max_epochs();
        }
        // at_epoch is strictly decreasing: find the segment holding p.
        let e = self.at_epoch.partition_point(|v| *v > p);
        // at_epoch[e - 1] > p >= at_epoch[e]
        let (a, b) = (self.at_epoch[e - 1], self.at_epoch[e]);
        (e - 1) as f64 + (a - p) / (a - b)
    }

    /// The integral of F^c over the whole support: E[W] - 1/2, since the
    /// linear interpolation between integer epochs (the spec's reading)
    /// spreads the stops at epoch e over (e - 1, e].
    pub fn mean(&self) -> f64 {
        self.integral(self.max_epochs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist() -> EpochDistribution {
        // W uniform on 1..=4.
        EpochDistribution::new(vec![0.0, 0.25, 0.25, 0.25, 0.25]).unwrap()
    }

    #[test]
    fn survival_is_the_complementary_cdf_with_its_integral_and_inverse() {
        let s = dist().survival();
        assert!((s.at(0.0) - 1.0).abs() < 1e-12 && s.at(4.0) == 0.0);
        assert!((s.at(2.0) - 0.5).abs() < 1e-5);
        assert!((s.at(2.5) - 0.375).abs() < 1e-5);
        // Linear interpolation spreads each epoch's stops over the epoch
        // before it: the integral of F^c is E[W] - 1/2.
        assert!((s.mean() - 2.0).abs() < 1e-5, "{}", s.mean());
        assert!((dist().mean() - 2.5).abs() < 1e-12);
        for w in [0.3, 1.0, 2.7, 3.9] {
            assert!((s.inverse(s.at(w)) - w).abs() < 1e-9, "{w}");
        }
        // Strictly decreasing even where the pmf is zero.
        let d = EpochDistribution::new(vec![0.0, 0.0, 0.0, 1.0]).unwrap();
        let s = d.survival();
        assert!(s.at(1.0) < 1.0 && s.at(2.0) < s.at(1.0));
    }

    #[test]
    fn bad_distributions_are_refused() {
        let e = EpochDistribution::new(vec![0.0, 0.5, 0.4])
            .unwrap_err()
            .to_string();
        assert!(e.contains("not normalised"), "{e}");
        assert!(EpochDistribution::new(vec![0.5, -0.5, 1.0]).is_err());
    }

    #[test]
    fn quantile_samples_by_inverse_transform() {
        let d = dist();
        assert_eq!(
            (d.quantile(0.0), d.quantile(0.3), d.quantile(0.99)),
            (1, 2, 4)
        );
    }
}
