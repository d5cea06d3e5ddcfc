//! What a reproduction measured: per-run statistics, finish-time fairness,
//! per-round policy times and the report that holds them all.

use schedlab_metrics::RestartMix;
use schedlab_model::workload::Trace;
use schedlab_run::report::PolicyRun;
use serde::Serialize;

/// Per-round policy time, in milliseconds.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct RoundTimes {
    pub rounds: usize,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
    /// Rounds where the policy fell back from its main method.
    pub fallbacks: usize,
}

impl RoundTimes {
    pub(super) fn of(run: &PolicyRun) -> RoundTimes {
        let mut ms: Vec<f64> = run
            .outcome
            .rounds
            .iter()
            .map(|r| r.policy_s * 1e3)
            .collect();
        schedlab_core::sorting::sort_by(&mut ms, f64::total_cmp);
        let at = |q: f64| {
            if ms.is_empty() {
                f64::NAN
            } else {
                ms[((q * ms.len() as f64) as usize).min(ms.len() - 1)]
            }
        };
        RoundTimes {
            rounds: ms.len(),
            median_ms: at(0.5),
            p95_ms: at(0.95),
            max_ms: ms.last().copied().unwrap_or(f64::NAN),
            fallbacks: run
                .outcome
                .rounds
                .iter()
                .filter(|r| r.fallback.is_some())
                .count(),
        }
    }
}

/// One policy on one trace.
#[derive(Debug, Clone, Serialize)]
pub struct RunStats {
    pub setting: String,
    pub workload: String,
    pub trace: String,
    pub policy: String,
    pub jobs: usize,
    pub completed: usize,
    pub avg_jct_h: f64,
    pub p99_jct_h: f64,
    pub makespan_h: f64,
    pub gpu_h_per_job: f64,
    /// Jobs in the system (arrived, not finished), time-averaged and peak.
    pub contention_avg: f64,
    pub contention_max: f64,
    pub restarts: f64,
    /// `restarts` by what changed.
    pub restart_mix: RestartMix,
    pub ftf_rho_max: f64,
    pub ftf_unfair_frac: f64,
    /// Completed jobs with a rho (for pooling the unfair fraction).
    pub ftf_jobs: usize,
    /// The same against simulated isolated runs (Fig 3.7 runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ftf_simulated: Option<FtfStats>,
    pub times: RoundTimes,
    pub wall_s: f64,
}

/// Jobs in the system over time: (time-weighted mean, max) over
/// [first arrival, last finish]. Unfinished jobs stay until the end.
pub fn contention(run: &PolicyRun) -> (f64, f64) {
    let end = run
        .jobs
        .iter()
        .filter_map(|j| j.finish)
        .fold(0.0f64, f64::max);
    let mut events: Vec<(f64, i32)> = Vec::with_capacity(2 * run.jobs.len());
    for j in &run.jobs {
        events.push((j.arrival, 1));
        events.push((j.finish.unwrap_or(end), -1));
    }
    // Departures before arrivals at equal times: a job that finishes as
    // another arrives does not count both.
    schedlab_core::sorting::sort_by(&mut events, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let Some(start) = events.first().map(|e| e.0) else {
        return (0.0, 0.0);
    };
    let (mut n, mut peak, mut area, mut last) = (0i64, 0i64, 0.0, start);
    for (t, d) in events {
        area += n as f64 * (t - last);
        last = t;
        n += d as i64;
        peak = peak.max(n);
    }
    let span = last - start;
    (if span > 0.0 { area / span } else { 0.0 }, peak as f64)
}

pub(super) fn run_stats(setting: &str, workload: &str, trace: &Trace, run: &PolicyRun) -> RunStats {
    let m = &run.metrics;
    let (c_avg, c_max) = contention(run);
    let ftf = FtfStats::of(run);
    RunStats {
        setting: setting.to_string(),
        workload: workload.to_string(),
        trace: trace.name.clone(),
        policy: run.policy.clone(),
        jobs: m.jobs,
        completed: m.completed,
        avg_jct_h: m.avg_jct_s.unwrap_or(f64::NAN) / 3600.0,
        p99_jct_h: m.p99_jct_s.unwrap_or(f64::NAN) / 3600.0,
        makespan_h: m.makespan_s.unwrap_or(f64::NAN) / 3600.0,
        gpu_h_per_job: m.gpu_hours / m.jobs.max(1) as f64,
        contention_avg: c_avg,
        contention_max: c_max,
        restarts: m.avg_restarts,
        restart_mix: run.restart_mix,
        ftf_rho_max: ftf.rho_max,
        ftf_unfair_frac: ftf.unfair_frac,
        ftf_jobs: ftf.jobs,
        ftf_simulated: None,
        times: RoundTimes::of(run),
        wall_s: run.wall_s,
    }
}

impl RunStats {
    /// The run's finish-time fairness against the analytic reference.
    pub fn ftf(&self) -> FtfStats {
        FtfStats {
            rho_max: self.ftf_rho_max,
            unfair_frac: self.ftf_unfair_frac,
            jobs: self.ftf_jobs,
        }
    }
}

/// Finish-time fairness of one run: worst rho, unfair fraction, and the
/// jobs that have a rho (for pooling the fraction over traces).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FtfStats {
    pub rho_max: f64,
    pub unfair_frac: f64,
    pub jobs: usize,
}

