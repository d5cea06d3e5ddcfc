//! PCS's weighted fair queueing (spec seed001 §2.2; the artifact's `MCS`
//! scheduler) as a pure function: a class configuration and the active jobs
//! in, each job's fluid (fractional) GPU share out.
//!
//! - **Classes.** A job of size s (its run time on one GPU, in seconds)
//!   joins the first class i with s <= t_i; the last class is unbounded.
//! - **Across classes: weighted water-filling.** Class i is offered w_i·C;
//!   what a class cannot use (its jobs' demands are smaller) is shared out
//!   again among the unsatisfied classes in proportion to their weights
//!   (at most 100 rounds, tolerance 1e-3 GPU as the artifact). A class with
//!   pending demand therefore always gets at least min(w_i·C, its demand):
//!   the guaranteed share that bounds how much later arrivals can delay it.
//! - **Within a class: FIFO with a demand cap.** In arrival order each job
//!   gets at most its cap: the largest k with efficiency speedup(g)/g >= ζ
//!   for every g <= k. If capacity is left over, ζ is lowered by δ and the
//!   pass is redone, until the class's share is used (ζ <= 0 lifts the cap
//!   to the job's whole demand).
//!
//! The order follows the artifact's code (across classes first, then the
//! cap relaxation), which the spec (§7.6) recommends over the paper's prose.

use schedlab_core::error::{Error, Result};
use std::borrow::Borrow;

/// Water-filling tolerance and round limit of the artifact.
const TOL: f64 = 1e-3;
const MAX_ROUNDS: usize = 100;

/// One WFQ configuration (the search's decision, or an operator's pick).
#[derive(Debug, Clone, PartialEq)]
pub struct WfqConfig {
    /// Upper size bounds of classes 0..K-1 (1-GPU seconds), increasing;
    /// class K-1 (the last) is unbounded, so there are `thresholds.len() + 1` classes.
    pub thresholds: Vec<f64>,
    /// Class weights, one per class, positive, summing to 1.
    pub weights: Vec<f64>,
    /// ζ_min: the efficiency below which a job's share is capped.
    pub clip: f64,
    /// δ: the step by which ζ is relaxed.
    pub delta: f64,
}

impl WfqConfig {
    /// Checks and normalises a configuration (weights are scaled to sum 1).
    /// The error names the offending field as `pcs.FIELD`.
    pub fn new(thresholds: &[f64], weights: &[f64], clip: f64, delta: f64) -> Result<WfqConfig> {
        let bad = |field: &str, why: String| Error::config(format!("pcs.{field}: {why}"));
        if let Some(i) = thresholds.iter().position(|t| !(t.is_finite() && *t > 0.0)) {
            return Err(bad(
                "thresholds",
                format!("item {} must be a positive number of seconds", i + 1),
            ));
        }
        if let Some(i) = thresholds.windows(2).position(|w| w[1] <= w[0]) {
            return Err(bad(
                "thresholds",
                format!(
                    "must be increasing, but item {} ({}) is not above item {} ({})",
                    i + 2,
                    thresholds[i + 1],
                    i + 1,
                    thresholds[i]
                ),
            ));
        }
        let classes = thresholds.len() + 1;
        if weights.len() != classes {
            return Err(bad(
                "weights",
                format!(
                    "{} thresholds make {classes} classes, so give {classes} weights (got {})",
                    thresholds.len(),
                    weights.len()
                ),
            ));
        }
        if let Some(i) = weights.iter().position(|w| !(w.is_finite() && *w > 0.0)) {
            return Err(bad(
                "weights",
                format!(
                    "item {} must be above 0 (every class needs a guaranteed share)",
                    i + 1
                ),
            ));
        }
        if !(0.0..=1.0).contains(&clip) {
            return Err(bad("clip", format!("{clip} is not in [0, 1]")));
        }
        if !(delta > 0.0 && delta <= 1.0) {
            return Err(bad("delta", format!("{delta} is not in (0, 1]")));
        }
        let sum: f64 = weights.iter().sum();
        Ok(WfqConfig {
            thresholds: thresholds.to_vec(),
            weights: weights.iter().map(|w| w / sum).collect(),
            clip,
            delta,
        })
    }

    pub fn classes(&self) -> usize {
        self.weights.len()
    }

