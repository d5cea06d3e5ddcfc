//! TunedJobs (CMU thesis CMU-CS-25-136 §3.4.3; spec seed004 §3.7; the
//! artifact's `generate_workload.py`): the GPU count and batch size the
//! rigid baselines (Gavel, Themis, Shockwave) run each job at.
//!
//! For each job, every GPU count K in {1, 2, 4, 6, ..., max} is tried on the
//! profile type (rtx, the smallest-memory type, 8 GPUs per node), each with
//! the batch size (M0 x 2^i up to the model's largest batch) that gives the
//! shortest solo run. The (K, M) pairs whose speedup over the best 1-GPU run
//! is 50-80% of ideal (base / jct / K in (0.5, 0.8)) and whose run is under
//! 12 h are kept, and one is drawn uniformly with a seeded sampler; when none
//! qualifies the job gets (1, best 1-GPU batch). Run times come from the
//! model zoo: the solo run is integrated over the zoo's rate changes (epoch
//! boundaries), without restart delays.

use super::{JobSpec, Trace};
use crate::cluster::GpuKind;
use crate::perf::{BatchChoice, ModelId, ModelZoo, RateQuery};
use schedlab_core::error::{Error, Result};
use schedlab_core::rng::Sampler;
use serde::Serialize;

/// TunedJobs settings.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneOptions {
    /// GPU type the profiles come from.
    pub kind: GpuKind,
    /// GPUs per node of that type (decides the node count of K GPUs).
    pub gpus_per_node: u32,
    /// Largest GPU count tried (16 heterogeneous/physical, 64 homogeneous).
    pub max_gpus: u32,
    /// Runs longer than this are not kept (seconds).
    pub max_jct_s: f64,
    /// Kept speedup band, as a fraction of ideal (exclusive bounds).
    pub band: (f64, f64),
    pub seed: u64,
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions {
            kind: GpuKind::by_name("rtx").unwrap_or(GpuKind(1)),
            gpus_per_node: 8,
            max_gpus: 16,
            max_jct_s: 12.0 * 3600.0,
            band: (0.5, 0.8),
            seed: 1,
        }
    }
}

/// What was chosen for one job.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tuned {
    pub gpus: u32,
    pub batch: u32,
    /// Solo run time at the chosen configuration (seconds).
    pub jct_s: f64,
    /// Qualifying (K, M) pairs the choice was drawn from.
    pub candidates: Vec<(u32, u32)>,
    /// No pair qualified: (1, best batch).
    pub fallback: bool,
}

/// The GPU counts tried: 1, then even counts up to `max`.
pub fn gpu_counts(max: u32) -> Vec<u32> {
    let mut v = vec![1];
    v.extend((2..=max).step_by(2));
    v
}

/// The batch sizes tried: M0 x 2^i up to the model's largest batch (the
/// trace's batch when the model has no batch notion).
pub fn batch_sizes(zoo: &ModelZoo, id: ModelId, trace_batch: u32) -> Vec<u32> {
    let m = zoo.get(id);
    if m.default_batch == 0 {
        return vec![trace_batch];
    }
    let mut v = Vec::new();
    let mut b = m.default_batch;
    while b <= m.max_batch.max(m.default_batch) {
        v.push(b);
        b = b.saturating_mul(2);
    }
    v
}

/// Solo run time of `work` units on `gpus` GPUs at a fixed batch, following
/// the zoo's rate changes; None if the job makes no progress there.
pub fn solo_jct(
    zoo: &ModelZoo,
    id: ModelId,
    kind: GpuKind,
    gpus: u32,
    nodes: u32,
    batch: u32,
    work: f64,
) -> Option<f64> {
    let mut progress = 0.0;
    let mut t = 0.0;
    for _ in 0..100_000 {
        if progress >= work {
            return Some(t);
        }
        let r = zoo.rate(
            id,
            &RateQuery {
                kind,
                gpus,
                nodes,
                batch: BatchChoice::Fixed(batch),
                progress,
            },
        );
        if !(r.per_s > 0.0 && r.per_s.is_finite()) {
            return None;
        }
        let until = if r.until_progress > progress {
            r.until_progress.min(work)
        } else {
            work
        };
        t += (until - progress) / r.per_s;
        progress = until;
    }
    Some(t)
}

