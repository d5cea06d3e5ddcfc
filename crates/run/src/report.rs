//! Running policies on a trace and shaping the results: the one code path
//! behind the CLI's `run` and the page's worker.

use schedlab_core::error::Result;
use schedlab_core::params::Params;
use schedlab_metrics::{against_reference, evaluate, JobMetrics, RestartMix, Summary};
use schedlab_model::cluster::Cluster;
use schedlab_model::perf::ModelZoo;
use schedlab_model::workload::Trace;
use schedlab_sim::{Outcome, Progress, Simulation};
use serde::Serialize;
use std::sync::Arc;

/// One policy's results.
#[derive(Debug, Clone, Serialize)]
pub struct PolicyRun {
    pub policy: String,
    pub params: Params,
    pub metrics: Summary,
    /// `metrics.avg_restarts` by what changed: grow, shrink, moved, resumed.
    pub restart_mix: RestartMix,
    /// Where the rhos' isolated times come from: `analytic` (rate curve) or
    /// `simulated` (the job alone under the same policy; `isolated`).
    pub ftf_reference: &'static str,
    pub jobs: Vec<JobMetrics>,
    /// Wall-clock seconds the simulation took (varies between runs).
    pub wall_s: f64,
    pub stop_reason: String,
    /// Adjustments the engine made to the input (e.g. clamped requests).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    #[serde(skip)]
    pub outcome: Outcome,
}

/// A whole `run`: trace, cluster, seed and one result per policy.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub trace: String,
    pub cluster: String,
    pub seed: u64,
    pub engine: Params,
    pub results: Vec<PolicyRun>,
}

pub use crate::setup::{parse_policies, Overrides, RunSettings, RunSetup, ZooSource};

/// The cluster a run of `trace` uses: `spec` (a built-in name or a spec
/// string) with the pools given on the command line (`--pools`), else the
/// trace's own (`# pools:`), checked against the cluster's size. The CLI,
/// the page and the wasm report all set runs up through here.
pub fn cluster_for(
    spec: &str,
    trace: &Trace,
    pools: Option<schedlab_model::cluster::Pools>,
) -> Result<Cluster> {
    let mut cluster = schedlab_model::cluster::parse_cluster(spec)?;
    if let Some(p) = pools {
        cluster.pools = p;
    }
    cluster.adopt_pools(&trace.pools)?;
    Ok(cluster)
}

