//! Batch size and gradient-accumulation choice for an allocation
//! (spec seed004-sia.md §2.2.3, AdaptDL `GoodputFunction.optimize`; the
//! rigid rule of the Pollux simulator's `Job.update_local_bsz`, see
//! `specs/pollux-simulator-notes.md`).

use serde::{Deserialize, Serialize};

/// Tolerance of the artifact's floor/ceil operations.
const EPS: f64 = 1e-8;
/// Candidate global batch sizes tried by the optimiser (numpy's geomspace default).
pub const CANDIDATES: usize = 50;

/// The batch limits of one job on one GPU type.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BatchLimits {
    /// M0: the initial global batch (efficiency is relative to it).
    pub init: u32,
    /// M_max: the largest global batch.
    pub max: u32,
    /// m_min: the smallest profiled per-GPU batch.
    pub min_local: u32,
    /// m_max: the largest per-GPU batch that fits in memory on this type.
    pub max_local: u32,
}

/// How one optimizer step is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchPlan {
    pub replicas: u32,
    /// Per-GPU batch of one pass.
    pub atomic: u32,
    /// Extra accumulation passes before the synchronised one.
    pub accum: u32,
}

impl BatchPlan {
    /// M = K·m·(a+1).
    pub fn global(&self) -> u64 {
        self.replicas as u64 * self.atomic as u64 * (self.accum as u64 + 1)
    }
}

fn ceil_eps(x: f64) -> f64 {
    (x - EPS).ceil()
}

/// The cap both simulators apply after choosing: m ≤ ⌊M_max/(K·(a+1))⌋ (at least 1).
fn cap_to_max(plan: &mut BatchPlan, max_batch: u32) {
    let count = plan.replicas as u64 * (plan.accum as u64 + 1);
    let cap = (max_batch as u64 / count.max(1)).max(1) as u32;
    plan.atomic = plan.atomic.min(cap);
}

/// The plan for a fixed global batch `batch` on `replicas` GPUs (rigid
/// and strong-scaling jobs): local = ⌈B/K⌉, a = ⌈local/m_max⌉ − 1 (at least
/// 1 when one replica runs more than M0), m = ⌈local/(a+1)⌉, then capped
/// at ⌊M_max/(K·(a+1))⌋. A batch above M_max is first cut to M_max (the
/// simulators never see one; their cap would make m = 0).
pub fn rigid(batch: u32, replicas: u32, lim: &BatchLimits) -> BatchPlan {
    let k = replicas.max(1);
    let batch = if lim.max > 0 {
        batch.min(lim.max)
    } else {
        batch
    };
    let local = ceil_eps(batch.max(1) as f64 / k as f64);
    let mut accum = (ceil_eps(local / lim.max_local.max(1) as f64) - 1.0).max(0.0);
    if k == 1 && batch > lim.init {
        accum = accum.max(1.0);
    }
    let atomic = ceil_eps(local / (accum + 1.0)).max(1.0);
    let mut plan = BatchPlan {
        replicas: k,
        atomic: atomic as u32,
        accum: accum as u32,
    };
    cap_to_max(&mut plan, lim.max);
    plan
}

/// The candidate plans of the optimiser for `replicas` GPUs and global
/// batches up to `max_batch`, with their validity (m_min ≤ m ≤ m_max).
pub fn candidates(replicas: u32, lim: &BatchLimits, max_batch: u32) -> Vec<(BatchPlan, bool)> {
    let k = replicas.max(1);
    let lo = (lim.init as f64).max(lim.min_local as f64 * k as f64);
    let hi = max_batch.max(1) as f64;
    let mut out = Vec::with_capacity(CANDIDATES);
    for i in 0..CANDIDATES {
        let t = i as f64 / (CANDIDATES - 1) as f64;
        // numpy.geomspace: lo·(hi/lo)^t, exact at both ends.
        let m = if i == 0 {
            lo
        } else if i == CANDIDATES - 1 {
            hi
        } else {
            lo * schedlab_core::num::pow(hi / lo, t)
        };
        let local = m / k as f64;
        let mut accum = (ceil_eps(local / lim.max_local.max(1) as f64) - 1.0).max(0.0);
        if k == 1 && local > lim.init as f64 + EPS {
            accum = accum.max(1.0);
        }
        let atomic = ceil_eps(local / (accum + 1.0)).max(1.0);
        let valid = atomic >= lim.min_local as f64 && atomic <= lim.max_local as f64;
        out.push((
            BatchPlan {
                replicas: k,
                atomic: atomic as u32,
                accum: accum as u32,
            },
            valid,
        ));
    }
    out
}

