//! Metrics: per-job records and per-run summaries (JCT statistics,
//! queueing, GPU-hours, utilisation, restarts, finish-time fairness).
//!
//! Definitions (also in `docs/METRICS.md`):
//! - JCT = finish - arrival; percentiles take element floor(q*n) of the
//!   sorted JCTs (the Sia artifact's rule).
//! - Queueing delay = time a job spent without GPUs between arrival and
//!   finish (JCT minus time holding GPUs), waits after preemption included.
//! - Makespan = last finish - first arrival.
//! - GPU-hours = GPU time held by jobs, restart delays included.
//! - Utilisation = GPU time held / (cluster GPUs x makespan).
//! - Finish-time fairness rho (Themis; Sia eq. 3.6): JCT divided by the
//!   job's isolated run time on a 1/N_avg share of the cluster, where N_avg
//!   is the mean number of active jobs during its life; on a heterogeneous
//!   cluster the isolated times per type are weighted by the type's share
//!   of GPUs. A rigid job's share is its request time-sliced by v/request.
//! - Energy = the busy power of every GPU a job held (restart delays
//!   included) plus the idle power of every other GPU, over the makespan
//!   (`perf::power`: busy = board power, idle = approximate P8 draw).
//! - Tardiness = max(0, finish - due) of a job with a due date (an
//!   unfinished one counts from the end of the run); a due date is missed
//!   when the job finished after it or not at all.
//! - Over time (`series`): queue length QL, cluster efficiency CE, blocking
//!   index BI (AFS §5) and the per-job share timeline; between runs
//!   (`compare`): reduction rates, JCT blowup, per-length bins.

pub mod catalog;
mod compare;
mod reference;
mod series;

pub use compare::{blowup, length_bins, reduction, tail_reduction, LengthBin};
pub use reference::{against_reference, SpeedupSummary, SLOWED_TOLERANCE_S};
pub use series::{share_steps, time_series, ShareSteps, TimeSeries};

use schedlab_core::num;
use schedlab_model::cluster::Cluster;
use schedlab_model::perf::{ModelZoo, Share};
use schedlab_model::workload::{Adaptivity, JobSpec};
use schedlab_sim::rules::{max_useful_gpus, natural_batch};
use schedlab_sim::{JobResult, Outcome, RestartKinds, Rules};
use serde::Serialize;

/// One job's metrics (the CLI's `jobs` array).
#[derive(Debug, Clone, Serialize)]
pub struct JobMetrics {
    pub id: u32,
    pub name: String,
    pub model: String,
    pub arrival: f64,
    pub start: Option<f64>,
    pub finish: Option<f64>,
    pub jct_s: Option<f64>,
    pub queue_s: Option<f64>,
    pub gpu_s: f64,
    pub restarts: u32,
    /// The restarts by what changed.
    pub restart_kinds: RestartKinds,
    pub preemptions: u32,
    /// Share changes that kept none of the job's GPUs.
    pub migrations: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ftf_rho: Option<f64>,
    /// Busy energy of the GPUs it held, kWh.
    pub energy_kwh: f64,
    /// Seconds past its due date (None without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tardiness_s: Option<f64>,
    /// Tardiness x the job's weight, read as dollars per second late
    /// (STS's eta; None without a due date).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tardiness_cost_usd: Option<f64>,
    /// JCT predicted at arrival (`engine.predict`): predicted finish minus arrival.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted_jct_s: Option<f64>,
    /// PCS's prediction error, 100 x |predicted JCT - JCT| / predicted JCT
    /// (finished jobs with a positive predicted JCT).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pred_error_pct: Option<f64>,
    /// JCT under the reference run (per-pool FCFS without sharing) / JCT
    /// here; None without pools (see `reference`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speedup: Option<f64>,
}

