//! The scheduler-side goodput estimator of one job (Sia thesis §3.3.2;
//! spec seed004-sia.md §2.3; Pollux's per-job learner).
//!
//! A scheduler does not know a job's true throughput model: it learns θ per
//! (job, GPU type) from what the job's executors report, and bootstraps the
//! types it has not run on. This type holds that knowledge for one job:
//!
//! - per GPU type a [`TypeState`]: `Unprofiled`, `OneGpu` (1-GPU data
//!   only, so the fitted θ has T_sync ≈ 0 and predicts linear scaling: the
//!   optimistic "doubling" of the first scale-up), or `Learned` (it has run
//!   on several GPUs of this type);
//! - θ is refitted ([`fit_perf_params`]) whenever a new (n, K, m) key is
//!   observed on a type; gradient statistics are overwritten by the latest
//!   report;
//! - a type the job has not run on is estimated by projection (E10):
//!   `goodput_B(n, K) = ratio_{B,A} · goodput_A(⌈K/R_A⌉, K)` with
//!   `ratio_{B,A} = xput_B(1)/xput_A(1)`, the 1-GPU throughputs at the
//!   largest 1-GPU batch of the profiling data;
//! - variants ([`ProfilingMode`]): the thesis (1-GPU profiles on every type
//!   before the first allocation, charged), the artifact default (no
//!   profile before the first run; brand-new jobs value every type's 1-GPU
//!   configuration equally), the true model (θ known on every type), and no
//!   profiling (no projection).
//!
//! Everything is in `BTreeMap`s and `Vec`s in the order the caller gives
//! the types, so estimates are deterministic; the estimator is `Clone` so
//! a forked simulation carries it.

use super::batch::{self, BatchLimits, BatchPlan};
use super::fit::{fit_perf_params, Observation};
use super::step_cache::{StepCache, Steps};
use super::throughput::PerfParams;
use super::GoodputModel;
use crate::cluster::GpuKind;
use serde::Serialize;
use std::collections::BTreeMap;

/// GPU-seconds the thesis charges per GPU type for the initial profile
/// (§2.1 step 2: "under 20 GPU-seconds per GPU type").
pub const PROFILE_GPU_S_PER_TYPE: f64 = 20.0;

/// How much the scheduler knows before and while a job runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProfilingMode {
    /// Thesis (default): 1-GPU profiles on every type exist before the
    /// first allocation (and cost [`PROFILE_GPU_S_PER_TYPE`] per type);
    /// a brand-new job's 1-GPU configurations are ranked by them; a type
    /// with only 1-GPU run data is projected from a learned type when one
    /// exists ("the bootstrap is discarded once B itself gets a
    /// multi-GPU observation").
    Thesis,
    /// The Sia artifact's default: no profile is used before the first
    /// run (every type's 1-GPU configuration gets the same placeholder
    /// value), the 1-GPU ratio table is known, any run on a type makes
    /// its own θ the estimate, and projection takes the first type (in
    /// the caller's order) that has a model.
    Artifact,
    /// The true model: θ of every type is known from the start (all
    /// placements; the `oracle` choice of `sia.profiling`).
    TrueModel,
    /// No profiling: types without a model are not projected; only their
    /// 1-GPU configuration is offered, at the placeholder value.
    NoProfiling,
}

// Sia's `profiling` setting names the modes.
schedlab_core::choice!(impl ProfilingMode {
    Thesis = "thesis",
    Artifact = "artifact",
    TrueModel = "oracle",
    NoProfiling = "none",
});

/// What the estimator knows about one GPU type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TypeState {
    Unprofiled,
    /// Only 1-GPU observations (from running on one GPU of the type).
    OneGpu,
    /// Has run on more than one GPU of the type.
    Learned,
}

