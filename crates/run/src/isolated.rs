//! Finish-time fairness against simulated isolated runs: the Sia
//! artifact's `ftf_simulator` (spec seed004 §3.5.5 and §7.10, item 10).
//!
//! The default reference of a job's rho (`metrics`) is analytic: its run
//! time alone on a fair share of v = GPUs / N_avg, from its rate curve. The
//! artifact instead simulates each job alone, under the same policy, on a
//! cluster of one GPU type with at most ⌊v⌋ and ⌈v⌉ GPUs, keeps the submit
//! time's phase within a round, interpolates linearly in v (T(1)/v below
//! one GPU) and weights the types by their share of GPUs:
//! rho = T_shared / Σ_g (N_g / N) · T_g. A simulated reference pays what
//! the job would pay alone under that policy (round alignment, initial
//! profiling, growth one doubling per round, restarts), so it is larger than
//! the analytic one and rho smaller. Jobs with the same shape (model, work,
//! limits, phase) share their isolated runs.

use crate::report::{run_policy, PolicyRun, RunSettings};
use schedlab_core::error::Result;
use schedlab_metrics::ftf_extremes;
use schedlab_model::cluster::{Cluster, GpuKind, NodeGroup};
use schedlab_model::perf::ModelZoo;
use schedlab_model::workload::{Adaptivity, JobSpec, Trace};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where a run's finish-time fairness reference comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FtfReference {
    /// The job's run time alone on its fair share, from its rate curve.
    Analytic,
    /// The job simulated alone under the same policy (the artifact's way).
    Simulated,
}

// The CLI's `--ftf` names the references.
schedlab_core::choice!(impl FtfReference {
    Analytic = "analytic",
    Simulated = "simulated",
});

/// Replaces a finished run's rhos (per job and in its summary) by rhos
/// against simulated isolated runs of `run.policy` with the same parameters
/// and seed.
pub fn apply_simulated_ftf(
    run: &mut PolicyRun,
    trace: &Trace,
    cluster: &Arc<Cluster>,
    zoo: &Arc<ModelZoo>,
    settings: &RunSettings,
    seed: u64,
) -> Result<()> {
    let mut iso = Isolated::new(&run.policy, cluster, zoo, settings, seed)?;
    for job in run.jobs.iter_mut() {
        let Some(spec) = trace.jobs.get(job.id as usize) else {
            continue;
        };
        job.ftf_rho = match (job.jct_s, run.outcome.jobs.get(job.id as usize)) {
            (Some(jct), Some(r)) => iso.reference(spec, r.work, r.n_avg)?.map(|t| jct / t),
            _ => None,
        };
    }
    (run.metrics.ftf_rho_max, run.metrics.ftf_unfair_frac) = ftf_extremes(&run.jobs);
    run.ftf_reference = schedlab_core::settings::Choice::name(FtfReference::Simulated);
    Ok(())
}

/// Isolated runs of one policy, memoised by job shape.
struct Isolated<'a> {
    policy: String,
    cluster: &'a Cluster,
    /// One single-type cluster per GPU type, in the cluster's type order.
    per_type: Vec<(GpuKind, Arc<Cluster>)>,
    zoo: &'a Arc<ModelZoo>,
    settings: &'a RunSettings,
    seed: u64,
    /// The policy's round length (the phase an arrival keeps), if it has rounds.
    round_s: Option<f64>,
    /// JCT alone, by (job shape, type, GPU cap).
    memo: BTreeMap<String, Option<f64>>,
}