    /// The class of a job of `size` 1-GPU seconds.
    pub fn class_of(&self, size: f64) -> usize {
        self.thresholds
            .iter()
            .position(|t| size <= *t)
            .unwrap_or(self.thresholds.len())
    }
}

/// What the allocation needs to know about one active job.
#[derive(Debug, Clone)]
pub struct FluidJob {
    pub class: usize,
    /// Most GPUs the job can use (its demand).
    pub demand: u32,
    /// speedup(g) / g for g = 1..=demand (1 at g = 1); shared, since a
    /// job's curve is made once and copied into every fork of the policy.
    pub efficiency: std::sync::Arc<[f64]>,
}

impl FluidJob {
    /// The demand cap at efficiency threshold `z` (at least 1 GPU).
    fn cap(&self, z: f64) -> f64 {
        match self.efficiency.iter().position(|e| *e < z) {
            Some(g) => g.max(1) as f64,
            None => self.demand as f64,
        }
    }
}

/// Each class's share of `capacity` GPUs: weighted water-filling on the
/// classes' summed demands.
pub fn class_shares<J: Borrow<FluidJob>>(cfg: &WfqConfig, capacity: f64, jobs: &[J]) -> Vec<f64> {
    let mut demand = vec![0.0; cfg.classes()];
    for j in jobs.iter().map(J::borrow) {
        demand[j.class] += j.demand as f64;
    }
    shares_of_demands(cfg, capacity, demand)
}

/// [`class_shares`] from the classes' summed demands (GPUs).
pub fn shares_of_demands(cfg: &WfqConfig, capacity: f64, mut demand: Vec<f64>) -> Vec<f64> {
    let k = cfg.classes();
    let mut rate: Vec<f64> = cfg.weights.iter().map(|w| w * capacity).collect();
    let mut share = vec![0.0; k];
    let mut residual = capacity;
    let mut total: f64 = demand.iter().sum();
    for _ in 0..MAX_ROUNDS {
        if residual <= TOL || total <= TOL {
            break;
        }
        for i in 0..k {
            let mut x = rate[i].min(demand[i]);
            if x < TOL {
                x = 0.0;
            }
            share[i] += x;
            demand[i] -= x;
            residual -= x;
            total -= x;
            if demand[i] < TOL {
                rate[i] = 0.0;
                demand[i] = 0.0;
            }
        }
        if residual <= TOL || total <= TOL {
            break;
        }
        let r: f64 = rate.iter().sum();
        if r <= 0.0 {
            break;
        }
        for x in rate.iter_mut() {
            *x = residual * *x / r;
        }
    }
    share
}

/// Each job's fluid share (same order as `jobs`, which must be in arrival
/// order): class shares by water-filling, then FIFO within each class
/// under the relaxing demand cap. Takes the jobs or references to them (a
/// policy's cached descriptions are read, not copied, at every call).
pub fn fluid_allocation<J: Borrow<FluidJob>>(
    cfg: &WfqConfig,
    capacity: f64,
    jobs: &[J],
) -> Vec<f64> {
    fluid_allocation_and_shares(cfg, capacity, jobs).1
}

/// [`fluid_allocation`] with the [`class_shares`] it served (the reasons
/// show both).
pub fn fluid_allocation_and_shares<J: Borrow<FluidJob>>(
    cfg: &WfqConfig,
    capacity: f64,
    jobs: &[J],
) -> (Vec<f64>, Vec<f64>) {
    let shares = class_shares(cfg, capacity, jobs);
    let jobs: Vec<&FluidJob> = jobs.iter().map(J::borrow).collect();
    let mut alloc = vec![0.0; jobs.len()];
    for (class, &share) in shares.iter().enumerate() {
        let members: Vec<usize> = (0..jobs.len())
            .filter(|&i| jobs[i].class == class)
            .collect();
        let mut z = cfg.clip;
        loop {
            let mut left = share;
            for &i in &members {
                let x = left.min(jobs[i].cap(z)).max(0.0);
                alloc[i] = x;
                left -= x;
            }
            // Below ζ = 0 every cap is the whole demand: nothing more to relax.
            if left <= 1e-9 || z <= 0.0 {
                break;
            }
            z -= cfg.delta;
        }
    }
    (shares, alloc)
}