/// Where an estimate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum EstimateSource {
    /// θ of this type, fitted from the job's own runs on it.
    Own { state: TypeState },
    /// Projected from another type (E10) by this throughput ratio.
    Projected { from: GpuKind, ratio: f64 },
    /// From the initial 1-GPU profile of this type (brand-new job, thesis).
    Profile,
    /// No information: the caller should treat the value as the scale unit
    /// (artifact mode for a brand-new job; no-profiling mode).
    Placeholder,
    /// The true θ (`ProfilingMode::TrueModel`).
    #[serde(rename = "oracle")]
    TrueModel,
}

/// An estimated goodput for one configuration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// Progress per second (M0-iterations/s); 1.0 for `Placeholder`.
    pub goodput: f64,
    /// The goodput-optimal plan under the estimate (None for placeholders).
    pub plan: Option<BatchPlan>,
    pub source: EstimateSource,
}

/// Per-type knowledge.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct TypeKnowledge {
    kind: GpuKind,
    /// GPUs per node of this type in the cluster (R_A of E10).
    per_node: u32,
    limits: BatchLimits,
    /// Largest local batch per replica count (artifact clamp).
    max_local_steps: Vec<(u32, u32)>,
    /// Observations from running: (n, K, m) -> (step, sync).
    observed: BTreeMap<(u32, u32, u32), (f64, f64)>,
    fitted: Option<PerfParams>,
    state: TypeState,
    /// θ from the initial 1-GPU profile (thesis mode).
    profile_fit: Option<PerfParams>,
    /// 1-GPU throughput (samples/s) at the largest 1-GPU batch of the profile.
    xput1: f64,
    /// θ known from the start (`ProfilingMode::TrueModel`).
    true_params: Option<PerfParams>,
    max_replicas_run: u32,
}

/// The goodput estimator of one job (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GoodputEstimator {
    mode: ProfilingMode,
    init_batch: u32,
    max_batch: u32,
    /// Latest noise ratio var/sqr (None before the first report).
    noise_ratio: Option<f64>,
    types: Vec<TypeKnowledge>,
    /// The job's smallest replica count: what is profiled and offered
    /// before anything is learned (spec seed004 §2.3 "min-GPU profiles").
    min_replicas: u32,
    /// Candidate plans and step times per (type, θ, configuration).
    #[serde(skip)]
    steps: StepCache,
}

impl GoodputEstimator {
    /// A fresh estimator for a job of `model` on a cluster with these GPU
    /// types (and GPUs per node), in the cluster's order. The profiling
    /// data (1-GPU throughput of each type, true θ) comes from the model,
    /// the simulator's ground truth.
    pub fn new(model: &GoodputModel, kinds: &[(GpuKind, u32)], mode: ProfilingMode) -> Self {
        Self::new_with(model, kinds, mode, &mut |_, profile| {
            fit_perf_params(profile).ok().map(|f| f.params)
        })
    }

    /// As [`GoodputEstimator::new`], with the fit of a type's 1-GPU profile
    /// supplied by the caller: every job of a model starts from the same
    /// profile, so a bank of estimators fits it once (`ProfileFits`).
    pub fn new_with(
        model: &GoodputModel,
        kinds: &[(GpuKind, u32)],
        mode: ProfilingMode,
        fit_profile: &mut dyn FnMut(GpuKind, &[Observation]) -> Option<PerfParams>,
    ) -> Self {
        let types = kinds
            .iter()
            .map(|&(kind, per_node)| {
                let tp = model.profile(kind);
                let profile = model.one_gpu_profile(kind);
                let xput1 = profile
                    .iter()
                    .max_by(|a, b| a.local_bsz.total_cmp(&b.local_bsz))
                    .map_or(0.0, |o| o.local_bsz / o.step_time);
                let profile_fit = (mode == ProfilingMode::Thesis)
                    .then(|| fit_profile(kind, &profile))
                    .flatten();
                TypeKnowledge {
                    kind,
                    per_node: per_node.max(1),
                    limits: model.limits(tp),
                    max_local_steps: tp.max_local_steps.clone(),
                    observed: BTreeMap::new(),
                    fitted: None,
                    state: TypeState::Unprofiled,
                    profile_fit,
                    xput1,
                    true_params: (mode == ProfilingMode::TrueModel).then_some(tp.params),
                    max_replicas_run: 0,
                }
            })
            .collect();
        GoodputEstimator {
            mode,
            init_batch: model.init_batch(),
            max_batch: model.max_batch,
            noise_ratio: None,
            types,
            min_replicas: 1,
            steps: StepCache::default(),
        }
    }

