//! The Pollux goodput model (Pollux, OSDI'21 §3; spec seed004-sia.md §2.2)
//! as the simulator's ground truth for adaptive training jobs, plus the
//! scheduler-side estimator of spec §2.3.
//!
//! goodput = throughput × statistical efficiency. In simulator units a job
//! progresses at `gain(M)/T_step` M0-iterations per second, where
//! - `T_step` comes from the 7-parameter throughput model θ of the
//!   (model, GPU type) pair ([`throughput`], E4 to E8, fitted by [`fit`]);
//! - `gain(M)` comes from gradient statistics that evolve with training
//!   progress ([`efficiency`], E1 to E3), one curve per model (it does not
//!   depend on the GPU type);
//! - the batch plan (atomic batch, accumulation) is either fixed (rigid
//!   and strong-scaling jobs) or goodput-optimal ([`batch`], §2.2.3),
//!   re-chosen at every epoch boundary (the zoo reports the boundary in
//!   `Rate::until_progress`).
//!
//! A job is complete when its progress reaches the curve's total
//! (`get_progress(max_epochs)` of the Pollux simulator).

pub mod batch;
pub mod efficiency;
pub mod estimator;
pub mod fit;
mod step_cache;
pub mod throughput;

pub use batch::{BatchLimits, BatchPlan};
pub use efficiency::EfficiencyCurve;
pub use estimator::{Estimate, EstimateSource, GoodputEstimator, ProfilingMode, TypeState};
pub use fit::{fit_perf_params, fit_seconds, quality, Fit, FitQuality, Observation};
pub use throughput::PerfParams;

use super::{BatchChoice, Rate, RateQuery};
use crate::cluster::GpuKind;
use serde::Serialize;

/// The throughput side of one (model, GPU type) pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeProfile {
    pub kind: GpuKind,
    /// The profile's own type label (`aws`, `rtx`, `dgx-ext`, ...).
    pub label: String,
    pub params: PerfParams,
    /// m_min: smallest profiled per-GPU batch.
    pub min_local: u32,
    /// m_max: largest per-GPU batch that fits in memory on this type.
    pub max_local: u32,
    /// Where the largest profiled local batch shrinks with the replica
    /// count: `(K, m)` means "from K replicas on, at most m" (ascending K).
    pub max_local_steps: Vec<(u32, u32)>,
    /// Accuracy of θ on the rows it was fitted to (provenance).
    pub quality: Option<FitQuality>,
}

impl TypeProfile {
    /// The largest profiled local batch for `replicas` replicas (the
    /// artifact's clamp of §2.2.3).
    pub fn max_local_for(&self, replicas: u32) -> u32 {
        let mut m = self.max_local;
        for &(k, cap) in &self.max_local_steps {
            if replicas >= k {
                m = m.min(cap);
            }
        }
        m
    }
}

/// A training job's complete performance model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GoodputModel {
    pub efficiency: EfficiencyCurve,
    /// M_max: the largest global batch an adaptive job may use.
    pub max_batch: u32,
    /// One entry per GPU type with data, in catalog order; never empty
    /// (every constructor checks it).
    pub types: Vec<TypeProfile>,
    /// The Sia simulator's calibration divisor (`SLOWDOWN`), applied only
    /// when the engine runs with `engine.calibration=sia`.
    pub slowdown: f64,
    /// The Sia policy's per-restart cost S_i in its restart factor (E13);
    /// differs from the simulated delay for cifar10 and yolov3.
    pub policy_restart_s: f64,
}

impl GoodputModel {
    /// The profile of `kind`, else the first profile (documented fallback
    /// for types without data; see `supports`).
    pub fn profile(&self, kind: GpuKind) -> &TypeProfile {
        self.types
            .iter()
            .find(|t| t.kind == kind)
            .unwrap_or(&self.types[0])
    }

    /// True when `kind` has its own throughput data.
    pub fn supports(&self, kind: GpuKind) -> bool {
        self.types.iter().any(|t| t.kind == kind)
    }

    pub fn init_batch(&self) -> u32 {
        self.efficiency.init_batch
    }

    /// Batch limits on one type.
    pub fn limits(&self, tp: &TypeProfile) -> BatchLimits {
        BatchLimits {
            init: self.efficiency.init_batch,
            max: self.max_batch,
            min_local: tp.min_local,
            max_local: tp.max_local,
        }
    }

    /// Progress per second (M0-iterations/s) of a plan in epoch `epoch`.
    pub fn progress_rate(&self, tp: &TypeProfile, nodes: u32, plan: &BatchPlan, epoch: u32) -> f64 {
        let m = plan.global() as f64;
        let t = tp
            .params
            .t_step(nodes, plan.replicas, plan.atomic as f64, plan.accum);
        self.efficiency.gain(m, epoch) / t
    }

    /// The batch plan the job runs with on an allocation, and its rate.
    pub fn plan(
        &self,
        kind: GpuKind,
        nodes: u32,
        gpus: u32,
        choice: BatchChoice,
        epoch: u32,
    ) -> (BatchPlan, f64) {
        let tp = self.profile(kind);
        let lim = self.limits(tp);
        let nodes = nodes.max(1);
        let plan = match choice {
            BatchChoice::Fixed(b) => {
                let b = if b == 0 { lim.init } else { b };
                batch::rigid(b, gpus, &lim)
            }
            BatchChoice::Optimize { max } => {
                let max = if max == 0 { self.max_batch } else { max };
                batch::optimize(gpus, &lim, max, tp.max_local_for(gpus), |p| {
                    self.progress_rate(tp, nodes, p, epoch)
                })
                .0
            }
        };
        (plan, self.progress_rate(tp, nodes, &plan, epoch))
    }