impl<'a> Isolated<'a> {
    fn new(
        policy_name: &str,
        cluster: &'a Arc<Cluster>,
        zoo: &'a Arc<ModelZoo>,
        settings: &'a RunSettings,
        seed: u64,
    ) -> Result<Isolated<'a>> {
        let policy =
            schedlab_policies::build_resolved(policy_name, &settings.policy(policy_name)?, seed)?;
        let per_type = cluster
            .kinds
            .iter()
            .map(|k| (*k, Arc::new(only_type(cluster, *k))))
            .collect();
        Ok(Isolated {
            policy: policy_name.to_string(),
            cluster,
            per_type,
            zoo,
            settings,
            seed,
            round_s: policy.trigger().round_s.filter(|r| *r > 0.0),
            memo: BTreeMap::new(),
        })
    }

    /// The job's isolated time Σ_g (N_g / N) · T_g, or None when some type
    /// that may host it never finishes it alone.
    fn reference(&mut self, spec: &JobSpec, work: f64, n_avg: f64) -> Result<Option<f64>> {
        let v = self.cluster.total_gpus as f64 / n_avg.max(1.0);
        let pinned = spec.gpu_type.as_deref().and_then(GpuKind::by_name);
        let kinds: Vec<(GpuKind, Arc<Cluster>)> = self
            .per_type
            .iter()
            .filter(|(k, _)| pinned.is_none_or(|p| p == *k))
            .filter(|(_, c)| spec.adaptivity != Adaptivity::Rigid || spec.gpus <= c.total_gpus)
            .cloned()
            .collect();
        let total: f64 = kinds.iter().map(|(_, c)| c.total_gpus as f64).sum();
        if kinds.is_empty() || total <= 0.0 {
            return Ok(None);
        }
        let mut t_ref = 0.0;
        for (_, typed) in &kinds {
            let Some(t) = self.time_on(spec, work, typed, v)? else {
                return Ok(None);
            };
            t_ref += typed.total_gpus as f64 / total * t;
        }
        Ok((t_ref > 0.0).then_some(t_ref))
    }

    /// T_g(v): interpolated between ⌊v⌋ and ⌈v⌉ GPUs, T(1)/v below one GPU.
    fn time_on(
        &mut self,
        spec: &JobSpec,
        work: f64,
        typed: &Arc<Cluster>,
        v: f64,
    ) -> Result<Option<f64>> {
        if v < 1.0 {
            return Ok(self.alone(spec, work, typed, 1)?.map(|t| t / v));
        }
        let cap = typed.total_gpus as f64;
        let v = v.min(cap);
        let (lo, hi) = (v.floor() as u32, v.ceil() as u32);
        let Some(t_lo) = self.alone(spec, work, typed, lo)? else {
            return Ok(None);
        };
        if hi == lo {
            return Ok(Some(t_lo));
        }
        let Some(t_hi) = self.alone(spec, work, typed, hi)? else {
            return Ok(None);
        };
        Ok(Some(t_lo + (v - lo as f64) * (t_hi - t_lo)))
    }

    /// JCT of the job alone on `typed` with at most `max_gpus` GPUs.
    fn alone(
        &mut self,
        spec: &JobSpec,
        work: f64,
        typed: &Arc<Cluster>,
        max_gpus: u32,
    ) -> Result<Option<f64>> {
        let mut job = spec.clone();
        job.id = 0;
        job.arrival = self.round_s.map_or(0.0, |r| spec.arrival.rem_euclid(r));
        job.work = Some(work);
        job.duration = None;
        job.due = None;
        if job.adaptivity != Adaptivity::Rigid {
            job.max_gpus = if spec.max_gpus > 0 {
                spec.max_gpus.min(max_gpus)
            } else {
                max_gpus
            };
            job.min_gpus = job.min_gpus.min(job.max_gpus);
        }
        let key = format!(
            "{}|{}|{}|{}|{}|{}|{}|{}|{:?}|{}|{}",
            typed.spec_string(),
            job.model,
            job.gpus,
            job.min_gpus,
            job.max_gpus,
            job.batch_size,
            job.max_batch_size,
            work.to_bits(),
            job.adaptivity,
            job.preemptible,
            job.arrival.to_bits(),
        );
        if let Some(t) = self.memo.get(&key) {
            return Ok(*t);
        }
        let trace = Trace {
            name: format!("{} alone", spec.name),
            format: "isolated".into(),
            jobs: vec![job],
            skipped: 0,
            notes: Vec::new(),
            pools: Default::default(),
        };
        let run = run_policy(
            &trace,
            typed,
            self.zoo,
            &self.policy,
            self.settings,
            self.seed,
            &mut |_| true,
        )?;
        let t = run
            .outcome
            .jobs
            .first()
            .and_then(|r| Some(r.finish? - r.arrival));
        self.memo.insert(key, t);
        Ok(t)
    }
}

/// The nodes of one GPU type as a cluster of their own.
fn only_type(cluster: &Cluster, kind: GpuKind) -> Cluster {
    let groups: Vec<NodeGroup> = cluster
        .groups
        .iter()
        .filter(|g| g.kind == kind)
        .cloned()
        .collect();
    Cluster::from_groups(format!("{} {}", cluster.name, kind.name()), groups, 0)
}