    /// Sets the job's minimum replica count (default 1): before anything is
    /// learned only configurations of that many replicas are valid, so a
    /// job that needs several GPUs is not left without a valid choice.
    pub fn with_min_replicas(mut self, min: u32) -> Self {
        self.min_replicas = min.max(1);
        self
    }

    pub fn mode(&self) -> ProfilingMode {
        self.mode
    }

    fn index(&self, kind: GpuKind) -> Option<usize> {
        self.types.iter().position(|t| t.kind == kind)
    }

    /// The state of one type (Unprofiled for a type not in the cluster).
    pub fn state(&self, kind: GpuKind) -> TypeState {
        self.index(kind)
            .map_or(TypeState::Unprofiled, |i| self.types[i].state)
    }

    /// θ fitted from this job's runs on `kind`, if any.
    pub fn fitted(&self, kind: GpuKind) -> Option<&PerfParams> {
        self.index(kind).and_then(|i| self.types[i].fitted.as_ref())
    }

    /// The 1-GPU throughput ratio xput_B(1)/xput_A(1) of the profiles.
    pub fn ratio(&self, b: GpuKind, a: GpuKind) -> Option<f64> {
        let (ib, ia) = (self.index(b)?, self.index(a)?);
        let (xb, xa) = (self.types[ib].xput1, self.types[ia].xput1);
        (xa > 0.0 && xb > 0.0).then(|| xb / xa)
    }

    /// GPU-seconds of initial profiling this job costs before its first
    /// allocation (thesis mode only).
    pub fn profiling_cost_gpu_s(&self) -> f64 {
        if self.mode == ProfilingMode::Thesis {
            PROFILE_GPU_S_PER_TYPE * self.types.len() as f64
        } else {
            0.0
        }
    }

    /// The artifact's replica cap: min(max(2·max profiled replicas, 1),
    /// 64, M_max/m_min), where max profiled replicas is the largest count
    /// the job has run at on any type (`--share_max_replicas`).
    pub fn max_replicas(&self) -> u32 {
        let run = self
            .types
            .iter()
            .map(|t| t.max_replicas_run)
            .max()
            .unwrap_or(0);
        let m_min = self
            .types
            .iter()
            .map(|t| t.limits.min_local)
            .min()
            .unwrap_or(1)
            .max(1);
        (2 * run).clamp(1, 64).min((self.max_batch / m_min).max(1))
    }

    /// Records the latest gradient statistics (overwrites the previous).
    pub fn observe_gradients(&mut self, grad_sqr: f64, grad_var: f64) {
        if grad_sqr > 0.0 && grad_var >= 0.0 {
            self.noise_ratio = Some(grad_var / grad_sqr);
        } else if grad_var > 0.0 {
            self.noise_ratio = Some(f64::INFINITY);
        }
    }

    /// Records the noise ratio var/sqr = φ/M0 directly.
    pub fn observe_noise_ratio(&mut self, r: f64) {
        if r >= 0.0 {
            self.noise_ratio = Some(r);
        }
    }