/// Simulates one policy on a trace.
pub fn run_policy(
    trace: &Trace,
    cluster: &Arc<Cluster>,
    zoo: &Arc<ModelZoo>,
    name: &str,
    settings: &RunSettings,
    seed: u64,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<PolicyRun> {
    let (mut sim, params) = prepare_policy(trace, cluster, zoo, name, settings, seed)?;
    let started = web_time::Instant::now();
    let outcome = sim.run(progress)?;
    let wall_s = started.elapsed().as_secs_f64();
    let mut run = finish_policy(name, params, outcome, trace, cluster, zoo, wall_s);
    compare_to_reference(&mut run, trace, cluster, zoo, settings, seed)?;
    Ok(run)
}

/// For runs with pools, the per-job speedups and slowdowns against the
/// reference run: per-pool FCFS without sharing (`pool-fcfs`) on the same
/// trace, cluster, engine settings and seed (spec seed000 §5, a metric of
/// every policy). Runs without pools are left as they are.
pub fn compare_to_reference(
    run: &mut PolicyRun,
    trace: &Trace,
    cluster: &Arc<Cluster>,
    zoo: &Arc<ModelZoo>,
    settings: &RunSettings,
    seed: u64,
) -> Result<()> {
    if cluster.pools.is_empty() {
        return Ok(());
    }
    let reference = if run.policy == REFERENCE_POLICY {
        jcts(&run.outcome)
    } else {
        // The same engine settings, the reference policy's defaults; predictions
        // never change a run, so the reference need not make them.
        let mut engine_only = RunSettings::default();
        for (key, value) in settings.given().get("engine").into_iter().flatten() {
            if key != "predict" {
                engine_only.set("engine", key, value)?;
            }
        }
        let (mut sim, _) =
            prepare_policy(trace, cluster, zoo, REFERENCE_POLICY, &engine_only, seed)?;
        jcts(&sim.run(&mut |_| true)?)
    };
    run.metrics.speedup = against_reference(&mut run.jobs, &reference);
    Ok(())
}

/// The policy every run with pools is compared with.
pub const REFERENCE_POLICY: &str = "pool-fcfs";

fn jcts(outcome: &Outcome) -> Vec<Option<f64>> {
    outcome
        .jobs
        .iter()
        .map(|j| j.finish.map(|f| f - j.arrival))
        .collect()
}

/// The first half of [`run_policy`]: builds the policy and the simulation.
/// The page's worker steps the simulation in slices (so it can report
/// progress and be cancelled between them) and then calls [`finish_policy`].
pub fn prepare_policy(
    trace: &Trace,
    cluster: &Arc<Cluster>,
    zoo: &Arc<ModelZoo>,
    name: &str,
    settings: &RunSettings,
    seed: u64,
) -> Result<(Simulation, Params)> {
    settings.simulation(trace, cluster, zoo, name, seed)
}

/// The second half of [`run_policy`]: metrics of a finished simulation.
pub fn finish_policy(
    name: &str,
    params: Params,
    outcome: Outcome,
    trace: &Trace,
    cluster: &Cluster,
    zoo: &ModelZoo,
    wall_s: f64,
) -> PolicyRun {
    let (metrics, jobs) = evaluate(&outcome, &trace.jobs, cluster, zoo);
    PolicyRun {
        policy: name.to_string(),
        params,
        metrics,
        restart_mix: RestartMix::of(&jobs),
        ftf_reference: "analytic",
        jobs,
        wall_s,
        stop_reason: outcome.stop_reason.clone(),
        notes: outcome.notes.clone(),
        outcome,
    }
}

fn hours(s: f64) -> String {
    format!("{:.2}", s / 3600.0)
}

/// A human-readable table (hours for times).
pub fn to_table(r: &RunReport) -> String {
    let mut rows = vec![vec![
        "policy".to_string(),
        "done".into(),
        "avg JCT h".into(),
        "p50 h".into(),
        "p90 h".into(),
        "p99 h".into(),
        "makespan h".into(),
        "avg queue h".into(),
        "GPU-h".into(),
        "util".into(),
        "restarts/job".into(),
        "max FTF".into(),
        "kWh".into(),
        "wall s".into(),
    ]];
    // Due-date columns only when some job has a due date.
    let due = r
        .results
        .iter()
        .any(|p| p.jobs.iter().any(|j| j.tardiness_s.is_some()));
    if due {
        rows[0].insert(12, "due missed".into());
        rows[0].insert(12, "tardy h".into());
    }
    // Cost columns (STS: GPU price and tardiness penalty) only when a run has a cost.
    let costed = r.results.iter().any(|p| p.metrics.total_cost_usd > 0.0);
    let cost_at = rows[0].len() - 2;
    if costed {
        for (k, h) in ["GPU $", "tardy $", "cost $"].iter().enumerate() {
            rows[0].insert(cost_at + k, h.to_string());
        }
    }
    // Prediction-error columns only when completions were predicted.
    let predicted = r.results.iter().any(|p| p.metrics.predicted_frac > 0.0);
    if predicted {
        let at = rows[0].len() - 1;
        for (k, h) in ["pred err %", "p95 pred %", "p99 pred %"]
            .iter()
            .enumerate()
        {
            rows[0].insert(at + k, h.to_string());
        }
    }
    for p in &r.results {
        let m = &p.metrics;
        let mut row = vec![
            p.policy.clone(),
            format!("{}/{}", m.completed, m.jobs),
            hours(m.avg_jct_s),
            hours(m.p50_jct_s),
            hours(m.p90_jct_s),
            hours(m.p99_jct_s),
            hours(m.makespan_s),
            hours(m.avg_queue_s),
            format!("{:.1}", m.gpu_hours),
            format!("{:.3}", m.utilization),
            format!("{:.2}", m.avg_restarts),
            format!("{:.2}", m.ftf_rho_max),
            format!("{:.1}", m.energy_kwh),
            format!("{:.3}", p.wall_s),
        ];
        if due {
            row.insert(12, format!("{:.3}", m.due_missed_frac));
            row.insert(12, hours(m.avg_tardiness_s));
        }
        if costed {
            for (k, usd) in [m.gpu_cost_usd, m.tardiness_cost_usd, m.total_cost_usd]
                .iter()
                .enumerate()
            {
                row.insert(cost_at + k, format!("{usd:.2}"));
            }
        }
        if predicted {
            let at = row.len() - 1;
            row.insert(at, format!("{:.1}", m.p99_pred_error_pct));
            row.insert(at, format!("{:.1}", m.p95_pred_error_pct));
            row.insert(at, format!("{:.1}", m.avg_pred_error_pct));
        }
        rows.push(row);
    }
    let mut out = format!(
        "trace {}  cluster {}  seed {}\n",
        r.trace, r.cluster, r.seed
    );
    out.push_str(&text_table(&rows));
    out.push_str(&pools_table(r));
    if let Some(first) = r.results.first() {
        for n in &first.notes {
            out.push_str(&format!("note: {n}\n"));
        }
    }
    for p in &r.results {
        if p.stop_reason != "all jobs completed" {
            out.push_str(&format!(
                "note: {} stopped early: {}\n",
                p.policy, p.stop_reason
            ));
        }
    }
    out
}

/// Per-pool usage of each policy's run (empty when the run declares no pools).
fn pools_table(r: &RunReport) -> String {
    if r.results.iter().all(|p| p.outcome.pools.is_empty()) {
        return String::new();
    }
    let mut rows = vec![vec![
        "policy".to_string(),
        "pool".into(),
        "quota".into(),
        "jobs".into(),
        "peak GPUs".into(),
        "borrowed GPU-h".into(),
    ]];
    for p in &r.results {
        for q in &p.outcome.pools {
            rows.push(vec![
                p.policy.clone(),
                q.name.clone(),
                q.quota.to_string(),
                q.jobs.to_string(),
                q.peak_gpus.to_string(),
                format!("{:.1}", q.borrowed_gpu_s / 3600.0),
            ]);
        }
    }
    format!("pools:\n{}{}", text_table(&rows), speedup_table(r))
}

/// Speedups against the reference run of runs with pools (per-pool FCFS
/// without sharing; docs/METRICS.md).
fn speedup_table(r: &RunReport) -> String {
    let mut rows = vec![[
        "policy",
        "speedup geo",
        "mean",
        "JCT ratio",
        "p5",
        "p95",
        "slowed %",
        "total slowdown min",
        "max slowdown min",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect::<Vec<_>>()];
    for p in &r.results {
        let s = &p.metrics.speedup;
        rows.push(vec![
            p.policy.clone(),
            format!("{:.2}", s.speedup_geo),
            format!("{:.2}", s.speedup_mean),
            format!("{:.2}", s.speedup_jct_ratio),
            format!("{:.2}", s.speedup_p5),
            format!("{:.1}", s.speedup_p95),
            format!("{:.2}", 100.0 * s.slowed_frac),
            format!("{:.0}", s.slowdown_total_s / 60.0),
            format!("{:.0}", s.slowdown_max_s / 60.0),
        ]);
    }
    format!(
        "against per-pool FCFS without sharing ({REFERENCE_POLICY}):\n{}",
        text_table(&rows)
    )
}

/// One CSV row per policy with every summary metric.
pub fn to_csv(r: &RunReport) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "policy",
        "jobs",
        "completed",
        "avg_jct_s",
        "p50_jct_s",
        "p90_jct_s",
        "p99_jct_s",
        "makespan_s",
        "avg_queue_s",
        "gpu_hours",
        "utilization",
        "avg_restarts",
        "ftf_rho_max",
        "ftf_unfair_frac",
        "wall_s",
    ]);
    for p in &r.results {
        let m = &p.metrics;
        let _ = w.write_record([
            p.policy.clone(),
            m.jobs.to_string(),
            m.completed.to_string(),
            m.avg_jct_s.to_string(),
            m.p50_jct_s.to_string(),
            m.p90_jct_s.to_string(),
            m.p99_jct_s.to_string(),
            m.makespan_s.to_string(),
            m.avg_queue_s.to_string(),
            m.gpu_hours.to_string(),
            m.utilization.to_string(),
            m.avg_restarts.to_string(),
            m.ftf_rho_max.to_string(),
            m.ftf_unfair_frac.to_string(),
            p.wall_s.to_string(),
        ]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// Right-aligned text table (first column left-aligned) with a rule under the header.
pub fn text_table(rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |v| v.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, v)| {
                if c == 0 {
                    format!("{v:<w$}", w = widths[c])
                } else {
                    format!("{v:>w$}", w = widths[c])
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1)));
            out.push('\n');
        }
    }
    out
}