/// The jobs [`fluid_allocation`] gives a positive share, with their shares,
/// from each class's summed demand (GPUs) and its jobs in arrival order:
/// the same shares to the bit, at a cost that follows the jobs served
/// rather than the queue. A class's FIFO pass stops where its share runs
/// out (every later job would get 0), so a fork of a long queue no longer
/// visits every queued job at every event. Grouped by class, each class in
/// arrival order. Also returns the [`class_shares`] it served (the reasons
/// show both): (shares, served).
pub fn leading_allocation<'a, I>(
    cfg: &WfqConfig,
    capacity: f64,
    demand: Vec<f64>,
    mut members: impl FnMut(usize) -> I,
) -> (Vec<f64>, Vec<(u32, f64)>)
where
    I: Iterator<Item = (u32, &'a FluidJob)>,
{
    let shares = shares_of_demands(cfg, capacity, demand);
    let mut out = Vec::new();
    for (class, &share) in shares.iter().enumerate() {
        let start = out.len();
        let mut z = cfg.clip;
        loop {
            out.truncate(start);
            // `left` never goes below 0 (a share is at most what is left),
            // and at 0 every later job's share is 0.
            let mut left = share;
            for (id, job) in members(class) {
                if left <= 0.0 {
                    break;
                }
                let x = left.min(job.cap(z)).max(0.0);
                left -= x;
                if x > 0.0 {
                    out.push((id, x));
                }
            }
            if left <= 1e-9 || z <= 0.0 {
                break;
            }
            z -= cfg.delta;
        }
    }
    (shares, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linear(class: usize, demand: u32) -> FluidJob {
        FluidJob {
            class,
            demand,
            efficiency: vec![1.0; demand as usize].into(),
        }
    }

    #[test]
    fn one_class_is_fifo() {
        let cfg = WfqConfig::new(&[], &[1.0], 0.5, 0.1).unwrap();
        let jobs = [linear(0, 3), linear(0, 4), linear(0, 2)];
        assert_eq!(fluid_allocation(&cfg, 6.0, &jobs), vec![3.0, 3.0, 0.0]);
    }

    #[test]
    fn guaranteed_shares_and_work_conservation() {
        // Two classes 3:1 on 8 GPUs: the big job's class keeps 2 GPUs even
        // though the small class could use everything.
        let cfg = WfqConfig::new(&[100.0], &[3.0, 1.0], 0.0, 0.1).unwrap();
        let jobs = [linear(0, 8), linear(1, 8)];
        assert_eq!(fluid_allocation(&cfg, 8.0, &jobs), vec![6.0, 2.0]);
        // A class that needs less gives the rest away.
        let jobs = [linear(0, 1), linear(1, 8)];
        let a = fluid_allocation(&cfg, 8.0, &jobs);
        assert!(
            (a[0] - 1.0).abs() < 1e-9 && (a[1] - 7.0).abs() < 1e-9,
            "{a:?}"
        );
        // Unequal leftovers are redistributed in proportion to weight.
        let cfg3 = WfqConfig::new(&[10.0, 100.0], &[0.5, 0.25, 0.25], 0.0, 0.1).unwrap();
        let jobs = [linear(0, 1), linear(1, 10), linear(2, 10)];
        let a = fluid_allocation(&cfg3, 8.0, &jobs);
        assert!((a[0] - 1.0).abs() < 1e-6, "{a:?}");
        assert!(
            (a[1] - 3.5).abs() < 1e-2 && (a[2] - 3.5).abs() < 1e-2,
            "{a:?}"
        );
    }

    #[test]
    fn the_cap_stops_at_low_efficiency_and_relaxes_when_capacity_is_left() {
        // Efficiency 1, 0.9, 0.6, 0.5: with ζ = 0.8 the cap is 2 GPUs.
        let sub = FluidJob {
            class: 0,
            demand: 4,
            efficiency: vec![1.0, 0.9, 0.6, 0.5].into(),
        };
        let cfg = WfqConfig::new(&[], &[1.0], 0.8, 0.1).unwrap();
        let a = fluid_allocation(&cfg, 5.0, &[sub.clone(), linear(0, 3)]);
        assert_eq!(a, vec![2.0, 3.0]);
        // One GPU more than the capped pass uses: ζ relaxes to 0.7 (cap
        // still 2), then 0.6, which lifts the cap to 3 (0.6 is not below 0.6).
        let a = fluid_allocation(&cfg, 6.0, &[sub.clone(), linear(0, 3)]);
        assert_eq!(a, vec![3.0, 3.0]);
        // Alone, it ends up with its whole demand when capacity allows.
        assert_eq!(
            fluid_allocation(&cfg, 5.0, std::slice::from_ref(&sub)),
            vec![4.0]
        );
        assert_eq!(fluid_allocation(&cfg, 2.5, &[sub]), vec![2.5]);
    }

    #[test]
    fn leading_allocation_equals_the_full_pass_to_the_bit() {
        let mut rng = schedlab_core::rng::Sampler::new(5);
        for case in 0..3_000 {
            let k = 1 + rng.below(4) as usize;
            let thresholds: Vec<f64> = (1..k).map(|i| i as f64 * 100.0).collect();
            let weights: Vec<f64> = (0..k).map(|_| 1.0 + rng.below(50) as f64).collect();
            let clip = rng.below(11) as f64 / 10.0;
            let delta = [0.01, 0.1, 0.23536, 0.9][rng.below(4) as usize];
            let cfg = WfqConfig::new(&thresholds, &weights, clip, delta).unwrap();
            let n = rng.below(60) as usize;
            let jobs: Vec<FluidJob> = (0..n)
                .map(|_| {
                    let demand = 1 + rng.below(16) as u32;
                    let mut e = 1.0;
                    let efficiency: Vec<f64> = (0..demand)
                        .map(|g| {
                            if g > 0 {
                                e *= 0.7 + 0.3 * rng.uniform();
                            }
                            e
                        })
                        .collect();
                    FluidJob {
                        class: rng.below(k as u64) as usize,
                        demand,
                        efficiency: efficiency.into(),
                    }
                })
                .collect();
            let capacity = [1.0, 8.0, 64.0, 13.5][rng.below(4) as usize];
            let full = fluid_allocation(&cfg, capacity, &jobs);
            let mut demand = vec![0u64; k];
            for j in &jobs {
                demand[j.class] += j.demand as u64;
            }
            let (_, mut lead) = leading_allocation(
                &cfg,
                capacity,
                demand.iter().map(|&d| d as f64).collect(),
                |c| {
                    jobs.iter()
                        .enumerate()
                        .filter(move |(_, j)| j.class == c)
                        .map(|(i, j)| (i as u32, j))
                },
            );
            lead.sort_by_key(|&(i, _)| i);
            let positive: Vec<(u32, f64)> = full
                .iter()
                .enumerate()
                .filter(|(_, a)| **a > 0.0)
                .map(|(i, a)| (i as u32, *a))
                .collect();
            assert_eq!(lead, positive, "case {case}");
            assert!(full.iter().all(|a| *a >= 0.0), "case {case}");
        }
    }

    #[test]
    fn classes_by_size() {
        let cfg = WfqConfig::new(&[100.0, 1000.0], &[1.0, 1.0, 1.0], 0.0, 0.5).unwrap();
        assert_eq!(
            [1.0, 100.0, 100.5, 1000.0, 1e9].map(|s| cfg.class_of(s)),
            [0, 0, 1, 1, 2]
        );
        assert!((cfg.weights.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn bad_configurations_name_the_field() {
        let e = WfqConfig::new(&[100.0, 50.0], &[1.0, 1.0, 1.0], 0.0, 0.1).unwrap_err();
        assert!(
            e.to_string().contains("pcs.thresholds: must be increasing"),
            "{e}"
        );
        let e = WfqConfig::new(&[100.0], &[1.0], 0.0, 0.1).unwrap_err();
        assert!(
            e.to_string()
                .contains("pcs.weights: 1 thresholds make 2 classes"),
            "{e}"
        );
        let e = WfqConfig::new(&[100.0], &[1.0, 0.0], 0.0, 0.1).unwrap_err();
        assert!(
            e.to_string()
                .contains("pcs.weights: item 2 must be above 0"),
            "{e}"
        );
        let e = WfqConfig::new(&[0.0], &[1.0, 1.0], 0.0, 0.1).unwrap_err();
        assert!(e.to_string().contains("pcs.thresholds: item 1"), "{e}");
    }
}