    /// Records one executor report on `kind`; refits θ of that type when
    /// the (n, K, m) key is new. Returns true when it refitted.
    pub fn observe(&mut self, kind: GpuKind, obs: Observation) -> bool {
        let Some(i) = self.index(kind) else {
            return false;
        };
        if !obs.usable() {
            return false;
        }
        let t = &mut self.types[i];
        let key = (obs.nodes, obs.replicas, obs.local_bsz.round() as u32);
        t.max_replicas_run = t.max_replicas_run.max(obs.replicas);
        if obs.replicas > 1 {
            t.state = TypeState::Learned;
        } else if t.state == TypeState::Unprofiled {
            t.state = TypeState::OneGpu;
        }
        if t.observed.contains_key(&key) {
            return false;
        }
        t.observed.insert(key, (obs.step_time, obs.sync_time));
        let rows: Vec<Observation> = t
            .observed
            .iter()
            .map(|(&(n, k, m), &(s, y))| Observation {
                nodes: n,
                replicas: k,
                local_bsz: m as f64,
                step_time: s,
                sync_time: y,
            })
            .collect();
        match fit_perf_params(&rows) {
            Ok(f) => {
                t.fitted = Some(f.params);
                self.steps.clear();
                true
            }
            Err(_) => false,
        }
    }

    /// Convenience for simulations: records what the executors of a job
    /// running `plan` on `nodes` nodes of `kind` would report, from the
    /// ground-truth `model` at `progress` (step/sync time and gradient
    /// statistics).
    pub fn observe_run(
        &mut self,
        model: &GoodputModel,
        kind: GpuKind,
        nodes: u32,
        plan: &BatchPlan,
        progress: f64,
    ) -> bool {
        let (step, sync) = model.step_times(kind, nodes, plan.replicas, plan.atomic as f64);
        let eff = &model.efficiency;
        let epoch = eff.epoch_at(progress);
        let phi = eff.phi(plan.global() as f64, epoch);
        self.observe_noise_ratio(phi / self.init_batch as f64);
        self.observe(
            kind,
            Observation {
                nodes: nodes.max(1),
                replicas: plan.replicas,
                local_bsz: plan.atomic as f64,
                step_time: step,
                sync_time: sync,
            },
        )
    }

    fn gain(&self, m: f64) -> f64 {
        let r = self.noise_ratio.unwrap_or(0.0);
        super::efficiency::gain(r, m / self.init_batch as f64)
    }

    /// Goodput-optimal estimate with θ on type index `i`.
    fn best_with(
        &self,
        i: usize,
        theta: &PerfParams,
        nodes: u32,
        replicas: u32,
        max_batch: u32,
    ) -> (BatchPlan, f64) {
        let t = &self.types[i];
        let cap = t
            .max_local_steps
            .iter()
            .filter(|(k, _)| replicas >= *k)
            .map(|(_, m)| *m)
            .fold(t.limits.max_local, u32::min);
        let mut lim = t.limits;
        lim.max = max_batch;
        let key = (
            i,
            theta.to_array().map(f64::to_bits),
            nodes,
            replicas,
            max_batch,
        );
        let make = || {
            let cands = batch::candidates(replicas, &lim, max_batch);
            let t_step = cands
                .iter()
                .map(|(p, valid)| match valid {
                    true => theta.t_step(nodes.max(1), p.replicas, p.atomic as f64, p.accum),
                    false => f64::NAN,
                })
                .collect();
            Steps { cands, t_step }
        };
        self.steps.with(key, make, |steps| {
            batch::optimize_over(&steps.cands, max_batch, cap, |k, p| {
                self.gain(p.global() as f64) / steps.t_step[k]
            })
        })
    }

