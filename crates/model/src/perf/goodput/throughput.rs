//! The Pollux 7-parameter throughput model (spec seed004-sia.md §2.2.2,
//! equations E4 to E8; identical to AdaptDL's `goodput.py`).
//!
//! A data-parallel step on K replicas over n nodes with atomic (per-GPU)
//! batch m and `a` extra gradient-accumulation passes takes
//! `T_step = a·T_grad(m) + (T_grad^γ + T_sync^γ)^(1/γ)`: the accumulation
//! passes run without synchronisation, the last pass overlaps its
//! all-reduce with the backward pass to a degree set by γ.

use schedlab_core::num;
use serde::{Deserialize, Serialize};

/// θ = (α_c, β_c, α_n, β_n, α_r, β_r, γ) for one (model, GPU type).
/// Times in seconds, batch sizes per GPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PerfParams {
    /// Fixed cost of one forward+backward pass.
    pub alpha_c: f64,
    /// Cost per sample of one forward+backward pass.
    pub beta_c: f64,
    /// Inter-node all-reduce: fixed cost and cost per replica beyond 2.
    pub alpha_n: f64,
    pub beta_n: f64,
    /// Intra-node all-reduce: fixed cost and cost per replica beyond 2.
    pub alpha_r: f64,
    pub beta_r: f64,
    /// Compute/communication overlap: 1 = none (sum), 10 ≈ max().
    pub gamma: f64,
}

/// The synchronisation time of a single replica (AdaptDL uses 1e-8, not 0,
/// so that the log in the fit stays finite).
pub const SOLO_SYNC_S: f64 = 1e-8;

impl PerfParams {
    /// The parameters as an array in θ order.
    pub fn to_array(&self) -> [f64; 7] {
        [
            self.alpha_c,
            self.beta_c,
            self.alpha_n,
            self.beta_n,
            self.alpha_r,
            self.beta_r,
            self.gamma,
        ]
    }

    pub fn from_array(a: [f64; 7]) -> PerfParams {
        PerfParams {
            alpha_c: a[0],
            beta_c: a[1],
            alpha_n: a[2],
            beta_n: a[3],
            alpha_r: a[4],
            beta_r: a[5],
            gamma: a[6],
        }
    }

    /// (E4) forward+backward time of one atomic batch of `m` samples.
    pub fn t_grad(&self, m: f64) -> f64 {
        self.alpha_c + self.beta_c * m
    }

    /// (E5) all-reduce time for K replicas over n nodes.
    pub fn t_sync(&self, nodes: u32, replicas: u32) -> f64 {
        let extra = replicas.saturating_sub(2) as f64;
        if replicas <= 1 {
            SOLO_SYNC_S
        } else if nodes > 1 {
            self.alpha_n + self.beta_n * extra
        } else {
            self.alpha_r + self.beta_r * extra
        }
    }

    /// (E6) time of one synchronised pass: (T_grad^γ + T_sync^γ)^(1/γ),
    /// computed in log space so γ up to 10 cannot overflow.
    pub fn t_iter(&self, nodes: u32, replicas: u32, m: f64) -> f64 {
        overlap(self.t_grad(m), self.t_sync(nodes, replicas), self.gamma)
    }

    /// (E7) time of one optimizer step with `accum` extra accumulation passes.
    pub fn t_step(&self, nodes: u32, replicas: u32, m: f64, accum: u32) -> f64 {
        accum as f64 * self.t_grad(m) + self.t_iter(nodes, replicas, m)
    }

    /// (E8) samples per second.
    pub fn throughput(&self, nodes: u32, replicas: u32, m: f64, accum: u32) -> f64 {
        let global = replicas as f64 * m * (accum as f64 + 1.0);
        global / self.t_step(nodes, replicas, m, accum)
    }
}

/// (g^γ + s^γ)^(1/γ) for positive g, s, evaluated as exp(logsumexp(γ ln g, γ ln s)/γ).
pub fn overlap(g: f64, s: f64, gamma: f64) -> f64 {
    let (u, v) = (gamma * num::ln(g), gamma * num::ln(s));
    num::exp(num::log_sum_exp(u, v) / gamma)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn theta() -> PerfParams {
        PerfParams {
            alpha_c: 0.1,
            beta_c: 0.01,
            alpha_n: 0.5,
            beta_n: 0.05,
            alpha_r: 0.2,
            beta_r: 0.02,
            gamma: 1.0,
        }
    }

    #[test]
    fn equations_by_hand() {
        let p = theta();
        assert!((p.t_grad(10.0) - 0.2).abs() < 1e-12);
        assert_eq!(p.t_sync(1, 1), SOLO_SYNC_S);
        assert!((p.t_sync(1, 4) - 0.24).abs() < 1e-12);
        assert!((p.t_sync(2, 4) - 0.6).abs() < 1e-12);
        assert!((p.t_sync(3, 2) - 0.5).abs() < 1e-12);
        // gamma = 1: plain sum.
        assert!((p.t_iter(2, 4, 10.0) - 0.8).abs() < 1e-12);
        // One accumulation pass adds one T_grad.
        assert!((p.t_step(2, 4, 10.0, 1) - 1.0).abs() < 1e-12);
        // 4 replicas x 10 samples x 2 passes in 1 s.
        assert!((p.throughput(2, 4, 10.0, 1) - 80.0).abs() < 1e-9);
    }

    #[test]
    fn large_gamma_tends_to_max() {
        let v = overlap(0.3, 0.2, 10.0);
        assert!(v > 0.3 && v < 0.3 * 1.01, "{v}");
        let v1 = overlap(0.3, 0.2, 1.0);
        assert!((v1 - 0.5).abs() < 1e-12);
        // No overflow for tiny or large inputs.
        assert!(overlap(1e-8, 1e3, 10.0).is_finite());
    }
}
