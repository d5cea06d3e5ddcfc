//! What goodput-aware policies (Sia, Pollux) believe about each job.
//!
//! Jobs with a Pollux goodput model get a `GoodputEstimator` (perf
//! module): the scheduler learns θ per GPU type from what the job's
//! executors report while it runs, and bootstraps the other types (Sia
//! thesis §3.3.2). Every call, `observe` feeds each running job's report
//! (its step and sync time on its current allocation, from the ground
//! truth, and its gradient noise). Jobs with speedup-curve models have
//! nothing to learn: their estimate is the zoo's rate (an oracle).
//! Fixed-batch jobs (rigid, strong-scaling) are scored with the zoo's rate
//! at their batch, as the artifact seeds them with their exact profile.
//!
//! A heterogeneity-unaware scheduler (Pollux) pools every report into one
//! model kept under a single reference type (`pooled`).

use schedlab_model::cluster::GpuKind;
use schedlab_model::perf::goodput::{
    fit_perf_params, GoodputEstimator, Observation, PerfParams, ProfilingMode,
};
use schedlab_model::perf::{BatchChoice, Behaviour};
use schedlab_model::workload::Adaptivity;
use schedlab_sim::View;
use std::collections::BTreeMap;

/// Scheduler-side knowledge for every job of a run.
#[derive(Clone)]
pub struct EstimatorBank {
    mode: ProfilingMode,
    /// Pool every type's reports into this one type (heterogeneity-unaware).
    pooled: Option<GpuKind>,
    jobs: Vec<Option<GoodputEstimator>>,
    created: Vec<bool>,
    /// θ fitted to each (model, GPU type)'s 1-GPU profile: the same for
    /// every job of the model, so fitted once per run (a pure function of
    /// the profile, so the estimators are the same to the bit).
    profile_fits: BTreeMap<(u16, u8), Option<PerfParams>>,
}

impl EstimatorBank {
    pub fn new(mode: ProfilingMode) -> Self {
        EstimatorBank {
            mode,
            pooled: None,
            jobs: Vec::new(),
            created: Vec::new(),
            profile_fits: BTreeMap::new(),
        }
    }

    /// One model per job under `kind`, fed by reports from every type.
    pub fn pooled(mode: ProfilingMode, kind: GpuKind) -> Self {
        EstimatorBank {
            mode,
            pooled: Some(kind),
            jobs: Vec::new(),
            created: Vec::new(),
            profile_fits: BTreeMap::new(),
        }
    }

    pub fn mode(&self) -> ProfilingMode {
        self.mode
    }

    fn ensure(&mut self, view: &View, job: u32) {
        let n = job as usize + 1;
        if self.jobs.len() < n {
            self.jobs.resize(n, None);
            self.created.resize(n, false);
        }
        if self.created[job as usize] {
            return;
        }
        self.created[job as usize] = true;
        let model_id = view.model_id(job);
        if let Behaviour::Goodput(model) = &view.model(job).behaviour {
            let kinds: Vec<(GpuKind, u32)> = match self.pooled {
                Some(k) => vec![(k, view.cluster().max_node_gpus(k).max(1))],
                None => view
                    .cluster()
                    .kinds
                    .iter()
                    .map(|k| (*k, view.cluster().max_node_gpus(*k)))
                    .collect(),
            };
            let min = view.spec(job).min_gpus.max(1);
            let fits = &mut self.profile_fits;
            let mut fit = |kind: GpuKind, profile: &[Observation]| {
                *fits
                    .entry((model_id.0, kind.0))
                    .or_insert_with(|| fit_perf_params(profile).ok().map(|f| f.params))
            };
            let est = GoodputEstimator::new_with(model, &kinds, self.mode, &mut fit);
            self.jobs[job as usize] = Some(est.with_min_replicas(min));
        }
    }

    /// Records what every running job's executors report this round.
    pub fn observe(&mut self, view: &View) {
        for &j in view.active().iter() {
            self.ensure(view, j);
            let Some(p) = view.placement(j) else { continue };
            let Behaviour::Goodput(model) = &view.model(j).behaviour else {
                continue;
            };
            let Some(est) = self.jobs[j as usize].as_mut() else {
                continue;
            };
            let progress = view.progress(j);
            let epoch = model.efficiency.epoch_at(progress);
            let choice = view
                .batch_choice(j)
                .unwrap_or_else(|| view.natural_batch(j));
            let (plan, _) = model.plan(p.kind, p.nodes(), p.gpus(), choice, epoch);
            match self.pooled {
                None => {
                    est.observe_run(model, p.kind, p.nodes(), &plan, progress);
                }
                Some(k) => {
                    let (step, sync) =
                        model.step_times(p.kind, p.nodes(), plan.replicas, plan.atomic as f64);
                    let phi = model.efficiency.phi(plan.global() as f64, epoch);
                    est.observe_noise_ratio(phi / model.init_batch() as f64);
                    est.observe(
                        k,
                        Observation {
                            nodes: p.nodes().max(1),
                            replicas: plan.replicas,
                            local_bsz: plan.atomic as f64,
                            step_time: step,
                            sync_time: sync,
                        },
                    );
                }
            }
        }
    }

    /// Largest replica count the job's estimator admits (the artifact's
    /// min(max(2 x most replicas run, 1), 64, M_max / m_min)), if it has one.
    pub fn max_replicas(&self, job: u32) -> Option<u32> {
        self.jobs
            .get(job as usize)?
            .as_ref()
            .map(|e| e.max_replicas())
    }

    /// Seconds of initial profiling the job's estimator charges (thesis mode).
    pub fn profiling_s(&self, job: u32) -> f64 {
        self.jobs
            .get(job as usize)
            .and_then(|e| e.as_ref())
            .map_or(0.0, |e| {
                if e.profiling_cost_gpu_s() > 0.0 {
                    schedlab_model::perf::goodput::estimator::PROFILE_GPU_S_PER_TYPE
                } else {
                    0.0
                }
            })
    }

    /// Estimated goodput (progress/s) of `job` on `gpus` GPUs over `nodes`
    /// nodes of `kind`, batch limited to `max_batch` (0 = the model's);
    /// None when the configuration is not valid for the job now. A value of
    /// exactly 1.0 with `placeholder` set means "no information".
    pub fn estimate(
        &self,
        view: &View,
        job: u32,
        kind: GpuKind,
        nodes: u32,
        gpus: u32,
        max_batch: u32,
    ) -> Option<(f64, bool)> {
        let fixed = view.spec(job).adaptivity != Adaptivity::Adaptive;
        if let (false, Some(Some(est))) = (fixed, self.jobs.get(job as usize)) {
            let kind = self.pooled.unwrap_or(kind);
            let e = est.estimate(kind, nodes, gpus, max_batch)?;
            let placeholder = matches!(
                e.source,
                schedlab_model::perf::goodput::EstimateSource::Placeholder
            );
            return Some((e.goodput, placeholder));
        }
        let batch = if fixed {
            BatchChoice::Fixed(view.rigid_batch(job))
        } else {
            view.natural_batch(job)
        };
        let r = view.rate_on(job, kind, Some(nodes), gpus, batch).per_s;
        (r > 0.0).then_some((r, false))
    }
}