/// Total work of a job for tuning: its work, else its duration at the
/// trace's configuration on the profile type, else the model's default.
fn job_work(zoo: &ModelZoo, id: ModelId, spec: &JobSpec, o: &TuneOptions) -> Option<f64> {
    if let Some(w) = spec.work {
        return Some(w);
    }
    if let Some(d) = spec.duration {
        let batch = if spec.batch_size > 0 {
            spec.batch_size
        } else {
            zoo.get(id).default_batch
        };
        let r = zoo
            .rate(
                id,
                &RateQuery {
                    kind: o.kind,
                    gpus: spec.gpus,
                    nodes: spec.gpus.div_ceil(o.gpus_per_node.max(1)),
                    batch: BatchChoice::Fixed(batch),
                    progress: 0.0,
                },
            )
            .per_s;
        return (r > 0.0).then_some(d * r);
    }
    zoo.get(id).default_work
}

/// Tunes one job; `None` when the zoo cannot run it on one GPU at any batch.
pub fn tune_job(
    zoo: &ModelZoo,
    id: ModelId,
    spec: &JobSpec,
    o: &TuneOptions,
    rng: &mut Sampler,
) -> Option<Tuned> {
    let work = job_work(zoo, id, spec, o)?;
    let batches = batch_sizes(zoo, id, spec.batch_size);
    // Per K: the batch with the shortest run (first one on ties).
    let best_at = |k: u32| -> Option<(u32, f64)> {
        let nodes = k.div_ceil(o.gpus_per_node.max(1));
        batches
            .iter()
            .filter_map(|&b| solo_jct(zoo, id, o.kind, k, nodes, b, work).map(|t| (b, t)))
            .fold(None, |best: Option<(u32, f64)>, (b, t)| match best {
                Some((_, bt)) if bt <= t => best,
                _ => Some((b, t)),
            })
    };
    let (base_batch, base) = best_at(1)?;
    let mut cands: Vec<(u32, u32, f64)> = Vec::new();
    for k in gpu_counts(o.max_gpus) {
        if let Some((b, t)) = best_at(k) {
            let eff = base / t / k as f64;
            if eff > o.band.0 && eff < o.band.1 && t < o.max_jct_s {
                cands.push((k, b, t));
            }
        }
    }
    let candidates: Vec<(u32, u32)> = cands.iter().map(|c| (c.0, c.1)).collect();
    if cands.is_empty() {
        return Some(Tuned {
            gpus: 1,
            batch: base_batch,
            jct_s: base,
            candidates,
            fallback: true,
        });
    }
    let pick = cands[rng.below(cands.len() as u64) as usize];
    Some(Tuned {
        gpus: pick.0,
        batch: pick.1,
        jct_s: pick.2,
        candidates,
        fallback: false,
    })
}

/// Tunes every job of a trace: a copy whose `gpus` and `batch_size` are the
/// TunedJobs configuration, plus what was chosen per job.
pub fn tune_trace(trace: &Trace, zoo: &ModelZoo, o: &TuneOptions) -> Result<(Trace, Vec<Tuned>)> {
    let mut rng = Sampler::derive(o.seed, "tunedjobs");
    let mut jobs = trace.jobs.clone();
    let mut chosen = Vec::with_capacity(jobs.len());
    for spec in jobs.iter_mut() {
        let line = spec.source_line as usize;
        let id = zoo.lookup(&spec.model).ok_or_else(|| {
            Error::input(
                &trace.name,
                line,
                "model",
                format!(
                    "job '{}': unknown model '{}' (known: {})",
                    spec.name,
                    spec.model,
                    zoo.names().join(", ")
                ),
            )
        })?;
        let t = tune_job(zoo, id, spec, o, &mut rng).ok_or_else(|| {
            Error::input(
                &trace.name,
                line,
                "model",
                format!(
                    "job '{}': model '{}' has no work or duration to tune, or makes no progress on one {} GPU",
                    spec.name,
                    spec.model,
                    o.kind.name()
                ),
            )
        })?;
        // The work is fixed now: a duration was measured at the old size.
        spec.work = job_work(zoo, id, spec, o);
        spec.duration = None;
        spec.gpus = t.gpus;
        spec.batch_size = t.batch;
        chosen.push(t);
    }
    let tuned = Trace {
        name: format!("{} (TunedJobs)", trace.name),
        format: trace.format.clone(),
        jobs,
        skipped: trace.skipped,
        notes: trace.notes.clone(),
        pools: trace.pools.clone(),
    };
    Ok((tuned, chosen))
}