    /// The source type for projecting onto `b`, if any.
    fn projection_source(&self, b: usize) -> Option<usize> {
        let candidates: Vec<usize> = (0..self.types.len())
            .filter(|&a| a != b && self.types[a].fitted.is_some())
            .collect();
        match self.mode {
            ProfilingMode::Artifact => candidates.first().copied(),
            // [I] (spec ambiguity 6): most multi-GPU observations, then the
            // closest 1-GPU throughput, then cluster order.
            ProfilingMode::Thesis | ProfilingMode::TrueModel | ProfilingMode::NoProfiling => {
                let xb = self.types[b].xput1;
                candidates.into_iter().min_by(|&x, &y| {
                    let multi = |a: usize| {
                        self.types[a]
                            .observed
                            .keys()
                            .filter(|(_, k, _)| *k > 1)
                            .count()
                    };
                    let dist = |a: usize| {
                        let xa = self.types[a].xput1;
                        if xa > 0.0 && xb > 0.0 {
                            schedlab_core::num::ln(xa / xb).abs()
                        } else {
                            f64::INFINITY
                        }
                    };
                    multi(y)
                        .cmp(&multi(x))
                        .then(dist(x).total_cmp(&dist(y)))
                        .then(x.cmp(&y))
                })
            }
        }
    }