/// A run's summary (the CLI's `metrics` object).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct Summary {
    pub jobs: usize,
    pub completed: usize,
    pub avg_jct_s: f64,
    pub p50_jct_s: f64,
    pub p90_jct_s: f64,
    pub p99_jct_s: f64,
    pub makespan_s: f64,
    pub avg_queue_s: f64,
    pub gpu_hours: f64,
    pub utilization: f64,
    pub avg_restarts: f64,
    /// Worst finish-time fairness over completed jobs.
    pub ftf_rho_max: f64,
    /// Fraction of completed jobs with rho > 1.
    pub ftf_unfair_frac: f64,
    /// Cluster energy over the makespan, kWh: busy power of held GPUs,
    /// idle power of the others.
    pub energy_kwh: f64,
    /// Mean tardiness of the jobs with a due date (0 without any).
    pub avg_tardiness_s: f64,
    /// Fraction of the jobs with a due date that missed it (0 without any).
    pub due_missed_frac: f64,
    /// Largest tardiness of a job with a due date (0 without any).
    #[serde(default)]
    pub max_tardiness_s: f64,
    /// STS's cost (spec seed002 §5): the price of the GPU time used
    /// (`Outcome::gpu_cost_usd`; 0 when no GPU type has a price) ...
    #[serde(default)]
    pub gpu_cost_usd: f64,
    /// ... plus the tardiness penalty, the sum of weight x tardiness ...
    #[serde(default)]
    pub tardiness_cost_usd: f64,
    /// ... makes the total cost.
    #[serde(default)]
    pub total_cost_usd: f64,
    /// Fraction of the jobs with a completion predicted at arrival
    /// (`engine.predict`; 0 without predictions).
    pub predicted_frac: f64,
    /// Mean, median, p95 and p99 of PCS's prediction error in percent over
    /// the finished, predicted jobs (0 without predictions).
    pub avg_pred_error_pct: f64,
    pub p50_pred_error_pct: f64,
    pub p95_pred_error_pct: f64,
    pub p99_pred_error_pct: f64,
    /// Speedup and slowdown against per-pool FCFS without sharing (runs
    /// with pools; all 0 otherwise).
    #[serde(flatten, default)]
    pub speedup: SpeedupSummary,
}

/// Restarts per job by what changed (see `sim::RestartKinds`); the four
/// sum to `Summary::avg_restarts`. Kept beside the summary rather than in
/// it because the summary's fields are the page's scalar columns.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct RestartMix {
    pub grow: f64,
    pub shrink: f64,
    pub moved: f64,
    pub resumed: f64,
}

impl RestartMix {
    pub fn of(jobs: &[JobMetrics]) -> RestartMix {
        if jobs.is_empty() {
            return RestartMix::default();
        }
        let n = jobs.len() as f64;
        let sum = |f: fn(&RestartKinds) -> u32| {
            jobs.iter().map(|j| f(&j.restart_kinds) as f64).sum::<f64>() / n
        };
        RestartMix {
            grow: sum(|k| k.grow),
            shrink: sum(|k| k.shrink),
            moved: sum(|k| k.moved),
            resumed: sum(|k| k.resumed),
        }
    }
}

/// Per-job metrics and the run summary of one outcome.
pub fn evaluate(
    outcome: &Outcome,
    specs: &[JobSpec],
    cluster: &Cluster,
    zoo: &ModelZoo,
) -> (Summary, Vec<JobMetrics>) {
    // Every job's fair-share reference asks the same models' epochs again.
    let mut memo = schedlab_model::perf::RateMemo::default();
    let jobs: Vec<JobMetrics> = outcome
        .jobs
        .iter()
        .zip(specs)
        .map(|(r, spec)| {
            let jct = r.finish.map(|f| f - r.arrival);
            JobMetrics {
                id: r.id,
                name: r.name.clone(),
                model: r.model.clone(),
                arrival: r.arrival,
                start: r.start,
                finish: r.finish,
                jct_s: jct,
                queue_s: jct.map(|j| (j - r.run_s).max(0.0)),
                gpu_s: r.gpu_s,
                restarts: r.restarts,
                restart_kinds: r.restart_kinds,
                preemptions: r.preemptions,
                migrations: r.migrations,
                ftf_rho: jct
                    .and_then(|j| ftf_rho(j, r, spec, cluster, zoo, &outcome.rules, &mut memo)),
                energy_kwh: r.energy_j / J_PER_KWH,
                tardiness_s: r
                    .due
                    .map(|due| (r.finish.unwrap_or(outcome.end_time) - due).max(0.0)),
                tardiness_cost_usd: r
                    .due
                    .map(|due| spec.weight * (r.finish.unwrap_or(outcome.end_time) - due).max(0.0)),
                predicted_jct_s: r.predicted_finish.map(|p| p - r.arrival),
                pred_error_pct: match (r.predicted_finish, jct) {
                    (Some(p), Some(j)) if p > r.arrival => {
                        let pred = p - r.arrival;
                        Some(100.0 * (pred - j).abs() / pred)
                    }
                    _ => None,
                },
                speedup: None,
            }
        })
        .collect();
    (summarize(&jobs, outcome, cluster), jobs)
}