/// The goodput-optimal plan (adaptive jobs): the valid candidate with the
/// largest `goodput` (first on ties, like numpy's argmax); if none is
/// valid, the first candidate (the artifact does the same: all goodputs
/// are 0 and argmax picks index 0). Then the artifact's clamps: m at most
/// `max_local_here` (the largest profiled local batch for this replica
/// count) and at most ⌊M_max/(K·(a+1))⌋. Returns the plan and its goodput
/// as computed before the clamps (the estimate a policy ranks by).
pub fn optimize(
    replicas: u32,
    lim: &BatchLimits,
    max_batch: u32,
    max_local_here: u32,
    mut goodput: impl FnMut(&BatchPlan) -> f64,
) -> (BatchPlan, f64) {
    let cands = candidates(replicas, lim, max_batch);
    optimize_over(&cands, max_batch, max_local_here, |_, p| goodput(p))
}

/// [`optimize`] over candidates the caller already has (from
/// [`candidates`] with the same replicas, limits and `max_batch`); the
/// goodput function also gets the candidate's index, so a caller can keep
/// per-candidate work (step times) between calls.
pub fn optimize_over(
    cands: &[(BatchPlan, bool)],
    max_batch: u32,
    max_local_here: u32,
    mut goodput: impl FnMut(usize, &BatchPlan) -> f64,
) -> (BatchPlan, f64) {
    let mut best: Option<(BatchPlan, f64)> = None;
    for (i, (plan, valid)) in cands.iter().enumerate() {
        if !valid {
            continue;
        }
        let g = goodput(i, plan);
        if best.is_none_or(|(_, b)| g > b) {
            best = Some((*plan, g));
        }
    }
    let (mut plan, g) = match best {
        Some(b) => b,
        None => (cands[0].0, 0.0),
    };
    plan.atomic = plan.atomic.min(max_local_here.max(1));
    cap_to_max(&mut plan, max_batch);
    (plan, g)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yolo() -> BatchLimits {
        BatchLimits {
            init: 8,
            max: 512,
            min_local: 4,
            max_local: 8,
        }
    }

    #[test]
    fn rigid_rule_of_the_pollux_simulator() {
        // yolov3, 4 replicas, B = 64, max local 8: local 16 -> 1 accumulation pass of 8.
        let p = rigid(64, 4, &yolo());
        assert_eq!((p.atomic, p.accum), (8, 1));
        assert_eq!(p.global(), 64);
        // One replica above M0: at least one accumulation pass.
        let p = rigid(16, 1, &yolo());
        assert_eq!((p.atomic, p.accum), (8, 1));
        // One replica at M0: none.
        let p = rigid(8, 1, &yolo());
        assert_eq!((p.atomic, p.accum), (8, 0));
        // cifar10 B = 2048 on 6 GPUs: local ceil(341.3) = 342, no accumulation.
        let cifar = BatchLimits {
            init: 128,
            max: 4096,
            min_local: 32,
            max_local: 1024,
        };
        let p = rigid(2048, 6, &cifar);
        assert_eq!((p.atomic, p.accum), (342, 0));
        // Cap: B above M_max on many replicas is cut to M_max.
        let p = rigid(4096, 3, &BatchLimits { max: 4000, ..cifar });
        assert!(p.global() <= 4096);
    }

    #[test]
    fn candidates_span_the_range_geometrically() {
        let c = candidates(2, &yolo(), 512);
        assert_eq!(c.len(), CANDIDATES);
        // lo = max(8, 4·2) = 8: local 4 -> valid; hi = 512: local 256 -> 32 passes of 8.
        assert_eq!(c[0].0.atomic, 4);
        assert!(c[0].1);
        let last = c[CANDIDATES - 1].0;
        assert_eq!(last.accum, 31);
        assert_eq!(last.atomic, 8);
        assert_eq!(last.global(), 512);
    }

    #[test]
    fn optimize_picks_the_best_valid_candidate_and_caps() {
        // Goodput rising in M: the optimiser takes the largest batch.
        let (p, g) = optimize(2, &yolo(), 512, 8, |p| p.global() as f64);
        assert_eq!(p.global(), 512);
        assert_eq!(g, 512.0);
        // Falling in M: the smallest.
        let (p, _) = optimize(2, &yolo(), 512, 8, |p| -(p.global() as f64));
        assert_eq!(p.global(), 8);
        // A per-replica-count clamp of 6 applies after the choice.
        let (p, _) = optimize(2, &yolo(), 512, 6, |p| p.global() as f64);
        assert_eq!(p.atomic, 6);
        // Nothing valid (a split local batch falls below m_min): the first candidate.
        let lim = BatchLimits {
            init: 17,
            max: 17,
            min_local: 16,
            max_local: 16,
        };
        let (p, g) = optimize(1, &lim, 17, 16, |_| 1.0);
        assert_eq!(g, 0.0);
        // local 17 -> 2 passes of 9, capped at floor(17/2) = 8.
        assert_eq!((p.atomic, p.accum), (8, 1));
        assert_eq!(p.replicas, 1);
    }
}