    /// Estimated goodput of running on `replicas` GPUs over `nodes` nodes
    /// of `kind` with global batches up to `max_batch` (0 = the model's
    /// M_max). None when the configuration is not valid for this job now
    /// (unknown type, or more than one GPU with nothing to estimate from).
    pub fn estimate(
        &self,
        kind: GpuKind,
        nodes: u32,
        replicas: u32,
        max_batch: u32,
    ) -> Option<Estimate> {
        let b = self.index(kind)?;
        if replicas == 0 {
            return None;
        }
        let max_batch = if max_batch == 0 {
            self.max_batch
        } else {
            max_batch
        };
        let t = &self.types[b];
        if let Some(theta) = t.true_params {
            let (plan, g) = self.best_with(b, &theta, nodes, replicas, max_batch);
            return Some(Estimate {
                goodput: g,
                plan: Some(plan),
                source: EstimateSource::TrueModel,
            });
        }
        let own = |state| {
            let theta = t.fitted.as_ref()?;
            let (plan, g) = self.best_with(b, theta, nodes, replicas, max_batch);
            Some(Estimate {
                goodput: g,
                plan: Some(plan),
                source: EstimateSource::Own { state },
            })
        };
        let project = || {
            if self.mode == ProfilingMode::NoProfiling {
                return None;
            }
            let a = self.projection_source(b)?;
            let ratio = self.ratio(kind, self.types[a].kind)?;
            let theta = self.types[a].fitted.as_ref()?;
            let n_a = replicas.div_ceil(self.types[a].per_node);
            let (plan, g) = self.best_with(a, theta, n_a, replicas, max_batch);
            Some(Estimate {
                goodput: ratio * g,
                plan: Some(plan),
                source: EstimateSource::Projected {
                    from: self.types[a].kind,
                    ratio,
                },
            })
        };
        match (t.state, self.mode) {
            (TypeState::Learned, _) => return own(TypeState::Learned),
            (TypeState::OneGpu, ProfilingMode::Thesis) => {
                // Prefer a projection from a type that has learned its
                // communication; else this type's own (optimistic) θ.
                let learned_elsewhere = self
                    .types
                    .iter()
                    .any(|o| o.kind != kind && o.state == TypeState::Learned);
                if learned_elsewhere {
                    if let Some(e) = project() {
                        return Some(e);
                    }
                }
                return own(TypeState::OneGpu);
            }
            (TypeState::OneGpu, _) => return own(TypeState::OneGpu),
            (TypeState::Unprofiled, _) => {}
        }
        if let Some(e) = project() {
            return Some(e);
        }
        // Nothing learned anywhere: only minimum-size (usually 1-GPU)
        // configurations are valid.
        if replicas != self.min_replicas {
            return None;
        }
        if self.mode == ProfilingMode::Thesis {
            if let Some(theta) = t.profile_fit {
                let (plan, g) = self.best_with(b, &theta, nodes, replicas, max_batch);
                return Some(Estimate {
                    goodput: g,
                    plan: Some(plan),
                    source: EstimateSource::Profile,
                });
            }
        }
        Some(Estimate {
            goodput: 1.0,
            plan: None,
            source: EstimateSource::Placeholder,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::goodput::tests::toy;
    use crate::perf::goodput::TypeProfile;

    /// The toy model on two types: "rtx" three times as fast per GPU.
    fn two_types() -> (GoodputModel, GpuKind, GpuKind) {
        let mut m = toy();
        let t4 = GpuKind::by_name("t4").unwrap();
        let rtx = GpuKind::by_name("rtx").unwrap();
        let mut p = m.types[0].params;
        p.alpha_c /= 3.0;
        p.beta_c /= 3.0;
        m.types.push(TypeProfile {
            kind: rtx,
            label: "rtx".into(),
            params: p,
            ..m.types[0].clone()
        });
        (m, t4, rtx)
    }

    fn run_one(est: &mut GoodputEstimator, m: &GoodputModel, kind: GpuKind, nodes: u32, k: u32) {
        for atomic in [4, 8, 16] {
            let plan = BatchPlan {
                replicas: k,
                atomic,
                accum: 0,
            };
            est.observe_run(m, kind, nodes, &plan, 0.0);
        }
    }

    #[test]
    fn one_gpu_data_predicts_doubling() {
        let (m, t4, rtx) = two_types();
        let mut est = GoodputEstimator::new(&m, &[(t4, 4), (rtx, 8)], ProfilingMode::Artifact);
        run_one(&mut est, &m, t4, 1, 1);
        assert_eq!(est.state(t4), TypeState::OneGpu);
        // Same fixed plan (m = 8, no accumulation) on 1 and 2 GPUs: 2x throughput.
        let theta = est.fitted(t4).unwrap();
        let x1 = theta.throughput(1, 1, 8.0, 0);
        let x2 = theta.throughput(1, 2, 8.0, 0);
        assert!((x2 / x1 - 2.0).abs() < 1e-4, "{}", x2 / x1);
        // The true model scales worse (it has T_sync > 0).
        let tp = &m.types[0].params;
        assert!(tp.throughput(1, 2, 8.0, 0) / tp.throughput(1, 1, 8.0, 0) < 1.9);
        // The estimate itself: with perfect statistical efficiency (huge
        // noise scale), 2 GPUs at batch 20 are estimated at 2x 1 GPU at
        // M0 = 10 (same atomic batch, no accumulation).
        est.observe_noise_ratio(1e12);
        let e1 = est.estimate(t4, 1, 1, 10).unwrap();
        let e2 = est.estimate(t4, 1, 2, 20).unwrap();
        assert_eq!(e1.plan.unwrap().global(), 10);
        assert_eq!(e2.plan.unwrap().global(), 20);
        assert!(
            (e2.goodput / e1.goodput - 2.0).abs() < 1e-3,
            "{e1:?} {e2:?}"
        );
        // Max replicas: 2x the largest run so far.
        assert_eq!(est.max_replicas(), 2);
    }

    #[test]
    fn projection_ratio_is_the_one_gpu_throughput_ratio() {
        let (m, t4, rtx) = two_types();
        let mut est = GoodputEstimator::new(&m, &[(t4, 4), (rtx, 8)], ProfilingMode::Artifact);
        run_one(&mut est, &m, t4, 1, 1);
        run_one(&mut est, &m, t4, 1, 4);
        assert_eq!(est.state(t4), TypeState::Learned);
        assert_eq!(est.state(rtx), TypeState::Unprofiled);
        let want_ratio = {
            let p4 = m.one_gpu_profile(t4);
            let pr = m.one_gpu_profile(rtx);
            let x = |p: &[Observation]| {
                let o = p.last().unwrap();
                o.local_bsz / o.step_time
            };
            x(&pr) / x(&p4)
        };
        assert!(want_ratio > 2.0, "rtx is faster: {want_ratio}");
        for k in [1, 2, 4, 8] {
            let e_rtx = est.estimate(rtx, 1, k, 0).unwrap();
            let nodes_t4 = k.div_ceil(4);
            let e_t4 = est.estimate(t4, nodes_t4, k, 0).unwrap();
            match e_rtx.source {
                EstimateSource::Projected { from, ratio } => {
                    assert_eq!(from, t4);
                    assert!((ratio - want_ratio).abs() < 1e-12);
                }
                s => panic!("expected a projection, got {s:?}"),
            }
            assert!(
                (e_rtx.goodput / e_t4.goodput - want_ratio).abs() < 1e-9,
                "k={k}"
            );
        }
    }

    #[test]
    fn brand_new_jobs_by_mode() {
        let (m, t4, rtx) = two_types();
        let kinds = [(t4, 4), (rtx, 8)];
        // Artifact: every type's 1-GPU configuration is a placeholder; nothing else is valid.
        let est = GoodputEstimator::new(&m, &kinds, ProfilingMode::Artifact);
        for k in [t4, rtx] {
            assert_eq!(
                est.estimate(k, 1, 1, 0).unwrap().source,
                EstimateSource::Placeholder
            );
            assert!(est.estimate(k, 1, 2, 0).is_none());
        }
        assert_eq!(est.profiling_cost_gpu_s(), 0.0);
        // Thesis: ranked by the profiles (rtx first), charged 20 GPU-s per type.
        let est = GoodputEstimator::new(&m, &kinds, ProfilingMode::Thesis);
        let (a, b) = (
            est.estimate(t4, 1, 1, 0).unwrap(),
            est.estimate(rtx, 1, 1, 0).unwrap(),
        );
        assert_eq!(a.source, EstimateSource::Profile);
        assert!(b.goodput > 2.0 * a.goodput);
        assert!(est.estimate(rtx, 1, 2, 0).is_none());
        assert_eq!(est.profiling_cost_gpu_s(), 40.0);
        // Oracle: the true model everywhere.
        let est = GoodputEstimator::new(&m, &kinds, ProfilingMode::TrueModel);
        let e = est.estimate(rtx, 1, 8, 0).unwrap();
        assert_eq!(e.source, EstimateSource::TrueModel);
        // No profiling: a learned t4 does not project onto rtx.
        let mut est = GoodputEstimator::new(&m, &kinds, ProfilingMode::NoProfiling);
        run_one(&mut est, &m, t4, 1, 2);
        assert!(est.estimate(rtx, 1, 2, 0).is_none());
        assert_eq!(
            est.estimate(rtx, 1, 1, 0).unwrap().source,
            EstimateSource::Placeholder
        );
    }

    #[test]
    fn refits_only_on_new_keys_and_is_deterministic() {
        let (m, t4, rtx) = two_types();
        let mut a = GoodputEstimator::new(&m, &[(t4, 4), (rtx, 8)], ProfilingMode::Thesis);
        let plan = BatchPlan {
            replicas: 2,
            atomic: 8,
            accum: 0,
        };
        assert!(a.observe_run(&m, t4, 1, &plan, 0.0));
        assert!(!a.observe_run(&m, t4, 1, &plan, 50.0), "same key: no refit");
        let b = a.clone();
        assert_eq!(a.estimate(t4, 1, 4, 0), b.estimate(t4, 1, 4, 0));
        // Thesis: rtx has only 1-GPU data, t4 learned: rtx is projected from t4.
        run_one(&mut a, &m, rtx, 1, 1);
        match a.estimate(rtx, 1, 4, 0).unwrap().source {
            EstimateSource::Projected { from, .. } => assert_eq!(from, t4),
            s => panic!("{s:?}"),
        }
        // Artifact: rtx's own 1-GPU θ wins.
        let mut c = GoodputEstimator::new(&m, &[(t4, 4), (rtx, 8)], ProfilingMode::Artifact);
        c.observe_run(&m, t4, 1, &plan, 0.0);
        run_one(&mut c, &m, rtx, 1, 1);
        assert_eq!(
            c.estimate(rtx, 1, 4, 0).unwrap().source,
            EstimateSource::Own {
                state: TypeState::OneGpu
            }
        );
    }
}
