//! STS (spec seed002) and the baselines its paper compares against: EDF,
//! Randomized Greedy and the DP-based method, each also as an avg* variant
//! that plans on the mean epoch count.
//!
//! This module holds what they share: a job's facts at a scheduling point
//! in epochs (done, maximum, law, due date, weight) and its configurations
//! (GPU type, count) with speeds, prices and remaining times.
//! - [`staircase`]: the single-job stochastic model (exact solver);
//! - [`sts`]: STS itself (Algorithms 2 and 3, packing, post-processing);
//! - [`edf`], [`rg`], [`dp`]: the baselines.

pub mod dp;
pub mod edf;
pub mod rg;
pub mod staircase;
#[allow(clippy::module_inception)]
pub mod sts;

use schedlab_model::cluster::GpuKind;
use schedlab_model::perf::epochs::{EpochDistribution, Survival};
use schedlab_sim::View;
use std::collections::BTreeMap;

/// Epochs a job without an epoch law is planned in (its work normalised).
const NOMINAL_EPOCHS: usize = 100;

/// Dollars per hour of `gpus` GPUs of `kind` on one node, for planning:
/// the zoo's node cost (`perf::price`), else 1 per GPU.
pub fn planning_price(
    prices: &schedlab_model::perf::price::PriceTable,
    kind: GpuKind,
    gpus: u32,
) -> f64 {
    prices.usd_h(kind, gpus).unwrap_or(gpus as f64)
}

/// How a baseline estimates the time a job has left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Times {
    /// The full maximum epochs (worst case), as the paper's baselines.
    Worst,
    /// The mean epoch count until the job has run that long, then the
    /// worst case (the avg* variants).
    Mean,
}

/// What a scheduler knows of one active job, in epochs.
#[derive(Debug, Clone)]
pub struct Facts {
    pub job: u32,
    /// Epochs per unit of the job's work.
    pub per_work: f64,
    pub done: f64,
    pub max: f64,
    /// E[W].
    pub mean: f64,
    /// Due date (absolute seconds; infinity without one).
    pub due: f64,
    /// Tardiness weight, $/s.
    pub eta: f64,
}

impl Facts {
    /// Epochs the job is planned to have left.
    pub fn left(&self, times: Times) -> f64 {
        match times {
            Times::Mean if self.done < self.mean => self.mean - self.done,
            _ => (self.max - self.done).max(0.0),
        }
    }
}

/// Survival functions by model, built once per policy.
#[derive(Debug, Clone, Default)]
pub struct Laws {
    by_model: BTreeMap<u16, (Survival, f64)>,
}

impl Laws {
    /// The job's facts (its model's survival function is cached on the way).
    pub fn facts(&mut self, view: &View, job: u32) -> Facts {
        let model = view.model_id(job);
        let (survival, mean) = self.by_model.entry(model.0).or_insert_with(|| {
            let law = view.epoch_law(job).cloned().unwrap_or_else(|| {
                let mut pmf = vec![0.0; NOMINAL_EPOCHS + 1];
                pmf[NOMINAL_EPOCHS] = 1.0;
                EpochDistribution::new(pmf).expect("a certain law is valid")
            });
            (law.survival(), law.mean())
        });
        let max = survival.max_epochs();
        let declared = view.declared_work(job).max(f64::MIN_POSITIVE);
        let per_work = max / declared;
        let spec = view.spec(job);
        Facts {
            job,
            per_work,
            done: ((declared - view.declared_remaining_work(job)) * per_work).clamp(0.0, max),
            max,
            mean: *mean,
            due: spec.due.unwrap_or(f64::INFINITY),
            eta: spec.weight,
        }
    }

    /// The survival function of the job's model; `facts` must have been
    /// asked for a job of that model first.
    pub fn survival(&self, view: &View, job: u32) -> &Survival {
        &self.by_model[&view.model_id(job).0].0
    }
}