    /// The engine's question: rate, batch and validity on an allocation.
    pub fn rate(&self, q: &RateQuery) -> Rate {
        if q.gpus == 0 {
            return Rate {
                per_s: 0.0,
                batch: 0,
                until_progress: f64::INFINITY,
            };
        }
        let epoch = self.efficiency.epoch_at(q.progress);
        let (plan, per_s) = self.plan(q.kind, q.nodes, q.gpus, q.batch, epoch);
        Rate {
            per_s,
            batch: plan.global().min(u32::MAX as u64) as u32,
            until_progress: self.efficiency.next_boundary(q.progress),
        }
    }

    /// "Measured" step and sync time of one synchronised pass, as an
    /// executor would report them (the ground truth the estimator learns from).
    pub fn step_times(
        &self,
        kind: GpuKind,
        nodes: u32,
        replicas: u32,
        local_bsz: f64,
    ) -> (f64, f64) {
        let p = &self.profile(kind).params;
        let step = p.t_iter(nodes.max(1), replicas.max(1), local_bsz);
        let sync = (step - p.t_grad(local_bsz)).max(0.0);
        (step, sync)
    }

    /// The initial profile of §2.1 step 2 on one GPU of `kind`: about ten
    /// local batch sizes from m_min to m_max (geometric), as observations.
    pub fn one_gpu_profile(&self, kind: GpuKind) -> Vec<Observation> {
        let tp = self.profile(kind);
        let (lo, hi) = (tp.min_local.max(1) as f64, tp.max_local.max(1) as f64);
        let n = if hi > lo { 10 } else { 1 };
        let mut out: Vec<Observation> = Vec::new();
        for i in 0..n {
            let m = if n == 1 {
                hi
            } else {
                (lo * schedlab_core::num::pow(hi / lo, i as f64 / (n - 1) as f64)).round()
            };
            if out.last().is_some_and(|o| o.local_bsz == m) {
                continue;
            }
            let (step, sync) = self.step_times(kind, 1, 1, m);
            out.push(Observation {
                nodes: 1,
                replicas: 1,
                local_bsz: m,
                step_time: step,
                sync_time: sync,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::goodput::efficiency::ValidationRow;

    /// A small model: M0 = 10, 4 epochs of 100 progress, φ = 40 throughout.
    pub(crate) fn toy() -> GoodputModel {
        let rows: Vec<ValidationRow> = (0..4)
            .map(|e| ValidationRow {
                progress: 100.0 * (e + 1) as f64,
                grad_sqr: 1.0,
                grad_var: 4.0,
            })
            .collect();
        let eff = EfficiencyCurve::fit(&[(10, rows.clone()), (160, rows)], None, None).unwrap();
        GoodputModel {
            efficiency: eff,
            max_batch: 160,
            types: vec![TypeProfile {
                kind: GpuKind::by_name("t4").unwrap(),
                label: "aws".into(),
                params: PerfParams {
                    alpha_c: 0.1,
                    beta_c: 0.01,
                    alpha_n: 0.2,
                    beta_n: 0.01,
                    alpha_r: 0.05,
                    beta_r: 0.005,
                    gamma: 1.0,
                },
                min_local: 2,
                max_local: 16,
                max_local_steps: vec![(8, 12)],
                quality: None,
            }],
            slowdown: 1.0,
            policy_restart_s: 30.0,
        }
    }

    #[test]
    fn rigid_rate_by_hand() {
        let g = toy();
        let t4 = GpuKind::by_name("t4").unwrap();
        // B = 40 on 2 GPUs of one node: m = 20 > 16 -> a = 1, m = 10.
        let q = RateQuery {
            kind: t4,
            gpus: 2,
            nodes: 1,
            batch: BatchChoice::Fixed(40),
            progress: 0.0,
        };
        let r = g.rate(&q);
        assert_eq!(r.batch, 40);
        // T_grad(10) = 0.2, T_sync = 0.05, γ = 1: T_step = 0.2 + 0.25 = 0.45.
        // r = φ/M0 = 4, s = 4: gain = 5/(1+1) = 2.5.
        assert!((r.per_s - 2.5 / 0.45).abs() < 1e-9, "{r:?}");
        assert_eq!(r.until_progress, 100.0);
    }

    #[test]
    fn adaptive_choice_beats_every_fixed_batch() {
        let g = toy();
        let t4 = GpuKind::by_name("t4").unwrap();
        let q = |batch| RateQuery {
            kind: t4,
            gpus: 4,
            nodes: 1,
            batch,
            progress: 150.0,
        };
        let best = g.rate(&q(BatchChoice::Optimize { max: 0 }));
        for b in [10, 20, 40, 64, 100, 160] {
            let r = g.rate(&q(BatchChoice::Fixed(b)));
            assert!(
                best.per_s >= r.per_s * (1.0 - 1e-9),
                "b={b}: {r:?} vs {best:?}"
            );
        }
        assert_eq!(best.until_progress, 200.0);
    }

    #[test]
    fn per_replica_clamp_and_one_gpu_profile() {
        let g = toy();
        let tp = &g.types[0];
        assert_eq!(tp.max_local_for(4), 16);
        assert_eq!(tp.max_local_for(8), 12);
        let prof = g.one_gpu_profile(tp.kind);
        assert!(prof.len() >= 5);
        assert_eq!(prof[0].local_bsz, 2.0);
        assert_eq!(prof.last().unwrap().local_bsz, 16.0);
        assert!(prof.iter().all(|o| o.replicas == 1 && o.usable()));
    }
}
