//! Running policies on a trace and shaping the results: the one code path
//! behind the CLI's `run` and the page's worker.

use schedlab_core::csvout::CsvOut;
use schedlab_core::error::Result;
use schedlab_core::params::Params;
use schedlab_metrics::catalog::{self, MetricInfo, Table, METRICS};
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

/// A human-readable table of every run's metrics, its columns from the
/// metric catalog (`metrics::catalog`): the main metrics always ("–" where
/// one does not apply), due-date, cost and prediction metrics when some run
/// has them.
pub fn to_table(r: &RunReport) -> String {
    let values: Vec<Vec<(&MetricInfo, Option<f64>)>> =
        r.results.iter().map(|p| p.metrics.values()).collect();
    let shown: Vec<usize> = (0..METRICS.len())
        .filter(|&i| match METRICS[i].table {
            Table::Main => true,
            Table::WhenApplies => values.iter().any(|v| v[i].1.is_some()),
            Table::Speedup | Table::None => false,
        })
        .collect();
    let mut header = vec!["policy".to_string()];
    header.extend(shown.iter().map(|&i| METRICS[i].header()));
    header.push("wall s".into());
    let mut rows = vec![header];
    for (p, v) in r.results.iter().zip(&values) {
        let mut row = vec![p.policy.clone()];
        row.extend(shown.iter().map(|&i| v[i].0.show(v[i].1)));
        row.push(format!("{:.3}", p.wall_s));
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
                "note: {} stopped early: {} ({} of {} jobs unfinished)\n",
                p.policy,
                p.stop_reason,
                p.metrics.jobs - p.metrics.completed,
                p.metrics.jobs
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
/// without sharing; docs/METRICS.md), the catalog's speedup metrics.
fn speedup_table(r: &RunReport) -> String {
    let metrics: Vec<&MetricInfo> = METRICS
        .iter()
        .filter(|m| m.table == Table::Speedup)
        .collect();
    let mut header = vec!["policy".to_string()];
    header.extend(metrics.iter().map(|m| m.header()));
    let mut rows = vec![header];
    for p in &r.results {
        let mut row = vec![p.policy.clone()];
        row.extend(metrics.iter().map(|m| m.show(p.metrics.value(m.key))));
        rows.push(row);
    }
    format!(
        "against per-pool FCFS without sharing ({REFERENCE_POLICY}):\n{}",
        text_table(&rows)
    )
}

/// One CSV row per policy with every metric of the catalog, unscaled
/// (seconds, fractions), "–" where a metric does not apply.
pub fn to_csv(r: &RunReport) -> String {
    let mut w = CsvOut::new();
    let mut header = vec!["policy"];
    header.extend(METRICS.iter().map(|m| m.key));
    header.push("wall_s");
    w.row(header);
    for p in &r.results {
        let mut row = vec![p.policy.clone()];
        row.extend(
            p.metrics
                .values()
                .into_iter()
                .map(|(_, v)| v.map_or_else(|| catalog::ABSENT.to_string(), |x| x.to_string())),
        );
        row.push(p.wall_s.to_string());
        w.row(row);
    }
    w.finish()
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