fn summarize(jobs: &[JobMetrics], outcome: &Outcome, cluster: &Cluster) -> Summary {
    let mut jcts: Vec<f64> = jobs.iter().filter_map(|j| j.jct_s).collect();
    schedlab_core::sorting::sort_by(&mut jcts, f64::total_cmp);
    let queues: Vec<f64> = jobs.iter().filter_map(|j| j.queue_s).collect();
    let first = jobs.iter().map(|j| j.arrival).fold(f64::INFINITY, f64::min);
    let last = jobs
        .iter()
        .filter_map(|j| j.finish)
        .fold(f64::NEG_INFINITY, f64::max);
    let makespan = if last.is_finite() && first.is_finite() {
        last - first
    } else {
        0.0
    };
    let gpu_s: f64 = outcome.jobs.iter().map(|j| j.gpu_s).sum();
    let (ftf_rho_max, ftf_unfair_frac) = ftf_extremes(jobs);
    // Over the makespan; a run that stopped early is charged up to its end.
    let energy_span = if outcome.incomplete > 0 && first.is_finite() {
        (outcome.end_time - first).max(makespan)
    } else {
        makespan
    };
    let energy = cluster_energy_j(outcome, cluster, energy_span);
    let due: Vec<(f64, bool)> = jobs
        .iter()
        .zip(&outcome.jobs)
        .filter_map(|(m, r)| {
            let t = m.tardiness_s?;
            let missed = r.finish.is_none() || t > 0.0;
            Some((t, missed))
        })
        .collect();
    let mut errors: Vec<f64> = jobs.iter().filter_map(|j| j.pred_error_pct).collect();
    schedlab_core::sorting::sort_by(&mut errors, f64::total_cmp);
    let pct = |q: f64| {
        if errors.is_empty() {
            0.0
        } else {
            num::percentile_sorted(&errors, q)
        }
    };
    let predicted = jobs.iter().filter(|j| j.predicted_jct_s.is_some()).count();
    let gpu_cost_usd = outcome.gpu_cost_usd.unwrap_or(0.0);
    // fold from +0: an empty f64 sum is -0, which JSON would print as "-0".
    let tardiness_cost_usd = jobs
        .iter()
        .filter_map(|j| j.tardiness_cost_usd)
        .fold(0.0, |a, b| a + b);
    Summary {
        speedup: SpeedupSummary::default(),
        max_tardiness_s: due.iter().map(|d| d.0).fold(0.0, f64::max),
        gpu_cost_usd,
        tardiness_cost_usd,
        total_cost_usd: gpu_cost_usd + tardiness_cost_usd,
        predicted_frac: if jobs.is_empty() {
            0.0
        } else {
            predicted as f64 / jobs.len() as f64
        },
        avg_pred_error_pct: if errors.is_empty() {
            0.0
        } else {
            num::mean(&errors)
        },
        p50_pred_error_pct: pct(0.50),
        p95_pred_error_pct: pct(0.95),
        p99_pred_error_pct: pct(0.99),
        jobs: jobs.len(),
        completed: jcts.len(),
        avg_jct_s: num::mean(&jcts),
        p50_jct_s: num::percentile_sorted(&jcts, 0.50),
        p90_jct_s: num::percentile_sorted(&jcts, 0.90),
        p99_jct_s: num::percentile_sorted(&jcts, 0.99),
        makespan_s: makespan,
        avg_queue_s: num::mean(&queues),
        gpu_hours: gpu_s / 3600.0,
        utilization: if makespan > 0.0 {
            gpu_s / (cluster.total_gpus as f64 * makespan)
        } else {
            0.0
        },
        avg_restarts: if jobs.is_empty() {
            0.0
        } else {
            jobs.iter().map(|j| j.restarts as f64).sum::<f64>() / jobs.len() as f64
        },
        ftf_rho_max,
        ftf_unfair_frac,
        energy_kwh: energy / J_PER_KWH,
        avg_tardiness_s: num::mean(&due.iter().map(|d| d.0).collect::<Vec<f64>>()),
        due_missed_frac: if due.is_empty() {
            0.0
        } else {
            due.iter().filter(|d| d.1).count() as f64 / due.len() as f64
        },
    }
}