impl FtfStats {
    pub(super) fn of(run: &PolicyRun) -> FtfStats {
        FtfStats {
            rho_max: run.metrics.ftf_rho_max.unwrap_or(f64::NAN),
            unfair_frac: run.metrics.ftf_unfair_frac.unwrap_or(f64::NAN),
            jobs: run.jobs.iter().filter(|j| j.ftf_rho.is_some()).count(),
        }
    }

    /// Worst rho and pooled unfair fraction over several runs.
    pub(super) fn pool(all: &[FtfStats]) -> (f64, f64) {
        let worst = all.iter().map(|x| x.rho_max).fold(0.0, f64::max);
        let n: usize = all.iter().map(|x| x.jobs).sum();
        let unfair: f64 = all.iter().map(|x| x.unfair_frac * x.jobs as f64).sum();
        (worst, unfair / n.max(1) as f64)
    }
}

/// One point of the runtime sweep.
#[derive(Debug, Clone, Serialize)]
pub struct ScaleRow {
    pub gpus: u32,
    pub jobs: usize,
    pub policy: String,
    pub sim_hours: f64,
    pub times: RoundTimes,
    pub wall_s: f64,
}

/// The whole reproduction.
#[derive(Debug, Clone, Serialize)]
pub struct SiaReport {
    pub traces: u32,
    pub seed: u64,
    pub max_jobs: Option<usize>,
    pub runs: Vec<RunStats>,
    pub scale: Vec<ScaleRow>,
    pub scale_hours: f64,
}

/// Mean and sample standard deviation.
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = if xs.len() > 1 {
        xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var.sqrt())
}

impl SiaReport {
    /// Runs of one (setting, workload, policy).
    pub fn cell(&self, setting: &str, workload: &str, policy: &str) -> Vec<&RunStats> {
        self.runs
            .iter()
            .filter(|r| r.setting == setting && r.workload == workload && r.policy == policy)
            .collect()
    }

    /// Mean of a metric over a cell's traces.
    pub fn mean(
        &self,
        setting: &str,
        workload: &str,
        policy: &str,
        f: fn(&RunStats) -> f64,
    ) -> f64 {
        let xs: Vec<f64> = self
            .cell(setting, workload, policy)
            .iter()
            .map(|r| f(r))
            .collect();
        mean_std(&xs).0
    }

    /// Workloads present in a setting, in run order.
    pub fn workloads(&self, setting: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in self.runs.iter().filter(|r| r.setting == setting) {
            if !out.contains(&r.workload) {
                out.push(r.workload.clone());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_std_of_known_values() {
        let (m, s) = mean_std(&[1.0, 2.0, 3.0]);
        assert!((m - 2.0).abs() < 1e-12);
        assert!((s - 1.0).abs() < 1e-12);
        assert!(mean_std(&[]).0.is_nan());
    }
}