/// One (GPU type, count) a job could run on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    pub kind: GpuKind,
    pub gpus: u32,
    /// Epochs per second.
    pub speed: f64,
    /// Dollars per second.
    pub cost: f64,
}

/// Every configuration of a job on one node (single-node placement, STS's
/// rule): each type of the cluster the job has a rate on, 1 to the largest
/// node of that type (and the job's limit).
pub fn configs(view: &View, f: &Facts) -> Vec<Config> {
    let batch = view.natural_batch(f.job);
    let limit = view.max_useful_gpus(f.job);
    let mut out = Vec::new();
    for &kind in &view.cluster().kinds {
        let top = view.cluster().max_node_gpus(kind).min(limit);
        for gpus in 1..=top {
            let speed = view.rate_with(f.job, kind, gpus, batch) * f.per_work;
            if speed > 0.0 {
                out.push(Config {
                    kind,
                    gpus,
                    speed,
                    cost: planning_price(view.prices(), kind, gpus) / 3600.0,
                });
            }
        }
    }
    out
}

/// STS's pressure index (Eq. 27): now + the fastest remaining worst-case
/// time - the due date; larger is more urgent. With `weighted`, a positive
/// index is multiplied by the job's weight.
pub fn pressure(now: f64, f: &Facts, configs: &[Config], weighted: bool) -> f64 {
    let fastest = configs.iter().map(|c| c.speed).fold(0.0, f64::max);
    if fastest <= 0.0 || !f.due.is_finite() {
        return f64::NEG_INFINITY;
    }
    let d = now + (f.max - f.done) / fastest - f.due;
    if weighted && d > 0.0 {
        d * f.eta
    } else {
        d
    }
}

/// Jobs by decreasing pressure (ties by id).
pub fn by_pressure(mut items: Vec<(f64, u32)>) -> Vec<u32> {
    schedlab_core::sorting::sort_by(&mut items, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    items.into_iter().map(|(_, j)| j).collect()
}

/// The baselines' rule for one job (spec §3): the cheapest configuration
/// (price x remaining time) that meets the due date, else the fastest;
/// candidates in that order of preference.
pub fn greedy_order(now: f64, f: &Facts, configs: &[Config], times: Times) -> Vec<Config> {
    let left = f.left(times);
    let (mut meet, mut late): (Vec<Config>, Vec<Config>) =
        configs.iter().partition(|c| now + left / c.speed <= f.due);
    schedlab_core::sorting::sort_by(&mut meet, |a, b| {
        (a.cost / a.speed)
            .total_cmp(&(b.cost / b.speed))
            .then(a.gpus.cmp(&b.gpus))
    });
    schedlab_core::sorting::sort_by(&mut late, |a, b| {
        b.speed.total_cmp(&a.speed).then(a.cost.total_cmp(&b.cost))
    });
    meet.extend(late);
    meet
}

/// A complete plan: every job that should hold GPUs, with its placement.
pub type PlanRows = Vec<(
    u32,
    schedlab_model::cluster::Placement,
    Option<schedlab_model::perf::BatchChoice>,
)>;

/// The start of a re-plan: a packer with running jobs' GPUs reserved, and
/// the running jobs that may not be preempted already in the plan (they keep
/// their GPUs until they finish; the engine enforces it).
pub fn start_plan<'a>(view: &View<'a>) -> (schedlab_model::cluster::Packer<'a>, PlanRows) {
    let mut packer = view.packer_replan();
    let mut plan = Vec::new();
    for &j in view.running().iter() {
        if !view.pinned(j) {
            continue;
        }
        if let Some(p) = view.placement(j) {
            packer.claim_exact(j, p);
            plan.push((j, p.clone(), None));
        }
    }
    (packer, plan)
}

/// Active jobs a re-plan may move: all but the pinned ones.
pub fn movable(view: &View) -> Vec<u32> {
    view.active()
        .iter()
        .copied()
        .filter(|&j| !view.pinned(j))
        .collect()
}