const J_PER_KWH: f64 = 3.6e6;

/// Joules the cluster drew over `span` seconds: every GPU at idle power,
/// plus, for the GPUs jobs held, the difference to busy power.
pub fn cluster_energy_j(outcome: &Outcome, cluster: &Cluster, span: f64) -> f64 {
    let idle_w: f64 = cluster
        .kinds
        .iter()
        .map(|&k| schedlab_model::perf::power::gpu_power(k).idle_w * cluster.gpus_of(k) as f64)
        .sum();
    let busy: f64 = outcome.jobs.iter().map(|j| j.energy_j).sum();
    let held_idle: f64 = outcome.jobs.iter().map(|j| j.held_idle_j).sum();
    idle_w * span + busy - held_idle
}

/// Worst finish-time fairness rho and the fraction of jobs with rho > 1,
/// over the jobs that have a rho (0 and 0 when none has).
pub fn ftf_extremes(jobs: &[JobMetrics]) -> (f64, f64) {
    let rhos: Vec<f64> = jobs.iter().filter_map(|j| j.ftf_rho).collect();
    let worst = rhos.iter().copied().fold(0.0, f64::max);
    let unfair = if rhos.is_empty() {
        0.0
    } else {
        rhos.iter().filter(|r| **r > 1.0).count() as f64 / rhos.len() as f64
    };
    (worst, unfair)
}

/// Finish-time fairness of one completed job (None if no reference exists).
fn ftf_rho(
    jct: f64,
    r: &JobResult,
    spec: &JobSpec,
    cluster: &Cluster,
    zoo: &ModelZoo,
    rules: &Rules,
    memo: &mut schedlab_model::perf::RateMemo,
) -> Option<f64> {
    let model = zoo.lookup(&r.model)?;
    let info = zoo.get(model);
    // The run's rates were slowed by the engine's calibration; so is the reference.
    let slowdown = rules.calibration_slowdown(info);
    let n_avg = r.n_avg.max(1.0);
    let v = cluster.total_gpus as f64 / n_avg;
    // An adaptive job alone would pick its goodput-optimal batch (spec
    // seed004 §7.10: "with the batch optimized"); others keep their batch:
    // the engine's own rule.
    let batch = natural_batch(spec, info);
    let kinds: Vec<_> = match spec
        .gpu_type
        .as_deref()
        .and_then(schedlab_model::cluster::GpuKind::by_name)
    {
        Some(k) if cluster.kinds.contains(&k) => vec![k],
        _ => cluster.kinds.clone(),
    };
    let total: f64 = kinds.iter().map(|k| cluster.gpus_of(*k) as f64).sum();
    let mut t_ref = 0.0;
    for k in kinds {
        let weight = cluster.gpus_of(k) as f64 / total;
        let per_node = cluster.max_node_gpus(k);
        let share = |g: f64| Share {
            kind: k,
            share: g,
            per_node,
            batch,
        };
        // Time alone at the fair share, epoch by epoch for goodput models.
        let t = if spec.adaptivity == Adaptivity::Rigid {
            let req = spec.gpus as f64;
            zoo.time_at_share_memo(model, &share(req), 0.0, r.work, memo) / (v / req).min(1.0)
        } else {
            let cap = max_useful_gpus(spec, info, cluster.total_gpus);
            zoo.time_at_share_memo(model, &share(v.min(cap as f64)), 0.0, r.work, memo)
        };
        if !(t.is_finite() && t > 0.0) {
            return None;
        }
        t_ref += weight * t * slowdown;
    }
    // Alone, the job still pays its start-up (checkpoint-restore) delay
    // (spec seed004 §7.10 [I]: "plus one restart delay"), as the engine
    // charges a first start under this run's settings.
    t_ref += rules.first_start_delay(info);
    (t_ref > 0.0).then(|| jct / t_ref)
}
